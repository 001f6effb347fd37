package console_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/syncbuf"
	"github.com/handoff-dev/handoff/service"
)

// visitor is a scripted HTTP client of the console, cookies kept: every header is the
// test's to set, as a forger's would be.
type visitor struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newVisitor(t *testing.T, base string, c *http.Client) *visitor {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c.Jar = jar
	return &visitor{t: t, base: base, c: c}
}

func (v *visitor) get(path string) string {
	v.t.Helper()
	resp, err := v.c.Get(v.base + path)
	require.NoError(v.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(v.t, err)
	require.Equal(v.t, http.StatusOK, resp.StatusCode, "GET %s: %s", path, b)
	return string(b)
}

// post sends a form with headers and returns the status and page of the answer.
func (v *visitor) post(path string, form url.Values, headers map[string]string) (int, string) {
	v.t.Helper()
	req, err := http.NewRequest("POST", v.base+path, strings.NewReader(form.Encode()))
	require.NoError(v.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	resp, err := v.c.Do(req)
	require.NoError(v.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(v.t, err)
	return resp.StatusCode, string(b)
}

var (
	formRE  = regexp.MustCompile(`(?s)<form [^>]*action="([^"]*)"[^>]*>(.*?)</form>`)
	inputRE = regexp.MustCompile(`<input type="(?:hidden|checkbox)" (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"( data-type="[^"]*")?`)
)

// form reads the fields of the form of page whose action ends with action: its hidden
// fields, and its checkboxes whose data-type is among types.
func form(t *testing.T, page, action string, types ...string) url.Values {
	t.Helper()
	for _, m := range formRE.FindAllStringSubmatch(page, -1) {
		if !strings.HasSuffix(html.UnescapeString(m[1]), action) {
			continue
		}
		out := url.Values{}
		for _, in := range inputRE.FindAllStringSubmatch(m[2], -1) {
			typ := strings.TrimSuffix(strings.TrimPrefix(in[3], ` data-type="`), `"`)
			if in[3] == "" || slices.Contains(types, typ) {
				out.Add(in[1], html.UnescapeString(in[2]))
			}
		}
		return out
	}
	t.Fatalf("no form posting to %s in the page", action)
	return nil
}

// signIn signs the visitor in as the sign-in page of the console would.
func (v *visitor) signIn(token string) {
	v.t.Helper()
	f := form(v.t, v.get("/console/signin"), "/console/signin")
	f.Set("token", token)
	status, page := v.post("/console/signin", f, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": v.base})
	require.Equal(v.t, http.StatusOK, status, page)
	require.Contains(v.t, page, `id="signout"`)
}

// TestConsoleCrossOriginPosts: a form posted from a page of another site is refused
// though it carries the person's valid CSRF token (a token a script of the console's
// own origin could have read, or one that leaked): 403, a page that says so, a log
// line, and nothing recorded. The console's own pages post as before.
func TestConsoleCrossOriginPosts(t *testing.T) {
	var logs syncbuf.Buffer
	s := newServed(t, slog.New(slog.NewTextHandler(&logs, nil)))
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", nil)
	wf := f.workflow()
	records := func() int {
		n := 0
		require.NoError(t, s.e.History(context.Background(), "acme", wf, func(engine.Entry) error { n++; return nil }))
		return n
	}
	v := newVisitor(t, s.url, &http.Client{})
	v.signIn(mariaToken)
	approval := form(t, v.get("/console/workflows/"+url.PathEscape(wf)), "/approval", "STRATEGY_BRIEF")
	approval.Set("decision", "APPROVE")
	require.NotEmpty(t, approval.Get("csrf"))
	require.Len(t, approval["artifact"], 1)
	signout := form(t, v.get("/console/"), "/console/signout")
	before := records()

	for _, tc := range []struct {
		name    string
		headers map[string]string
	}{
		{"a foreign Origin", map[string]string{"Origin": "https://evil.example"}},
		{"a foreign Origin and Sec-Fetch-Site cross-site", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}},
		{"Sec-Fetch-Site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"Sec-Fetch-Site same-site", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": strings.Replace(s.url, "//", "//other.", 1)}},
		{"an opaque Origin", map[string]string{"Origin": "null"}},
		{"the same host on another port", map[string]string{"Origin": "http://127.0.0.1:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, page := v.post("/console/workflows/"+url.PathEscape(wf)+"/approval", approval, tc.headers)
			assert.Equal(t, http.StatusForbidden, status)
			assert.Contains(t, page, "another site", "the page says why")
			assert.Equal(t, before, records(), "nothing recorded")
			status, _ = v.post("/console/signout", signout, tc.headers)
			assert.Equal(t, http.StatusForbidden, status, "sign-out")
			status, _ = v.post("/console/signin", url.Values{"token": {mariaToken}}, tc.headers)
			assert.Equal(t, http.StatusForbidden, status, "sign-in")
		})
	}
	assert.Contains(t, logs.String(), "cross-origin", "each refusal is logged")
	assert.Contains(t, logs.String(), "https://evil.example")
	assert.Contains(t, v.get("/console/"), `id="signout"`, "the forged sign-out ended nothing")

	// The console's own page: same-origin, and the token.
	status, page := v.post("/console/workflows/"+url.PathEscape(wf)+"/approval", approval, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": s.url})
	require.Equal(t, http.StatusOK, status, page)
	assert.Contains(t, page, `id="status-after">PRODUCTION<`)
	assert.Equal(t, before+1, records())
	// A browser without Sec-Fetch-Site sends its page's Origin: this one's passes (the
	// form sent again is answered as before), and the token is still required.
	status, page = v.post("/console/workflows/"+url.PathEscape(wf)+"/approval", approval, map[string]string{"Origin": s.url})
	assert.Equal(t, http.StatusOK, status, page)
	assert.Equal(t, before+1, records(), "one request, decided once")
	approval.Set("csrf", "forged")
	status, page = v.post("/console/workflows/"+url.PathEscape(wf)+"/approval", approval, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": s.url})
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, page, "CSRF token")
}

// Served over TLS, a page of the same host served over plain HTTP is another origin.
func TestConsoleCrossOriginScheme(t *testing.T) {
	e, err := engine.Open(context.Background(), engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	srv := httptest.NewTLSServer(service.New(e, service.Options{}))
	t.Cleanup(srv.Close)
	v := newVisitor(t, srv.URL, srv.Client())
	f := form(t, v.get("/console/signin"), "/console/signin")
	f.Set("token", "unknown")
	status, page := v.post("/console/signin", f, map[string]string{"Origin": strings.Replace(srv.URL, "https:", "http:", 1)})
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, page, "another site")
	status, page = v.post("/console/signin", f, map[string]string{"Origin": srv.URL})
	assert.Equal(t, http.StatusUnauthorized, status, "the page's own origin reaches the sign-in")
	assert.NotContains(t, page, "another site")
}
