package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/syncbuf"
	"github.com/handoff-dev/handoff/service"
)

// TestServe runs handoffctl serve on a store, plays a start over HTTP, stops it as a
// signal would, and finds the decision recorded in the store it closed; the decision's
// spans went to the OTLP collector the environment names.
func TestServe(t *testing.T) {
	var traces atomic.Int64
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" {
			traces.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	token := "tok-orchestrator"
	doc := `{"principals": [{"name": "orchestrator", "token_sha256": "` + service.HashToken(token) + `", "tenant_id": "acme", "type": "system", "id": "orchestrator"},
		{"name": "operator", "token_sha256": "` + service.HashToken("tok-operator") + `", "tenant_id": "acme", "type": "human", "id": "operator", "admin": true}]}`
	principals := filepath.Join(dir, "principals.json")
	require.NoError(t, os.WriteFile(principals, []byte(doc), 0o600))

	srv := startServe(t, db, principals)
	base, stdout, stderr := srv.base, &srv.stdout, &srv.stderr

	body := `{"request_id": "req-start", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "s1", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-serve"}`
	req, err := http.NewRequest("POST", base+"/v1/requests", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", out)
	var d engine.Decision
	require.NoError(t, json.Unmarshal(out, &d))
	assert.Equal(t, engine.Allow, d.Outcome)

	resp, err = http.Get(base + "/v1/tenants/acme/workflows")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no token, no read")

	// A client that sends its headers slowly (slow loris) is cut off, not waited for.
	loris, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	_, err = loris.Write([]byte("POST /v1/requests HTTP/1.1\r\nHost: x\r\n"))
	require.NoError(t, err)
	began := time.Now()
	require.NoError(t, loris.SetReadDeadline(time.Now().Add(30*time.Second)))
	_, err = io.ReadAll(loris)
	assert.NoError(t, err, "the server closed the connection")
	assert.Less(t, time.Since(began), 20*time.Second, "within the header timeout")
	loris.Close()

	// The store is the server's: a command on it says which server to ask, and asks it
	// with --server.
	code, _, errOut := runArgs(t, "--db", db, "state", "--tenant", "acme", "wf-serve")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "hint: handoffctl serve holds the store at "+base+": run the command with --server "+base)
	// So does a second serve.
	code, _, errOut = runArgs(t, "--db", db, "serve", "--principals", principals, "--addr", "127.0.0.1:0")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "store locked")
	assert.Contains(t, errOut, "hint: handoffctl serve holds the store at "+base)
	// --pg-* flags are a PostgreSQL store's.
	code, _, errOut = runArgs(t, "--db", db, "serve", "--principals", principals, "--pg-max-conns", "4")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "apply to a PostgreSQL store")
	code, _, errOut = runArgs(t, "--server", base, "workflows", "--tenant", "acme")
	assert.Equal(t, exitError, code, "no token")
	assert.Contains(t, errOut, "UNAUTHENTICATED")
	t.Setenv("HANDOFF_TOKEN", token)
	code, out2, errOut := runArgs(t, "--server", base, "workflows", "--tenant", "acme")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^wf-serve\s+campaign\s+RESEARCH\s+1\s+allow\s`, out2)
	code, out2, errOut = runArgs(t, "--server", base, "-o", "json", "state", "--tenant", "acme", "wf-serve")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out2, `"status": "RESEARCH"`)
	code, out2, errOut = runArgs(t, "--server", base, "log", "--tenant", "acme", "wf-serve")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `start +orchestrator +ALLOW`, out2)
	code, out2, errOut = runArgs(t, "--server", base, "verify", "--tenant", "acme")
	require.Equal(t, exitOK, code, errOut+out2)
	reqFile := filepath.Join(dir, "again.json")
	require.NoError(t, os.WriteFile(reqFile, []byte(strings.Replace(body, "wf-serve", "wf-serve-2", 1)), 0o600))
	code, out2, errOut = runArgs(t, "--server", base, "-o", "json", "eval", reqFile)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out2, `"recorded": false`)
	code, _, errOut = runArgs(t, "--server", base, "--bundle", dir, "state", "--tenant", "acme", "wf-serve")
	assert.Equal(t, exitUsage, code, errOut)

	// A backup while it runs: an admin's only.
	backup := filepath.Join(dir, "store.backup")
	code, _, errOut = runArgs(t, "--server", base, "backup", "--out", backup)
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "FORBIDDEN")
	t.Setenv("HANDOFF_TOKEN", "tok-operator")
	code, out2, errOut = runArgs(t, "--server", base, "backup", "--out", backup)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out2, "backup written to "+backup)
	code, out2, errOut = runArgs(t, "--server", base, "-o", "json", "replay", "--bundle", filepath.Join("..", ".."), "--all")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out2, `"replayed": 1,`, "the server's log, replayed from a backup")
	assert.Contains(t, out2, `"changed": 0,`)

	require.Equal(t, exitOK, srv.stop(), "stderr: %s", stderr.String())
	assert.Contains(t, stdout.String(), "shutting down")
	assert.Contains(t, stdout.String(), "tracing: every decision is exported over OTLP/HTTP")
	assert.NotZero(t, traces.Load(), "the spans were exported at shutdown")
	assert.Contains(t, stderr.String(), `"route":"/v1/requests","status":200`, "an access log line per call")
	assert.NotContains(t, stderr.String(), "Brightbrew", "the access log never holds a body")

	// The backup restores into a new store that verifies and replays as recorded.
	restored := filepath.Join(dir, "restored")
	code, out3, errOut := runArgs(t, "--db", restored, "restore", "--from", backup)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out3, "restored "+restored)
	code, out3, errOut = runArgs(t, "--db", restored, "-o", "json", "replay", "--bundle", filepath.Join("..", ".."), "--all")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out3, `"replayed": 1,`)
	assert.Contains(t, out3, `"changed": 0,`)
	code, _, errOut = runArgs(t, "--db", restored, "restore", "--from", backup)
	assert.Equal(t, exitError, code, "a restore never writes over a store")
	assert.Contains(t, errOut, "is not empty")

	// Read-only, the store reads and refuses writes.
	code, out3, errOut = runArgs(t, "--db", db, "--read-only", "-o", "json", "state", "--tenant", "acme", "wf-serve")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out3, `"status": "RESEARCH"`)
	code, _, errOut = runArgs(t, "--db", db, "--read-only", "submit", reqFile)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--read-only opens a store for reading")

	e, err := engine.Open(context.Background(), engine.Options{Dir: db, LazyPolicies: true})
	require.NoError(t, err, "serve closed the store")
	defer e.Close()
	st, err := e.State(context.Background(), "acme", "wf-serve")
	require.NoError(t, err)
	assert.Equal(t, "RESEARCH", st.Status)
}

func TestServeRefusals(t *testing.T) {
	code, _, stderr := runArgs(t, "--db", t.TempDir(), "serve")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "serve needs --principals FILE")
	code, _, stderr = runArgs(t, "--db", t.TempDir(), "serve", "--insecure-dev", "--addr", "0.0.0.0:8080")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--insecure-dev serves a loopback address only")
	bad := filepath.Join(t.TempDir(), "p.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"principals": [{"name": "x", "token_sha256": "abc", "tenant_id": "acme", "type": "system", "id": "h"}]}`), 0o600))
	code, _, stderr = runArgs(t, "--db", t.TempDir(), "serve", "--principals", bad)
	assert.Equal(t, exitError, code)
	assert.Contains(t, stderr, "token_sha256 must be 64 lowercase hex digits")
}

