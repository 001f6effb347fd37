package service_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// decisions counts the decisions recorded in every tenant's logs and audit streams.
func (a *api) decisions() int {
	a.t.Helper()
	n := 0
	require.NoError(a.t, a.e.DecisionLog(context.Background(), engine.DecisionLogOptions{}, func(engine.DecisionLogEvent) error {
		n++
		return nil
	}))
	return n
}

// sized is a start request of exactly n bytes, with request_id id: the brief padded
// with strings under the engine's string limit, then with spaces.
func sized(t *testing.T, n int, id string) []byte {
	t.Helper()
	head := strings.NewReplacer(`"req-start"`, `"`+id+`"`, `"wf-api"`, `"wf-`+id+`"`).Replace(start)
	head = strings.TrimSuffix(head, "}") + `, "padding": [`
	var b strings.Builder
	b.WriteString(head)
	const chunk = 200 << 10
	for sep := ""; b.Len()+len(sep)+chunk+2+2 <= n; sep = "," {
		b.WriteString(sep + `"` + strings.Repeat("x", chunk) + `"`)
	}
	b.WriteString("]")
	b.WriteString(strings.Repeat(" ", n-b.Len()-1))
	b.WriteString("}")
	require.Equal(t, n, b.Len())
	require.True(t, json.Valid([]byte(b.String())))
	return []byte(b.String())
}

// The service's body limit is the engine's: a body at the limit is decided, one byte
// more is 413 PAYLOAD_TOO_LARGE and nothing is recorded.
func TestBodyLimitIsTheEngines(t *testing.T) {
	a := newAPI(t)
	limit := a.e.Decider().Limits().MaxBytes
	for _, c := range []struct {
		size   int
		status int
	}{
		{limit - 1, http.StatusOK},
		{limit, http.StatusOK},
		{limit + 1, http.StatusRequestEntityTooLarge},
		{limit + 4096, http.StatusRequestEntityTooLarge},
	} {
		t.Run(fmt.Sprint(c.size-limit), func(t *testing.T) {
			id := fmt.Sprintf("req-size-%d", c.size)
			before := a.decisions()
			status, out := a.call("POST", "/v1/requests", hostToken, "application/json", sized(t, c.size, id))
			require.Equal(t, c.status, status, "%.300s", out)
			if c.status == http.StatusOK {
				var d engine.Decision
				require.NoError(t, json.Unmarshal(out, &d))
				assert.Equal(t, id, d.RequestID)
				assert.NotContains(t, d.Codes(), "PAYLOAD_TOO_LARGE", "within the limit")
				assert.Equal(t, before+1, a.decisions())
				return
			}
			var e struct{ Code, Message, Hint string }
			require.NoError(t, json.Unmarshal(out, &e), "%s", out)
			assert.Equal(t, "PAYLOAD_TOO_LARGE", e.Code)
			assert.Contains(t, e.Hint, fmt.Sprint(limit))
			assert.Equal(t, before, a.decisions(), "a body past the limit is never decided")
		})
	}
}

// rawResponse reads one HTTP response from a connection.
func rawResponse(t *testing.T, c net.Conn, within time.Duration) (*http.Response, []byte) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(within)))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "no answer")
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// A client that writes a 16 MiB body before it reads gets the answer, not a reset
// connection: the 413 JSON whether the body's length was declared or not, and the
// refusals answered before the body is read (401, 415) too.
func TestLargeUploadReadsTheAnswer(t *testing.T) {
	a := newAPI(t)
	const (
		declared = "Content-Length: 16777216\r\n"
		chunked  = "Transfer-Encoding: chunked\r\n"
		auth     = "Authorization: Bearer " + hostToken + "\r\n"
		asJSON   = "Content-Type: application/json\r\n"
	)
	for name, c := range map[string]struct {
		header string
		status int
		code   string
	}{
		"declared": {auth + asJSON + declared, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
		"chunked":  {auth + asJSON + chunked, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
		"no token": {asJSON + declared, http.StatusUnauthorized, "UNAUTHENTICATED"},
		"not JSON": {auth + "Content-Type: text/plain\r\n" + chunked, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"},
	} {
		t.Run(name, func(t *testing.T) {
			before := a.decisions()
			conn, err := net.Dial("tcp", strings.TrimPrefix(a.srv.URL, "http://"))
			require.NoError(t, err)
			defer conn.Close()
			_, err = fmt.Fprintf(conn, "POST /v1/requests HTTP/1.1\r\nHost: x\r\n%s\r\n", c.header)
			require.NoError(t, err)
			isChunked := strings.Contains(c.header, chunked)
			chunk := []byte(`{"x": "` + strings.Repeat("a", 1<<20-8) + `"}`)
			for range 16 {
				if isChunked {
					_, err = fmt.Fprintf(conn, "%x\r\n%s\r\n", len(chunk), chunk)
				} else {
					_, err = conn.Write(chunk)
				}
				require.NoError(t, err, "the server took the body")
			}
			if isChunked {
				_, err = io.WriteString(conn, "0\r\n\r\n")
				require.NoError(t, err)
			}
			resp, body := rawResponse(t, conn, 20*time.Second)
			assert.Equal(t, c.status, resp.StatusCode, "%s", body)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			assert.Contains(t, string(body), `"code": "`+c.code+`"`)
			assert.Equal(t, before, a.decisions())
		})
	}
}

// A body that stalls or trickles is cut off after a deadline proportional to its length
// (408 REQUEST_TIMEOUT, JSON, no socket address in it), and a body sent to a route that
// reads none is not waited for.
func TestSlowBodies(t *testing.T) {
	a := newAPI(t)
	dial := func(t *testing.T, method, path string, length int) net.Conn {
		c, err := net.Dial("tcp", strings.TrimPrefix(a.srv.URL, "http://"))
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		_, err = fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"kind\": ", method, path, hostToken, length)
		require.NoError(t, err)
		return c
	}
	const length = 64 << 10 // 5 s plus 0.25 s at 256 KiB/s
	for name, trickle := range map[string]bool{"stalled": false, "trickled": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := dial(t, "POST", "/v1/requests", length)
			began := time.Now()
			if trickle {
				go func() {
					for range 200 {
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
						time.Sleep(100 * time.Millisecond)
					}
				}()
			}
			resp, body := rawResponse(t, c, 20*time.Second)
			took := time.Since(began)
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode, "%s", body)
			assert.Contains(t, string(body), `"code": "REQUEST_TIMEOUT"`)
			assert.NotContains(t, string(body), "127.0.0.1", "no socket address in an answer")
			assert.Less(t, took, 8*time.Second, "cut at the body's deadline")
			assert.GreaterOrEqual(t, took, 5*time.Second, "not before it")
		})
	}
	t.Run("a route without a body", func(t *testing.T) {
		t.Parallel()
		c := dial(t, "GET", "/v1/packs", length)
		resp, body := rawResponse(t, c, 3*time.Second)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	})
}
