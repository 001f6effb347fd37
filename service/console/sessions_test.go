package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// The people of the session tests.
const (
	adminToken   = "token-admin-maria" // acme, campaign_approver, the tenant's admin
	expiredToken = "token-expired"     // acme, a person whose token expired
)

// auditPrincipals are the principals of the session tests: maria is acme's admin.
func auditPrincipals(t *testing.T) *service.Principals {
	t.Helper()
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	doc := map[string]any{"principals": []map[string]any{
		{"name": "maria", "token_sha256": service.HashToken(adminToken), "tenant_id": "acme", "type": "human", "id": "maria.lopez", "roles": []string{"campaign_approver"}, "admin": true},
		{"name": "ana", "token_sha256": service.HashToken(anaToken), "tenant_id": "acme", "type": "human", "id": "ana.souza", "roles": []string{"assessment_reviewer"}},
		{"name": "research-agent", "token_sha256": service.HashToken(agentToken), "tenant_id": "acme", "type": "agent", "id": "research_agent"},
		{"name": "old-hand", "token_sha256": service.HashToken(expiredToken), "tenant_id": "acme", "type": "human", "id": "old.hand", "expires_at": past},
		{"name": "globex-lead", "token_sha256": service.HashToken(globexToken), "tenant_id": "globex", "type": "human", "id": "lee", "roles": []string{"campaign_approver"}, "admin": true},
	}}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	ps, err := service.ParsePrincipals(b)
	require.NoError(t, err)
	return ps
}

