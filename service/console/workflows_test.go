package console_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// campaign starts a campaign workflow id about subject in tenant, with the first step of
// a scenario whose request ids are made its own; atGate plays it on until it waits for
// the strategy's approval.
func (s *site) campaign(tenant, id, subject string, atGate bool) {
	s.t.Helper()
	f := s.flow("08-delivery-of-draft")
	stop := "research brief v1"
	if atGate {
		stop = "strategy v1 approved"
	}
	f.until(stop, func(name string, req map[string]any) {
		req["request_id"] = req["request_id"].(string) + "-" + id
		req["tenant_id"] = tenant
		if name == "start" {
			req["workflow_id"], req["subject_id"] = id, subject
		}
	})
}

// answer is a response of the console, read whole.
type answer struct {
	status int
	header http.Header
	body   string
	cookie map[string]*http.Cookie
}

// fetch GETs path with headers, without following a redirect.
func (v *visitor) fetch(path string, headers map[string]string) answer {
	v.t.Helper()
	req, err := http.NewRequest("GET", v.base+path, nil)
	require.NoError(v.t, err)
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	c := *v.c
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	require.NoError(v.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(v.t, err)
	a := answer{status: resp.StatusCode, header: resp.Header, body: string(b), cookie: map[string]*http.Cookie{}}
	for _, ck := range resp.Cookies() {
		a.cookie[ck.Name] = ck
	}
	return a
}

var rowRE = regexp.MustCompile(`<tr data-workflow="([^"]+)"`)

// rows are the workflow ids a page lists, in order.
func rows(page string) []string {
	var ids []string
	for _, m := range rowRE.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

var nextRE = regexp.MustCompile(`<a href="([^"]+)" id="next-page"`)

// nextPage is the path of the page's "Next page" link, or "".
func nextPage(page string) string {
	m := nextRE.FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// TestWorkflowsPage: the workflows page lists the person's tenant only, filters and
// pages, and answers a filter or a cursor it cannot read with a 400 that says why.
func TestWorkflowsPage(t *testing.T) {
	s := newServed(t, nil)
	for i := 1; i <= 5; i++ {
		s.campaign("acme", "wf-acme-"+strconv.Itoa(i), "launch-"+strconv.Itoa(i), false)
	}
	s.campaign("acme", "wf-acme-gate", "needle-launch", true)
	s.flow("05-s3-fails-safe").until("", withID("wf-acme-failed")) // its latest decision refused, with a reason
	s.campaign("globex", "wf-globex-1", "launch-1", false)
	s.campaign("globex", "wf-globex-gate", "needle-launch", true)
	v := newVisitor(t, s.url, &http.Client{})
	v.signIn(mariaToken)

	t.Run("every page, in the tenant only", func(t *testing.T) {
		var seen []string
		path := "/console/workflows?pack=campaign&limit=3"
		for pages := 0; path != ""; pages++ {
			require.Less(t, pages, 3, "three pages of three hold seven workflows")
			page := v.get(path)
			ids := rows(page)
			assert.NotEmpty(t, ids, path)
			seen = append(seen, ids...)
			path = nextPage(page)
			if path != "" {
				u, err := url.Parse(path)
				require.NoError(t, err)
				assert.Equal(t, "campaign", u.Query().Get("pack"), "the next page keeps the filters")
				assert.Equal(t, "3", u.Query().Get("limit"))
				assert.Contains(t, v.get(path), `id="first-page"`)
			}
		}
		assert.ElementsMatch(t, []string{"wf-acme-1", "wf-acme-2", "wf-acme-3", "wf-acme-4", "wf-acme-5", "wf-acme-gate", "wf-acme-failed"}, seen)
		assert.Equal(t, "wf-acme-failed", seen[0], "the latest activity first")
	})

	t.Run("filters", func(t *testing.T) {
		for query, want := range map[string][]string{
			"q=NEEDLE":   {"wf-acme-gate"},
			"q=acme-3":   {"wf-acme-3"},
			"waiting=me": {"wf-acme-gate"},
			"waiting=anyone&status=STRATEGY_APPROVAL": {"wf-acme-gate"},
			"q=globex":                                      nil,
			"status=COMPLETED":                              nil,
			"since=2000-01-01&until=2000-12-31":             nil,
			"agent=strategy_agent&waiting=anyone":           {"wf-acme-gate"},
			"agent=research_agent&status=RESEARCH&q=acme-1": {"wf-acme-1"},
			"agent=someone_else":                            nil,
		} {
			page := v.get("/console/workflows?" + query)
			assert.Equal(t, want, rows(page), query)
			if want == nil {
				assert.Contains(t, page, `id="workflows-empty"`, query)
			}
		}
		pg, err := s.e.FindWorkflows(context.Background(), "acme", engine.WorkflowQuery{Search: "wf-acme-failed"})
		require.NoError(t, err)
		require.Len(t, pg.Rows, 1)
		require.NotEmpty(t, pg.Rows[0].Reasons)
		code := pg.Rows[0].Reasons[0]
		page := v.get("/console/workflows?reason=" + code)
		assert.Equal(t, []string{"wf-acme-failed"}, rows(page))
		assert.Contains(t, page, `<span class="code" title="`+code+`">`, "the reason is shown, titled")
		today := time.Now().UTC().Format("2006-01-02")
		assert.Len(t, rows(v.get("/console/workflows?since="+today+"&until="+today)), 7, "today, both days included")
		assert.Contains(t, v.get("/console/workflows?agent=someone_else"), `<option value="someone_else" selected>`, "kept in the form")
		page = v.get("/console/workflows?q=needle")
		assert.Contains(t, page, "Waits for a person: Campaign approver", "where it stands, in words")
		assert.Contains(t, page, "needle-launch")
	})

	t.Run("a filter or a cursor it cannot read", func(t *testing.T) {
		for query, says := range map[string]string{
			"pack=nope":                         `no pack &#34;nope&#34;`,
			"status=NOWHERE":                    `status &#34;NOWHERE&#34;`,
			"waiting=someday":                   `Waiting &#34;someday&#34;`,
			"agent=" + url.QueryEscape("<b>"):   `is not an agent`,
			"reason=lower_case":                 `not a reason code`,
			"since=2026-13-01":                  `not a date`,
			"until=yesterday":                   `not a date`,
			"since=2026-02-01&until=2026-01-01": `after the until date`,
			"limit=0":                           `page size`,
			"limit=201":                         `page size`,
			"limit=1e3":                         `page size`,
			"q=" + strings.Repeat("x", 129):     `longer than`,
			"cursor=forged!":                    `cursor cannot be read`,
			"cursor=" + base64.RawURLEncoding.EncodeToString([]byte("not a time\x00wf")): `cursor cannot be read`,
		} {
			a := v.fetch("/console/workflows?"+query, nil)
			assert.Equal(t, http.StatusBadRequest, a.status, query)
			assert.Contains(t, a.body, `id="message"`, query)
			assert.Contains(t, a.body, says, query)
			assert.Contains(t, a.body, `id="filters"`, "the form is shown again: %s", query)
		}
		a := v.fetch("/console/?cursor=forged", nil)
		assert.Equal(t, http.StatusBadRequest, a.status)
		assert.Contains(t, a.body, "cursor cannot be read")
		assert.Contains(t, a.body, `id="first-page"`)
		assert.Equal(t, http.StatusBadRequest, v.fetch("/console/?limit=-1", nil).status)
	})

	t.Run("a cursor made up to name another tenant's workflow", func(t *testing.T) {
		forged := base64.RawURLEncoding.EncodeToString([]byte(time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano) + "\x00wf-globex-gate"))
		page := v.get("/console/workflows?cursor=" + forged)
		for _, id := range rows(page) {
			assert.True(t, strings.HasPrefix(id, "wf-acme-"), id)
		}
		assert.Len(t, rows(page), 7, "a position only: the rows after it, of the person's tenant")
	})

	t.Run("another tenant's person", func(t *testing.T) {
		g := newVisitor(t, s.url, &http.Client{})
		g.signIn(globexToken)
		assert.ElementsMatch(t, []string{"wf-globex-1", "wf-globex-gate"}, rows(g.get("/console/workflows")))
		assert.Equal(t, []string{"wf-globex-gate"}, rows(g.get("/console/")))
		assert.Equal(t, []string{"wf-acme-gate"}, rows(v.get("/console/")))
	})
}

// TestInboxPages: the inbox lists, a page at a time, the gates waiting for the person
// only, skipping those of other roles of the same tenant without a short page.
func TestInboxPages(t *testing.T) {
	s := newServed(t, nil)
	s.campaign("acme", "wf-1", "launch-1", true)
	s.packFlow("assessment", "eval-2-conflicting-evidence").until("reviewer keeps the flagged output", withID("wf-ana"))
	s.campaign("acme", "wf-2", "launch-2", true)
	s.campaign("acme", "wf-3", "launch-3", false)
	v := newVisitor(t, s.url, &http.Client{})
	v.signIn(mariaToken)
	assert.Equal(t, []string{"wf-2", "wf-1"}, rows(v.get("/console/")))
	first := v.get("/console/?limit=1")
	assert.Equal(t, []string{"wf-2"}, rows(first))
	next := nextPage(first)
	require.NotEmpty(t, next)
	second := v.get(next)
	assert.Equal(t, []string{"wf-1"}, rows(second), "the reviewer's gate is passed over")
	assert.Empty(t, nextPage(second))
	assert.Contains(t, second, `<a href="/console/?limit=1" id="first-page">First page</a>`)

	a := newVisitor(t, s.url, &http.Client{})
	a.signIn(anaToken)
	assert.Equal(t, []string{"wf-ana"}, rows(a.get("/console/")))
	assert.Equal(t, 1, a.summary().Waiting)
	assert.Equal(t, 2, v.summary().Waiting)
}

// summary is the inbox's JSON as live.js reads it.
type summary struct {
	Waiting    int    `json:"waiting"`
	More       bool   `json:"more"`
	Unread     int    `json:"unread"`
	UnreadText string `json:"unread_text"`
	Version    string `json:"version"`
}

func (v *visitor) summary() summary {
	v.t.Helper()
	a := v.fetch("/console/inbox/summary", nil)
	require.Equal(v.t, http.StatusOK, a.status, a.body)
	assert.Equal(v.t, "application/json", a.header.Get("Content-Type"))
	assert.Equal(v.t, "no-store", a.header.Get("Cache-Control"))
	var s summary
	require.NoError(v.t, json.Unmarshal([]byte(a.body), &s))
	return s
}

// TestInboxSummary: the count of gates waiting for the person and of those new since the
// person last saw the inbox, kept in a cookie the inbox sets and read strictly.
func TestInboxSummary(t *testing.T) {
	s := newServed(t, nil)
	s.campaign("acme", "wf-1", "launch-1", true)
	s.campaign("globex", "wf-globex", "launch-1", true)
	v := newVisitor(t, s.url, &http.Client{})

	a := v.fetch("/console/inbox/summary", nil)
	assert.Equal(t, http.StatusSeeOther, a.status, "no session, no summary")
	assert.NotContains(t, a.body, "waiting")

	v.signIn(mariaToken) // lands on the inbox, which marks it seen
	first := v.summary()
	assert.Equal(t, summary{Waiting: 1, Version: first.Version}, first)
	assert.NotEmpty(t, first.Version)

	s.campaign("acme", "wf-2", "launch-2", true)
	second := v.summary()
	assert.Equal(t, 2, second.Waiting)
	assert.Equal(t, 1, second.Unread, "the new gate")
	assert.Equal(t, "1", second.UnreadText)
	assert.NotEqual(t, first.Version, second.Version, "the list changed")
	assert.Equal(t, second, v.summary(), "nothing changed")
	page := v.get("/console/workflows")
	assert.Contains(t, page, `id="unread" aria-label="new since you last looked">1</span>`, "the navigation shows it")
	assert.Contains(t, page, `<title>(1) Workflows`)

	// live.js refreshing the list is not the person looking at the inbox.
	live := v.fetch("/console/", map[string]string{"X-Console-Live": "1"})
	assert.Equal(t, http.StatusOK, live.status)
	assert.Nil(t, live.cookie["handoff_inbox_seen"])
	assert.Contains(t, live.body, `data-version="`+second.Version+`"`)
	assert.Contains(t, live.body, `<tr data-workflow="wf-2" class="new">`, "the new gate is marked")
	assert.Contains(t, live.body, `<tr data-workflow="wf-1">`)
	assert.Equal(t, 1, v.summary().Unread)

	shown := v.fetch("/console/", nil)
	ck := shown.cookie["handoff_inbox_seen"]
	require.NotNil(t, ck)
	assert.True(t, ck.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, ck.SameSite)
	assert.Equal(t, "/console/", ck.Path)
	assert.Equal(t, 0, v.summary().Unread, "seen")
	assert.Equal(t, []string{"wf-1", "wf-2"}, sortedRows(shown.body))

	// A cookie that is not a time the console wrote counts nothing as seen.
	u, err := url.Parse(s.url + "/console/")
	require.NoError(t, err)
	for _, bad := range []string{"0", "-5", "12abc", "1e18", "99999999999999999999", strconv.FormatInt(time.Now().Add(time.Hour).UnixNano(), 10)} {
		v.c.Jar.SetCookies(u, []*http.Cookie{{Name: "handoff_inbox_seen", Value: bad, Path: "/console/"}})
		assert.Equal(t, 2, v.summary().Unread, bad)
	}

	g := newVisitor(t, s.url, &http.Client{})
	g.signIn(globexToken)
	assert.Equal(t, 1, g.summary().Waiting, "another tenant's gates are not counted")
}

func sortedRows(page string) []string {
	ids := rows(page)
	slices.Sort(ids)
	return ids
}

// TestConsoleHeaders: the pages may load the console's own script, and nothing inline.
func TestConsoleHeaders(t *testing.T) {
	s := newServed(t, nil)
	v := newVisitor(t, s.url, &http.Client{})
	v.signIn(mariaToken)
	for _, path := range []string{"/console/", "/console/workflows", "/console/inbox/summary", "/console/signin"} {
		csp := v.fetch(path, nil).header.Get("Content-Security-Policy")
		assert.NotContains(t, csp, "unsafe-inline", path)
		assert.NotContains(t, csp, "unsafe-eval", path)
		assert.Contains(t, csp, "script-src 'self'", path)
		assert.Contains(t, csp, "connect-src 'self'", path)
		assert.Contains(t, csp, "default-src 'none'", path)
	}
	js := v.fetch("/console/static/live.js", nil)
	assert.Equal(t, http.StatusOK, js.status)
	assert.Contains(t, js.header.Get("Content-Type"), "javascript")
	page := v.get("/console/")
	assert.Contains(t, page, `<script src="/console/static/live.js" defer></script>`)
	assert.Equal(t, 1, strings.Count(page, "<script"), "no other script, none inline")
}
