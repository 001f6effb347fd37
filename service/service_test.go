package service_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// Tokens of the test principals.
const (
	hostToken    = "tok-host-acme"
	mariaToken   = "tok-maria-acme"
	globexToken  = "tok-globex"
	adminToken   = "tok-admin"
	expiredToken = "tok-expired"
)

func principals(t testing.TB) *service.Principals {
	t.Helper()
	doc := map[string]any{"principals": []map[string]any{
		{"name": "orchestrator", "token_sha256": service.HashToken(hostToken), "tenant_id": "acme", "type": "system", "id": "orchestrator"},
		{"name": "maria", "token_sha256": service.HashToken(mariaToken), "tenant_id": "acme", "type": "human", "id": "maria", "roles": []string{"campaign_approver"}},
		{"name": "globex-host", "token_sha256": service.HashToken(globexToken), "tenant_id": "globex", "type": "system", "id": "orchestrator"},
		{"name": "auditor", "token_sha256": service.HashToken(adminToken), "tenant_id": "acme", "type": "human", "id": "auditor", "admin": true},
		{"name": "former", "token_sha256": service.HashToken(expiredToken), "tenant_id": "acme", "type": "system", "id": "orchestrator", "expires_at": "2020-01-01T00:00:00Z"},
	}}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	ps, err := service.ParsePrincipals(b)
	require.NoError(t, err)
	return ps
}

// api is a server on loopback over a real Badger store, with every response checked
// against the OpenAPI document.
type api struct {
	t      *testing.T
	srv    *httptest.Server
	e      *engine.Engine
	router routers.Router
}

func newAPI(t *testing.T) *api {
	t.Helper()
	return newAPIOn(t, engine.Options{Dir: t.TempDir()})
}

// newAPIOn serves an engine opened with opts.
func newAPIOn(t *testing.T, opts engine.Options) *api {
	t.Helper()
	return newAPIWith(t, opts, service.Options{Principals: principals(t)})
}

// newAPIWith serves an engine opened with opts through a handler of sopts.
func newAPIWith(t *testing.T, opts engine.Options, sopts service.Options) *api {
	t.Helper()
	opts.LazyPolicies = true
	e, err := engine.Open(context.Background(), opts)
	require.NoError(t, err)
	srv := httptest.NewServer(service.New(e, sopts))
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, e.Close())
	})
	doc, err := openapi3.NewLoader().LoadFromData(service.OpenAPI)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)
	return &api{t: t, srv: srv, e: e, router: router}
}

// call sends one request and checks the response against the OpenAPI document: its
// route, its status and its body's schema.
func (a *api) call(method, path, token, contentType string, body []byte) (int, []byte) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.srv.URL+path, bytes.NewReader(body))
	require.NoError(a.t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.srv.Client().Do(req)
	require.NoError(a.t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(a.t, err)
	a.conforms(resp.Request, resp, out) // the request answered, after any redirect
	return resp.StatusCode, out
}

func (a *api) conforms(req *http.Request, resp *http.Response, body []byte) {
	a.t.Helper()
	route, params, err := a.router.FindRoute(req)
	if err != nil {
		// The router matches decoded paths: an id with an escaped slash finds no route
		// there, while the server took it as one (odd) id. Either way the answer is an
		// error of the documented shape.
		if !strings.Contains(req.URL.EscapedPath(), "%2F") {
			require.Equal(a.t, http.StatusNotFound, resp.StatusCode, "%s %s is not in the OpenAPI document", req.Method, req.URL.Path)
		}
		var e struct{ Code, Message string }
		require.NoError(a.t, json.Unmarshal(body, &e))
		require.NotEmpty(a.t, e.Code, "%s", body)
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status: resp.StatusCode, Header: resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/x-ndjson"):
		schema := route.Operation.Responses.Status(resp.StatusCode).Value.Content.Get("application/x-ndjson").Schema.Value
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var v any
			require.NoError(a.t, json.Unmarshal(sc.Bytes(), &v))
			require.NoError(a.t, schema.VisitJSON(v), "a decision-log line does not match the document")
		}
		in.Options.ExcludeResponseBody = true
	case strings.HasPrefix(ct, "text/plain"), strings.HasPrefix(ct, "application/octet-stream"):
		in.Options.ExcludeResponseBody = true
	}
	in.SetBodyBytes(body)
	require.NoError(a.t, openapi3filter.ValidateResponse(context.Background(), in), "%s %s answered %d: %s", req.Method, req.URL.Path, resp.StatusCode, body)
}

