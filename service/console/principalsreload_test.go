package console_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service"
)

// A principals file read again takes effect on the console too: a person removed from
// it, or whose roles changed, is signed out at the next page; one left as it was keeps
// the session.
func TestConsoleSessionsFollowThePrincipals(t *testing.T) {
	e := openEngine(t, engine.Options{InMemory: true, LazyPolicies: true})
	ps := auditPrincipals(t)
	hs := httptest.NewServer(service.New(e, service.Options{Principals: ps}))
	t.Cleanup(hs.Close)
	srv := hs.URL

	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	maria := newVisitor(t, srv, &http.Client{})
	maria.signIn(adminToken)
	maria.c.CheckRedirect = noRedirect
	ana := newVisitor(t, srv, &http.Client{})
	ana.signIn(anaToken)
	ana.c.CheckRedirect = noRedirect

	// Ana loses her role and maria stays as she was.
	doc := map[string]any{"principals": []map[string]any{
		{"name": "maria", "token_sha256": service.HashToken(adminToken), "tenant_id": "acme", "type": "human", "id": "maria.lopez", "roles": []string{"campaign_approver"}, "admin": true},
		{"name": "ana", "token_sha256": service.HashToken(anaToken), "tenant_id": "acme", "type": "human", "id": "ana.souza"},
	}}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	next, err := service.ParsePrincipals(b)
	require.NoError(t, err)
	ps.Replace(next)

	assert.Contains(t, maria.get("/console/"), `id="signout"`, "maria's session goes on")
	resp, err := ana.c.Get(srv + "/console/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode, "ana's session ended with her role")
	assert.Equal(t, "/console/signin", resp.Header.Get("Location"))

	// Maria removed: her session ends too.
	empty, err := service.ParsePrincipals([]byte(`{"principals": []}`))
	require.NoError(t, err)
	ps.Replace(empty)
	resp, err = maria.c.Get(srv + "/console/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
}