// sharedStores open two engines that share one store, as two `serve` processes do: two
// engines on one PostgreSQL schema, or one Badger engine (a directory has one process)
// under two consoles, each with its own memory.
var sharedStores = []struct {
	name string
	open func(t *testing.T) (a, b *engine.Engine)
}{
	{"badger", func(t *testing.T) (*engine.Engine, *engine.Engine) {
		e := openEngine(t, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
		return e, e
	}},
	{"postgres", func(t *testing.T) (*engine.Engine, *engine.Engine) {
		u := pgtest.URL(t)
		_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
		require.NoError(t, err)
		return openEngine(t, engine.Options{StoreURL: u, LazyPolicies: true}), openEngine(t, engine.Options{StoreURL: u, LazyPolicies: true})
	}},
}

func openEngine(t *testing.T, opts engine.Options) *engine.Engine {
	t.Helper()
	e, err := engine.Open(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// serveAudit serves an engine with the session tests' principals.
func serveAudit(t *testing.T, e *engine.Engine) string {
	t.Helper()
	srv := httptest.NewServer(service.New(e, service.Options{Principals: auditPrincipals(t)}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// at is the visitor on another server: the same browser, cookies and all (a cookie is
// the host's, whatever the port).
func (v *visitor) at(base string) *visitor { return &visitor{t: v.t, base: base, c: v.c} }

// signedIn reports whether the visitor's session is live: the inbox, not the sign-in.
func (v *visitor) signedIn() bool {
	v.t.Helper()
	page := v.get("/console/")
	return strings.Contains(page, `id="signout"`) && !strings.Contains(page, `id="token"`)
}

// sameOrigin are the headers of a form the console's own page sends.
func (v *visitor) sameOrigin() map[string]string {
	return map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": v.base}
}

// consoleEvents are the console events of a tenant's audit stream, oldest first.
func consoleEvents(t *testing.T, e *engine.Engine, tenant string) []engine.ConsoleEvent {
	t.Helper()
	items, _, err := e.AuditPage(context.Background(), tenant, 0, 10000)
	require.NoError(t, err)
	var out []engine.ConsoleEvent
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Console != nil {
			out = append(out, *items[i].Console)
		}
	}
	return out
}

func eventNames(evs []engine.ConsoleEvent) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Event)
	}
	return out
}

// TestSessionsLiveInTheStore: a session begun on one server is good on the other;
// signing out on either ends it on both; signing out everywhere ends every session of
// the person and none of anyone else's, and a new sign-in works after it.
func TestSessionsLiveInTheStore(t *testing.T) {
	for _, st := range sharedStores {
		t.Run(st.name, func(t *testing.T) {
			ea, eb := st.open(t)
			a, b := serveAudit(t, ea), serveAudit(t, eb)

			first := newVisitor(t, a, &http.Client{})
			first.signIn(adminToken)
			assert.True(t, first.at(b).signedIn(), "the session of A is good on B")
			second := newVisitor(t, b, &http.Client{})
			second.signIn(adminToken)
			ana := newVisitor(t, a, &http.Client{})
			ana.signIn(anaToken)

			// Sign out on B: the session ends on A too; the other session of maria goes on.
			onB := first.at(b)
			status, page := onB.post("/console/signout", form(t, onB.get("/console/"), "/console/signout"), onB.sameOrigin())
			require.Equal(t, http.StatusOK, status, page)
			assert.False(t, first.signedIn(), "signed out on B, refused on A")
			assert.True(t, second.at(a).signedIn())

			// Sign out everywhere, on A: maria's sessions end on both servers, ana's stays.
			third := newVisitor(t, b, &http.Client{})
			third.signIn(adminToken)
			onA := second.at(a)
			status, page = onA.post("/console/signout/all", form(t, onA.get("/console/signout/all"), "/console/signout/all"), onA.sameOrigin())
			require.Equal(t, http.StatusOK, status, page)
			assert.False(t, second.signedIn(), "on B")
			assert.False(t, second.at(a).signedIn(), "on A")
			assert.False(t, third.signedIn(), "a session begun on the other server")
			assert.True(t, ana.signedIn(), "another person's session")
			assert.True(t, ana.at(b).signedIn())

			// A form of an ended session is refused, as a GET is.
			status, _ = third.post("/console/signout/all", url.Values{"csrf": {"x"}}, third.sameOrigin())
			assert.Equal(t, http.StatusUnauthorized, status)

			// Maria signs in again: the next epoch, live on both servers.
			fourth := newVisitor(t, a, &http.Client{})
			fourth.signIn(adminToken)
			assert.True(t, fourth.at(b).signedIn())

			evs := consoleEvents(t, ea, "acme")
			assert.Equal(t, []string{"signin", "signin", "signin", "signout", "signin", "signout_all", "signin"}, eventNames(evs))
			assert.Equal(t, uint64(0), evs[0].Epoch)
			assert.Equal(t, "console-revoke:acme:maria:0", evs[5].ID)
			assert.Equal(t, uint64(1), evs[6].Epoch, "the sign-in after the sign-out everywhere")
			assert.Equal(t, evs[0].Session, evs[3].Session, "the sign-out names the session it ended")
			assert.Equal(t, "/console/signout", evs[3].Path)
			assert.Equal(t, "maria.lopez", evs[0].ActorID)
			assert.True(t, evs[0].Admin)
			assert.Empty(t, consoleEvents(t, ea, "globex"), "another tenant's stream holds none of it")

			// Nothing secret is recorded: neither the person's token, nor a session's, nor
			// a CSRF token.
			raw, err := json.Marshal(evs)
			require.NoError(t, err)
			assert.NotContains(t, string(raw), adminToken)
			for _, v := range []*visitor{first, second, third, fourth} {
				for _, ck := range v.c.Jar.Cookies(mustURL(t, a+"/console/")) {
					assert.NotContains(t, string(raw), ck.Value, ck.Name)
				}
			}
			csrf := form(t, fourth.get("/console/"), "/console/signout").Get("csrf")
			require.NotEmpty(t, csrf)
			assert.NotContains(t, string(raw), csrf)
			reps, err := ea.VerifyTenant(context.Background(), "acme")
			require.NoError(t, err)
			for _, r := range reps {
				assert.True(t, r.OK, "%s/%s: %s", r.Tenant, r.Workflow, r.Problem)
			}
		})
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}
