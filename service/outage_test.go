package service_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// forwarder is a TCP proxy to the test database that a test can cut: the database
// becomes unreachable to whoever connects through it, while it keeps serving everyone
// else's tests.
type forwarder struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	cut    bool
}

func newForwarder(t *testing.T, target string) *forwarder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &forwarder{ln: ln, target: target}
	go f.serve()
	t.Cleanup(f.Cut)
	return f
}

func (f *forwarder) serve() {
	for {
		down, err := f.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", f.target)
		if err != nil {
			down.Close()
			continue
		}
		f.mu.Lock()
		if f.cut {
			f.mu.Unlock()
			down.Close()
			up.Close()
			return
		}
		f.conns = append(f.conns, down, up)
		f.mu.Unlock()
		go pipe(down, up)
		go pipe(up, down)
	}
}

func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// Cut closes the listener and every connection through it: connecting is refused and
// every open connection is broken.
func (f *forwarder) Cut() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cut = true
	f.ln.Close()
	for _, c := range f.conns {
		c.Close()
	}
	f.conns = nil
}

// through returns the database URL u reached through the forwarder.
func (f *forwarder) through(t *testing.T, u string) string {
	t.Helper()
	pu, err := url.Parse(u)
	require.NoError(t, err)
	pu.Host = f.ln.Addr().String()
	return pu.String()
}

// TestStoreOutageOnEveryRoute cuts the PostgreSQL store away from a running server and
// calls every route of the OpenAPI document: each one that reads or writes the store
// answers 503 STORE_UNAVAILABLE with a JSON body, documented; the others answer as
// they do with the store up.
func TestStoreOutageOnEveryRoute(t *testing.T) {
	direct := pgtest.URL(t)
	_, err := postgres.Migrate(context.Background(), store.Options{URL: direct})
	require.NoError(t, err)
	pu, err := url.Parse(direct)
	require.NoError(t, err)
	fw := newForwarder(t, pu.Host)
	a := newAPIOn(t, engine.Options{StoreURL: fw.through(t, direct)})

	status, d := a.submit(hostToken, start)
	require.Equal(t, http.StatusOK, status, "%v", d)
	id, _ := d["decision_id"].(string)
	require.NotEmpty(t, id)

	fw.Cut()

	const unavailable = "STORE_UNAVAILABLE"
	want := map[string]struct {
		status int
		code   string
	}{
		"GET /health":                                        {http.StatusOK, ""},
		"GET /health/ready":                                  {http.StatusServiceUnavailable, "NOT_READY"},
		"GET /metrics":                                       {http.StatusOK, ""},
		"GET /v1/openapi.json":                               {http.StatusOK, ""},
		"POST /v1/requests":                                  {http.StatusServiceUnavailable, unavailable},
		"POST /v1/evaluate":                                  {http.StatusServiceUnavailable, unavailable},
		"GET /v1/tenants/{tenant}/workflows":                 {http.StatusServiceUnavailable, unavailable},
		"GET /v1/tenants/{tenant}/workflows/{workflow}":      {http.StatusServiceUnavailable, unavailable},
		"GET /v1/tenants/{tenant}/workflows/{workflow}/log":  {http.StatusServiceUnavailable, unavailable},
		"GET /v1/tenants/{tenant}/audit":                     {http.StatusServiceUnavailable, unavailable},
		"GET /v1/tenants/{tenant}/verify":                    {http.StatusServiceUnavailable, unavailable},
		"GET /v1/tenants/{tenant}/decisions":                 {http.StatusServiceUnavailable, unavailable},
		"GET /v1/decisions/{id}":                             {http.StatusServiceUnavailable, unavailable},
		"GET /v1/decisions/{id}/explain":                     {http.StatusServiceUnavailable, unavailable},
		"GET /v1/backup":                                     {http.StatusNotImplemented, "NOT_SUPPORTED"}, // pg_dump's job, up or down
		"GET /v1/packs":                                      {http.StatusOK, ""},
		"GET /v1/packs/{pack}/contract":                      {http.StatusOK, ""},
		"GET /v1/packs/{pack}/schemas":                       {http.StatusOK, ""},
		"GET /v1/packs/{pack}/schemas/{kind}":                {http.StatusOK, ""},
		"GET /v1/packs/{pack}/openapi.json":                  {http.StatusOK, ""},
		"GET /v1/packs/{pack}/templates/{kind}":              {http.StatusOK, ""}, // no workflow_id: the bundle alone
		"GET /v1/tenants/{tenant}/workflows/{workflow}/next": {http.StatusServiceUnavailable, unavailable},
		"GET /v1/workflows/{workflow}/next":                  {http.StatusServiceUnavailable, unavailable},
		"GET /v1/reasons":                                    {http.StatusOK, ""},
		"GET /v1/whoami":                                     {http.StatusOK, ""}, // the principals file alone
		// No shadow bundle here, and the store is not read; promote is a host's call.
		"GET /v1/admin/shadow":               {http.StatusNotFound, "NOT_FOUND"},
		"GET /v1/admin/shadow/disagreements": {http.StatusNotFound, "NOT_FOUND"},
		"POST /v1/admin/shadow/promote":      {http.StatusForbidden, "FORBIDDEN"},
		"GET /v1/admin/bundle":               {http.StatusOK, ""},                 // the live bundle, in memory
		"POST /v1/admin/bundle/reload":       {http.StatusForbidden, "FORBIDDEN"}, // the host's token; the bundle, not the store, either way
	}
	params := strings.NewReplacer("{tenant}", "acme", "{workflow}", "wf-api", "{id}", id, "{pack}", "campaign", "{kind}", "handoff")

	doc, err := openapi3.NewLoader().LoadFromData(service.OpenAPI)
	require.NoError(t, err)
	var routes []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			routes = append(routes, method+" "+path)
		}
	}
	sort.Strings(routes)
	for _, route := range routes {
		w, ok := want[route]
		if !assert.True(t, ok, "%s: the test does not say what it answers while the store is down", route) {
			continue
		}
		method, path, _ := strings.Cut(route, " ")
		var body []byte
		ct := ""
		if method == http.MethodPost {
			body, ct = []byte(strings.Replace(start, `"req-start"`, `"req-outage"`, 1)), "application/json"
		}
		status, out := a.call(method, params.Replace(path), adminTokenFor(method), ct, body)
		assert.Equal(t, w.status, status, "%s: %s", route, out)
		if w.code == "" {
			continue
		}
		var e struct{ Code, Message, Hint string }
		if assert.NoError(t, json.Unmarshal(out, &e), "%s: the body is not JSON: %s", route, out) {
			assert.Equal(t, w.code, e.Code, "%s: %s", route, out)
			assert.NotContains(t, e.Message+e.Hint, "127.0.0.1", "%s: no socket address in the answer", route)
			assert.NotContains(t, e.Message+e.Hint, "SQLSTATE", "%s: no database error in the answer", route)
		}
	}
}

// adminTokenFor is a token that may make the call: the host's for a request (it names
// the host as its actor), the admin's for everything else (backups need it).
func adminTokenFor(method string) string {
	if method == http.MethodPost {
		return hostToken
	}
	return adminToken
}