func (a *api) submit(token, body string) (int, map[string]any) {
	a.t.Helper()
	status, out := a.call("POST", "/v1/requests", token, "application/json", []byte(body))
	var m map[string]any
	require.NoError(a.t, json.Unmarshal(out, &m), "%s", out)
	return status, m
}

const start = `{"request_id": "req-start", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew-q2-launch", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-api"}`

func cancel(id, actor string) string {
	return `{"request_id": "` + id + `", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-api", "organization_id": "acme-marketing", "trace_id": "trace-2", "actor": {"type": "human", "id": "` + actor + `", "roles": ["campaign_approver"]}, "reason": "stop"}`
}

func TestEveryRouteIsDocumented(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(service.OpenAPI)
	require.NoError(t, err)
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	served := map[string]bool{}
	for _, r := range service.Routes() {
		served[r] = true
	}
	assert.Equal(t, documented, served, "the routes served and the OpenAPI document's differ")
}

// TestWorkflowOverHTTP plays a workflow through every kind of call, on a Badger store
// and on a PostgreSQL store.
func TestWorkflowOverHTTP(t *testing.T) {
	t.Run("badger", func(t *testing.T) { workflowOverHTTP(t, newAPI(t), false) })
	t.Run("postgres", func(t *testing.T) {
		u := pgtest.URL(t)
		_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
		require.NoError(t, err)
		workflowOverHTTP(t, newAPIOn(t, engine.Options{StoreURL: u}), true)
	})
}