func TestToken(t *testing.T) {
	code, stdout, _ := runArgs(t, "-o", "json", "token")
	require.Equal(t, exitOK, code)
	var tok struct {
		Token       string `json:"token"`
		TokenSHA256 string `json:"token_sha256"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &tok))
	assert.Len(t, tok.Token, 43)
	assert.Equal(t, service.HashToken(tok.Token), tok.TokenSHA256)
	code, stdout, _ = runArgs(t, "token", "abc")
	require.Equal(t, exitOK, code)
	assert.Equal(t, service.HashToken("abc")+"\n", stdout)
}

// servedStore is a handoffctl serve run in process by a test.
type servedStore struct {
	base           string // the URL it serves on
	stdout, stderr syncbuf.Buffer
	cancel         context.CancelFunc
	done           chan int
	code           int
	stopped        bool
}

// startServe runs handoffctl serve on the store db with the principals file, on a free
// loopback port, and waits until it listens. It is stopped when the test ends, if the
// test did not stop it.
func startServe(t *testing.T, db, principals string, flags ...string) *servedStore {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &servedStore{cancel: cancel, done: make(chan int, 1)}
	args := append([]string{"--db", db, "serve", "--addr", "127.0.0.1:0", "--principals", principals}, flags...)
	go func() {
		s.done <- run(ctx, args, strings.NewReader(""), &s.stdout, &s.stderr)
	}()
	t.Cleanup(func() { s.stop() })
	listening := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	require.Eventually(t, func() bool {
		m := listening.FindStringSubmatch(s.stdout.String())
		if m != nil {
			s.base = m[1]
		}
		return m != nil
	}, 60*time.Second, 20*time.Millisecond, "serve did not start: %s", s.stderr.String())
	return s
}

// stop stops the server and returns its exit code, or -1 when it did not stop within a
// minute.
func (s *servedStore) stop() int {
	if s.stopped {
		return s.code
	}
	s.cancel()
	select {
	case s.code = <-s.done:
	case <-time.After(60 * time.Second):
		s.code = -1
	}
	s.stopped = true
	return s.code
}

// writePrincipals writes a principals file of one principal, the host of tenant acme
// whose token is tok, and returns its path.
func writePrincipals(t *testing.T, dir, tok string) string {
	t.Helper()
	doc := `{"principals": [{"name": "orchestrator", "token_sha256": "` + service.HashToken(tok) + `", "tenant_id": "acme", "type": "system", "id": "orchestrator"}]}`
	path := filepath.Join(dir, "principals.json")
	require.NoError(t, os.WriteFile(path, []byte(doc), 0o600))
	return path
}

const serveStart = `{"request_id": "req-start", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "s1", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-serve"}`

// SIGTERM drains serve: a call in flight when it comes is answered, and serve exits 0.
// The server is a real process (the test binary as handoffctl).
func TestServeDrainsOnSIGTERM(t *testing.T) {
	bin, err := exec.LookPath("handoffctl") // installed on PATH by testscript.Main
	require.NoError(t, err)
	dir := t.TempDir()
	const tok = "tok-orchestrator"
	cmd := exec.Command(bin, "--db", filepath.Join(dir, "db"), "serve", "--addr", "127.0.0.1:0", "--principals", writePrincipals(t, dir, tok))
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=")
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	defer func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
		}
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	waitFor := func(what *regexp.Regexp) []string {
		t.Helper()
		timeout := time.After(60 * time.Second)
		for {
			select {
			case line, ok := <-lines:
				require.True(t, ok, "serve ended before saying %s: %s", what, stderr.String())
				if m := what.FindStringSubmatch(line); m != nil {
					return m
				}
			case <-timeout:
				t.Fatalf("serve did not say %s: %s", what, stderr.String())
			}
		}
	}
	base := waitFor(regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)`))[1]

	// A call in flight: its headers and half its body sent.
	c, err := net.Dial("tcp", base)
	require.NoError(t, err)
	defer c.Close()
	_, err = fmt.Fprintf(c, "POST /v1/requests HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		tok, len(serveStart), serveStart[:len(serveStart)/2])
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // the server is reading the body

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	waitFor(regexp.MustCompile(`shutting down`))
	_, err = io.WriteString(c, serveStart[len(serveStart)/2:])
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "the call in flight is answered: %s", stderr.String())
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", out)
	assert.Contains(t, string(out), `"outcome": "allow"`)

	select {
	case err := <-exited:
		require.NoError(t, err, "serve exits 0 after draining: %s", stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
}

// The traces serve exports name the service as the OpenTelemetry variables say,
// "handoff" when they say nothing. The collector is a real OTLP/HTTP receiver that
// decodes what it is sent.
func TestServeTraceResource(t *testing.T) {
	for name, c := range map[string]struct {
		env  map[string]string
		want map[string]string
	}{
		"default": {map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment.name=test"},
			map[string]string{"service.name": "handoff", "deployment.environment.name": "test"}},
		"OTEL_SERVICE_NAME": {map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_RESOURCE_ATTRIBUTES": "service.name=y"},
			map[string]string{"service.name": "x"}},
		"OTEL_RESOURCE_ATTRIBUTES": {map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=y"},
			map[string]string{"service.name": "y"}},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var resources []map[string]string
			collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				if assert.NoError(t, err) && r.URL.Path == "/v1/traces" {
					var req coltracepb.ExportTraceServiceRequest
					if assert.NoError(t, proto.Unmarshal(b, &req), "an OTLP protobuf export") {
						mu.Lock()
						for _, rs := range req.ResourceSpans {
							attrs := map[string]string{}
							for _, kv := range rs.Resource.GetAttributes() {
								attrs[kv.Key] = kv.Value.GetStringValue()
							}
							resources = append(resources, attrs)
						}
						mu.Unlock()
					}
				}
				w.Header().Set("Content-Type", "application/x-protobuf")
				w.WriteHeader(http.StatusOK)
			}))
			defer collector.Close()
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
			t.Setenv("OTEL_SERVICE_NAME", "")
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			dir := t.TempDir()
			const tok = "tok-orchestrator"
			srv := startServe(t, filepath.Join(dir, "db"), writePrincipals(t, dir, tok))
			req, err := http.NewRequest("POST", srv.base+"/v1/evaluate", strings.NewReader(serveStart))
			require.NoError(t, err)
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, exitOK, srv.stop(), "%s", srv.stderr.String())

			mu.Lock()
			defer mu.Unlock()
			require.NotEmpty(t, resources, "spans were exported at shutdown")
			for _, got := range resources {
				for k, v := range c.want {
					assert.Equal(t, v, got[k], k)
				}
				assert.Equal(t, "opentelemetry", got["telemetry.sdk.name"])
			}
		})
	}
}
