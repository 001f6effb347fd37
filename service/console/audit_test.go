package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service/console"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestSessionExpires: a session lasts SessionTTL by the console's clock, on every
// console of the store, and the cookie says as much to the browser.
func TestSessionExpires(t *testing.T) {
	e := openEngine(t, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	clock := &fakeClock{now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	people := func(token string) (console.Person, bool) {
		return console.Person{Name: "maria", Tenant: "acme", ID: "maria.lopez", Roles: []string{"campaign_approver"}}, token == mariaToken
	}
	serve := func() string {
		srv := httptest.NewServer(console.New(e, console.Options{Authenticate: people, SessionTTL: time.Hour, Clock: clock.Now}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	a, b := serve(), serve()
	v := newVisitor(t, a, &http.Client{})
	v.signIn(mariaToken)
	for _, ck := range v.c.Jar.Cookies(mustURL(t, a+"/console/")) {
		assert.NotEqual(t, "handoff_signin", ck.Name, "the sign-in form's cookie is gone")
	}
	clock.add(59 * time.Minute)
	assert.True(t, v.signedIn())
	assert.True(t, v.at(b).signedIn(), "the other console reads the sign-in from the store")
	clock.add(time.Minute)
	assert.False(t, v.signedIn(), "an hour later")
	assert.False(t, v.at(b).signedIn())
	evs := consoleEvents(t, e, "acme")
	require.Len(t, evs, 1)
	assert.Equal(t, "2026-03-02T10:00:00Z", evs[0].ExpiresAt)
}

// TestConsoleActionsAreAudited: refused sign-ins and refused forms go to the audit
// stream of the tenant they name, with the person, the page, the reason and the
// browser, never a token nor what the form said; those that name no tenant are counted
// and logged only.
func TestConsoleActionsAreAudited(t *testing.T) {
	e := openEngine(t, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	base := serveAudit(t, e)
	ctx := context.Background()
	anon := newVisitor(t, base, &http.Client{})
	refusedSignin := func(token string) {
		t.Helper()
		f := form(t, anon.get("/console/signin"), "/console/signin")
		f.Set("token", token)
		status, page := anon.post("/console/signin", f, anon.sameOrigin())
		require.Equal(t, http.StatusUnauthorized, status, page)
	}
	refusedSignin(agentToken)
	refusedSignin(expiredToken)
	refusedSignin("no-such-token")
	status, _ := anon.post("/console/signin", url.Values{"csrf": {"forged"}, "token": {anaToken}}, anon.sameOrigin())
	require.Equal(t, http.StatusForbidden, status)

	ana := newVisitor(t, base, &http.Client{})
	ana.signIn(anaToken)
	longUA := strings.Repeat("Mozilla/5.0 ", 40)
	secret := "the form's secret words"
	status, page := ana.post("/console/signout", url.Values{"csrf": {"forged"}, "note": {secret}},
		map[string]string{"Sec-Fetch-Site": "same-origin", "User-Agent": longUA})
	require.Equal(t, http.StatusForbidden, status, page)
	// A client that is no browser may send the cookie from another site: it has a
	// session, so its refusal is the tenant's.
	status, _ = ana.post("/console/signout", form(t, ana.get("/console/"), "/console/signout"), map[string]string{"Origin": "https://evil.example"})
	require.Equal(t, http.StatusForbidden, status)
	assert.True(t, ana.signedIn(), "nothing was done")

	evs := consoleEvents(t, e, "acme")
	require.Equal(t, []string{"signin_refused", "signin_refused", "signin", "form_refused", "form_refused"}, eventNames(evs))
	assert.Equal(t, "research-agent", evs[0].Person)
	assert.Equal(t, "research_agent", evs[0].ActorID)
	assert.Contains(t, evs[0].Reason, "agent")
	assert.Equal(t, "/console/signin", evs[0].Path)
	assert.Contains(t, evs[1].Reason, "expired")
	assert.Equal(t, "ana", evs[3].Person)
	assert.Equal(t, "/console/signout", evs[3].Path)
	assert.Contains(t, evs[3].Reason, "CSRF")
	assert.Len(t, evs[3].UserAgent, 200, "the browser, truncated")
	assert.True(t, strings.HasPrefix(longUA, evs[3].UserAgent))
	assert.Contains(t, evs[4].Reason, "Origin: https://evil.example")
	raw, err := json.Marshal(evs)
	require.NoError(t, err)
	for _, s := range []string{agentToken, expiredToken, "no-such-token", anaToken, secret, "forged"} {
		assert.NotContains(t, string(raw), s)
	}
	tenants, err := e.Tenants(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"acme"}, tenants, "an unknown token and a forged sign-in form name no tenant: no stream holds them")

	// They are counted instead.
	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	metrics, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(metrics), `handoff_auth_refused_total{why="console_unknown_token"} 1`)
	assert.Contains(t, string(metrics), `handoff_auth_refused_total{why="console_forged_form"} 1`)
}

var auditRowRE = regexp.MustCompile(`<tr class="audit-([a-z_]+)"`)

// TestAuditPage: the tenant's admins read its audit stream, newest first, a page at a
// time; another person of the tenant is refused, and another tenant's admin sees
// nothing of it.
func TestAuditPage(t *testing.T) {
	e := openEngine(t, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	base := serveAudit(t, e)
	maria := newVisitor(t, base, &http.Client{})
	maria.signIn(adminToken)
	ana := newVisitor(t, base, &http.Client{})
	ana.signIn(anaToken)
	const refused = 55
	for i := range refused {
		status, _ := ana.post("/console/signout", url.Values{"csrf": {fmt.Sprint("forged-", i)}}, ana.sameOrigin())
		require.Equal(t, http.StatusForbidden, status)
	}

	first := maria.get("/console/audit")
	rows := auditRowRE.FindAllStringSubmatch(first, -1)
	require.Len(t, rows, 50, "a page")
	assert.Equal(t, "form_refused", rows[0][1], "newest first")
	assert.Contains(t, first, "Form refused: nothing was done")
	assert.Contains(t, first, "ana (ana.souza)")
	assert.Contains(t, first, "its CSRF token is missing or wrong")
	older := regexp.MustCompile(`id="audit-older" href="([^"]+)"`).FindStringSubmatch(first)
	require.NotNil(t, older)
	second := maria.get(strings.ReplaceAll(older[1], "&amp;", "&"))
	rows = auditRowRE.FindAllStringSubmatch(second, -1)
	var kinds []string
	for _, r := range rows {
		kinds = append(kinds, r[1])
	}
	assert.Equal(t, []string{"form_refused", "form_refused", "form_refused", "form_refused", "form_refused", "signin", "signin"}, kinds, "the rest, down to the first record")
	assert.Contains(t, second, "Signed in, until")
	assert.Contains(t, second, "maria (maria.lopez)")
	assert.NotContains(t, second, `id="audit-older"`)
	assert.Contains(t, second, `id="audit-newest"`)

	req, err := http.NewRequest("GET", base+"/console/audit", nil)
	require.NoError(t, err)
	resp, err := ana.c.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "not an admin")
	assert.Contains(t, string(body), "administrators only")

	lee := newVisitor(t, base, &http.Client{})
	lee.signIn(globexToken)
	other := lee.get("/console/audit")
	rows = auditRowRE.FindAllStringSubmatch(other, -1)
	require.Len(t, rows, 1, "globex's own sign-in only")
	assert.NotContains(t, other, "ana")

	for _, bad := range []string{"?before=x", "?before=0", "?before=-1"} {
		resp, err := maria.c.Get(base + "/console/audit" + bad)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, bad)
	}
}