func workflowOverHTTP(t *testing.T, a *api, postgres bool) {
	status, d := a.submit(hostToken, start)
	require.Equal(t, http.StatusOK, status, "%v", d)
	assert.Equal(t, "allow", d["outcome"])
	assert.Equal(t, true, d["recorded"])

	status, out := a.call("GET", "/v1/tenants/acme/workflows/wf-api", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)
	assert.Contains(t, string(out), `"status": "RESEARCH"`)

	status, out = a.call("POST", "/v1/evaluate", mariaToken, "application/json", []byte(cancel("req-c1", "maria")))
	require.Equal(t, http.StatusOK, status, "%s", out)
	assert.Contains(t, string(out), `"recorded": false`)
	status, d = a.submit(mariaToken, cancel("req-c1", "maria"))
	require.Equal(t, http.StatusOK, status, "%v", d)
	assert.Equal(t, "allow", d["outcome"], "%v", d["reasons"])

	status, out = a.call("GET", "/v1/tenants/acme/workflows/wf-api/log", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	var log struct{ Entries []engine.Entry }
	require.NoError(t, json.Unmarshal(out, &log))
	assert.Len(t, log.Entries, 2)

	status, out = a.call("GET", "/v1/tenants/acme/workflows?pack=campaign", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(out), `"workflow_id": "wf-api"`)
	status, out = a.call("GET", "/v1/tenants/acme/workflows?awaiting=human", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.NotContains(t, string(out), "wf-api", "a cancelled workflow waits for nobody")
	status, _ = a.call("GET", "/v1/tenants/acme/workflows?awaiting=agent", hostToken, "", nil)
	assert.Equal(t, http.StatusBadRequest, status)

	status, out = a.call("GET", "/v1/tenants/acme/verify", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(out), `"ok": true`)

	status, out = a.call("GET", "/v1/tenants/acme/decisions", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 2, strings.Count(string(out), "\n"), "%s", out)

	id, _ := d["decision_id"].(string)
	status, out = a.call("GET", "/v1/decisions/"+id, mariaToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)
	assert.Contains(t, string(out), id)
	status, _ = a.call("GET", "/v1/decisions/"+id, globexToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status, "another tenant's decision is not found")
	status, out = a.call("GET", "/v1/decisions/"+id+"/explain", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)
	status, _ = a.call("GET", "/v1/decisions/"+id+"/explain", globexToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status, "another tenant's decision is not found")

	for _, path := range []string{"/v1/packs", "/v1/reasons", "/v1/packs/campaign/contract"} {
		status, _ = a.call("GET", path, hostToken, "", nil)
		assert.Equal(t, http.StatusOK, status, path)
	}
	status, out = a.call("GET", "/v1/packs/campaign/contract", hostToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	var contract struct {
		Tables struct {
			Agents    map[string]struct{ Produces []string }
			Artifacts map[string]struct {
				Fields map[string]struct{ Required bool }
			}
		}
	}
	require.NoError(t, json.Unmarshal(out, &contract))
	assert.Equal(t, []string{"RESEARCH_BRIEF"}, contract.Tables.Agents["research_agent"].Produces)
	assert.True(t, contract.Tables.Artifacts["RESEARCH_BRIEF"].Fields["claims"].Required)
	status, out = a.call("GET", "/v1/packs/nosuch/contract", hostToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status, "%s", out)
	status, _ = a.call("GET", "/v1/packs/campaign/contract", "", "", nil)
	assert.Equal(t, http.StatusUnauthorized, status)
	for _, path := range []string{"/health", "/health/ready", "/v1/openapi.json"} {
		status, _ = a.call("GET", path, "", "", nil)
		assert.Equal(t, http.StatusOK, status, path)
	}
	status, out = a.call("GET", "/metrics", "", "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, string(out), `handoff_decisions_total{kind="cancel",mode="submit",outcome="allow",pack="campaign"} 1`)
	assert.Contains(t, string(out), `handoff_decisions_total{kind="cancel",mode="evaluate",outcome="allow",pack="campaign"} 1`)
	for _, stage := range []string{"decode", "validate", "policy", "commit"} {
		assert.Regexp(t, `handoff_stage_seconds_count\{stage="`+stage+`"\} [1-9]`, string(out), stage)
	}
	assert.Regexp(t, `handoff_group_commit_appends_count [1-9]`, string(out))
	assert.Contains(t, string(out), "handoff_store_bytes ")

	// An admin reads every tenant, and takes backups.
	status, _ = a.call("GET", "/v1/tenants/acme/audit", adminToken, "", nil)
	assert.Equal(t, http.StatusOK, status)
	status, out = a.call("GET", "/v1/backup", adminToken, "", nil)
	if postgres {
		assert.Equal(t, http.StatusNotImplemented, status, "%s", out)
		assert.Contains(t, string(out), "pg_dump")
	} else {
		assert.Equal(t, http.StatusOK, status)
		assert.NotEmpty(t, out)
	}
	status, _ = a.call("GET", "/v1/backup", hostToken, "", nil)
	assert.Equal(t, http.StatusForbidden, status, "a backup holds every tenant")
}

// Hostile calls get the right status, and nothing is recorded for the tenant they aim at.
func TestHostileCalls(t *testing.T) {
	a := newAPI(t)
	status, _ := a.submit(hostToken, start)
	require.Equal(t, http.StatusOK, status)
	acmeLog := func() int {
		n := 0
		require.NoError(t, a.e.History(context.Background(), "acme", "wf-api", func(engine.Entry) error { n++; return nil }))
		return n
	}
	audit := func(tenant string) int {
		n := 0
		_ = a.e.Audit(context.Background(), tenant, func(engine.Entry) error { n++; return nil })
		return n
	}

	for name, token := range map[string]string{"no token": "", "unknown token": "nope", "expired token": expiredToken} {
		status, out := a.call("POST", "/v1/requests", token, "application/json", []byte(cancel("req-x", "maria")))
		assert.Equal(t, http.StatusUnauthorized, status, name)
		assert.Contains(t, string(out), `"UNAUTHENTICATED"`, name)
		status, _ = a.call("GET", "/v1/tenants/acme/workflows/wf-api", token, "", nil)
		assert.Equal(t, http.StatusUnauthorized, status, name)
	}

	// Another tenant's token reads nothing of acme.
	for _, path := range []string{"/v1/tenants/acme/workflows/wf-api", "/v1/tenants/acme/workflows/wf-api/log", "/v1/tenants/acme/workflows", "/v1/tenants/acme/audit", "/v1/tenants/acme/verify", "/v1/tenants/acme/decisions"} {
		status, out := a.call("GET", path, globexToken, "", nil)
		assert.Equal(t, http.StatusForbidden, status, "%s: %s", path, out)
	}

	// Requests that are not their principal's: 403, kept in the principal's audit stream.
	before, globexBefore := acmeLog(), audit("globex")
	acmeAudit := audit("acme")
	for name, c := range map[string]struct{ token, body string }{
		"globex for acme":      {globexToken, cancel("req-g", "maria")},
		"the host as a person": {hostToken, cancel("req-h", "maria")},
		"maria as another":     {mariaToken, cancel("req-m", "sam")},
		"maria claims a role":  {mariaToken, strings.Replace(cancel("req-r", "maria"), `"campaign_approver"`, `"campaign_approver", "admin"`, 1)},
	} {
		status, out := a.call("POST", "/v1/requests", c.token, "application/json", []byte(c.body))
		assert.Equal(t, http.StatusForbidden, status, "%s: %s", name, out)
		assert.Contains(t, string(out), `"code": "IDENTITY_MISMATCH"`, name)
	}
	assert.Equal(t, before, acmeLog(), "nothing reached the workflow")
	assert.Equal(t, globexBefore+1, audit("globex"), "globex's attempt is in globex's audit stream")
	assert.Equal(t, acmeAudit+3, audit("acme"))

	// Bodies.
	status, out := a.call("POST", "/v1/requests", hostToken, "text/plain", []byte(start))
	assert.Equal(t, http.StatusUnsupportedMediaType, status, "%s", out)
	huge := `{"request_id": "` + strings.Repeat("x", 2<<20) + `"}`
	status, _ = a.call("POST", "/v1/requests", hostToken, "application/json", []byte(huge))
	assert.Equal(t, http.StatusRequestEntityTooLarge, status)
	acmeAudit = audit("acme")
	status, out = a.call("POST", "/v1/requests", hostToken, "application/json", []byte(`{"kind": "cancel",`))
	assert.Equal(t, http.StatusOK, status, "malformed JSON is a block, recorded: %s", out)
	assert.Contains(t, string(out), `"outcome": "block"`)
	assert.Equal(t, acmeAudit+1, audit("acme"), "in the principal's audit stream")

	// Ids that try to leave their place.
	for _, path := range []string{"/v1/tenants/..%2Fglobex/workflows", "/v1/tenants/acme/workflows/..%2F..%2Fglobex", "/v1/tenants/acme/../globex/audit"} {
		status, _ := a.call("GET", path, hostToken, "", nil)
		assert.Contains(t, []int{http.StatusForbidden, http.StatusNotFound}, status, path)
	}
	status, _ = a.call("GET", "/v1/tenants/acme/workflows/nope", hostToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = a.call("GET", "/v1/nothing", hostToken, "", nil)
	assert.Equal(t, http.StatusNotFound, status)
}
