package console_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/browsertest"
	"github.com/handoff-dev/handoff/service/console"
)

// livePoll is how often the pages of these tests ask for new work: short, so that a
// test waits little for what it waits for (it never asserts how long).
const livePoll = 200 * time.Millisecond

// newLiveSite is a console served alone, polling every livePoll, and a browser tab in
// which every Content-Security-Policy violation is counted on window.cspViolations.
func newLiveSite(t *testing.T) *site {
	t.Helper()
	tab := browsertest.New(t)
	e, err := engine.Open(context.Background(), engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	people := map[string]console.Person{
		mariaToken:  {Name: "maria", Tenant: "acme", ID: "maria.lopez", Roles: []string{"campaign_approver"}},
		globexToken: {Name: "globex-lead", Tenant: "globex", ID: "lee", Roles: []string{"campaign_approver"}},
	}
	c := console.New(e, console.Options{PollInterval: livePoll, Authenticate: func(token string) (console.Person, bool) {
		p, ok := people[token]
		return p, ok
	}})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	_, err = chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.cspViolations = 0; document.addEventListener('securitypolicyviolation', () => { window.cspViolations++ });`})
	require.NoError(t, err)
	return &site{t: t, e: e, url: srv.URL, tab: tab, dialogs: &atomic.Int32{}}
}

// listed are the workflow ids the page's table lists, in order.
func (s *site) listed(table string) []string {
	s.t.Helper()
	v, ok := s.eval(`[...document.querySelectorAll('` + table + ` tr[data-workflow]')].map(r => r.dataset.workflow)`).([]any)
	require.True(s.t, ok)
	ids := make([]string, len(v))
	for i, id := range v {
		ids[i] = id.(string)
	}
	return ids
}

// load clicks a link or a form's button and waits for the page it loads: unlike
// follow, it cannot take the page it leaves, alike, for the next.
func (s *site) load(sel string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.tab, 30*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel)))
	require.NoError(s.t, err, sel)
	require.NotNil(s.t, resp, sel)
	s.do(chromedp.WaitVisible(chromedp.CSS("main h1")))
}

// query is the page's query string, read.
func (s *site) query() url.Values {
	s.t.Helper()
	q, err := url.ParseQuery(strings.TrimPrefix(s.eval(`location.search`).(string), "?"))
	require.NoError(s.t, err)
	return q
}

// TestWorkflowsInBrowser: a person finds a workflow of their tenant by its subject, and
// goes through three pages of those a filter selects, the filters kept from page to page.
func TestWorkflowsInBrowser(t *testing.T) {
	s := newLiveSite(t)
	var all []string
	for i := 1; i <= 7; i++ {
		id := "wf-launch-" + strconv.Itoa(i)
		s.campaign("acme", id, "launch-"+strconv.Itoa(i), false)
		all = append(all, id)
	}
	s.campaign("acme", "wf-needle", "the-needle-launch", true)
	s.campaign("globex", "wf-globex-needle", "the-needle-launch", false)
	s.signIn(mariaToken)

	s.run(t, "by search", func(t *testing.T) {
		s.load("#nav-workflows")
		s.do(chromedp.SendKeys(chromedp.CSS("#q"), "NEEDLE"))
		s.load("#find")
		assert.Equal(t, []string{"wf-needle"}, s.listed("#workflows"), "the person's tenant only")
		assert.Contains(t, s.text(`#workflows tr[data-workflow="wf-needle"]`), "Waits for a person: Campaign approver")
		assert.Equal(t, "NEEDLE", s.eval(`document.querySelector('#q').value`), "the form shows the search again")
		s.load(`#workflows a[href$="/wf-needle"]`)
		assert.Equal(t, "wf-needle", s.text("main h1"))
	})

	s.run(t, "by filter, three pages", func(t *testing.T) {
		s.open("/console/workflows?limit=3")
		s.do(chromedp.SetValue(chromedp.CSS("#pack"), "campaign"), chromedp.SetValue(chromedp.CSS("#status"), "RESEARCH"))
		s.load("#find")
		var seen []string
		first := s.listed("#workflows")
		for page := 1; ; page++ {
			ids := s.listed("#workflows")
			seen = append(seen, ids...)
			q := s.query()
			assert.Equal(t, "campaign", q.Get("pack"), "page %d", page)
			assert.Equal(t, "RESEARCH", q.Get("status"), "page %d", page)
			assert.Equal(t, "3", q.Get("limit"), "page %d", page)
			if page == 3 {
				assert.Len(t, ids, 1, "the third page holds what is left")
				assert.Equal(t, float64(0), s.eval(`document.querySelectorAll('#next-page').length`), "no page after the last")
				break
			}
			assert.Len(t, ids, 3, "page %d", page)
			s.load("#next-page")
		}
		assert.ElementsMatch(t, all, seen, "every workflow in RESEARCH once, the one at its gate not")
		s.load("#first-page")
		assert.Equal(t, first, s.listed("#workflows"))
		s.screenshot("console-workflows")
	})
	assert.Equal(t, float64(0), s.eval(`window.cspViolations`))
	s.inert()

	// A phone's width: the filters and the rows fit it, without a page-wide scroll.
	s.do(chromedp.EmulateViewport(390, 844))
	for _, path := range []string{"/console/workflows", "/console/workflows?since=someday", "/console/"} {
		s.open(path)
		assert.Equal(t, true, s.eval(`document.documentElement.scrollWidth <= window.innerWidth + 1`), path)
	}
}

// TestInboxLiveInBrowser: a gate that opens while the inbox is shown appears on it, and
// the unread count goes up in the navigation and the title, with no reload; shown again,
// the inbox marks it seen. On another page the count goes up as well.
func TestInboxLiveInBrowser(t *testing.T) {
	s := newLiveSite(t)
	s.campaign("acme", "wf-waiting", "launch-1", true)
	s.signIn(mariaToken)
	require.Equal(t, []string{"wf-waiting"}, s.listed("#inbox"))
	assert.Equal(t, true, s.eval(`document.querySelector('#unread').hidden`), "nothing new: the inbox was just seen")
	s.do(chromedp.Poll[chromedp.Void](`document.documentElement.dataset.live === 'on'`))
	s.eval(`window.stillThisPage = 'yes'; true`)

	s.campaign("acme", "wf-new", "launch-2", true)
	s.campaign("globex", "wf-globex", "launch-2", true) // another tenant's: never counted
	s.do(chromedp.WaitVisible(chromedp.CSS(`#inbox tr[data-workflow="wf-new"]`)))
	assert.Equal(t, "yes", s.eval(`window.stillThisPage`), "the page was not reloaded")
	assert.Equal(t, []string{"wf-new", "wf-waiting"}, s.listed("#inbox"))
	assert.Equal(t, []any{"wf-new"}, s.eval(`[...document.querySelectorAll('#inbox tr.new')].map(r => r.dataset.workflow)`), "the new gate is marked")
	s.do(chromedp.Poll[chromedp.Void](`document.querySelector('#unread').textContent === '1'`))
	assert.Equal(t, false, s.eval(`document.querySelector('#unread').hidden`))
	assert.True(t, strings.HasPrefix(s.eval(`document.title`).(string), "(1) Inbox"), s.eval(`document.title`))
	s.screenshot("console-inbox-live")

	resp, err := chromedp.RunResponse(s.tab, chromedp.Navigate(s.url+"/console/"))
	require.NoError(t, err)
	csp, _ := resp.Headers["Content-Security-Policy"].(string)
	assert.Contains(t, csp, "script-src 'self'", "the page the browser got")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.NotContains(t, csp, "unsafe-eval")
	assert.Equal(t, true, s.eval(`document.querySelector('#unread').hidden`), "shown again, it is seen")
	assert.True(t, strings.HasPrefix(s.eval(`document.title`).(string), "Inbox"))

	s.load("#nav-workflows")
	s.do(chromedp.Poll[chromedp.Void](`document.documentElement.dataset.live === 'on'`))
	s.eval(`window.stillThisPage = 'workflows'; true`)
	s.campaign("acme", "wf-newer", "launch-3", true)
	s.do(chromedp.Poll[chromedp.Void](`document.querySelector('#unread').textContent === '1'`))
	assert.Equal(t, "workflows", s.eval(`window.stillThisPage`))
	assert.True(t, strings.HasPrefix(s.eval(`document.title`).(string), "(1) Workflows"))
	assert.Equal(t, float64(0), s.eval(`window.cspViolations`), "the script runs under the console's policy")
	s.inert()
}

// TestConsoleWithoutJavaScript: with scripts off, the inbox and the workflows page work
// as plain pages: lists, the Refresh link, the filters' form and the pages' links.
func TestConsoleWithoutJavaScript(t *testing.T) {
	s := newLiveSite(t)
	for i := 1; i <= 3; i++ {
		s.campaign("acme", "wf-"+strconv.Itoa(i), "launch-"+strconv.Itoa(i), true)
	}
	_, err := chromedp.Call(s.tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	require.NoError(t, err)
	s.signIn(mariaToken)
	assert.Equal(t, []string{"wf-3", "wf-2", "wf-1"}, s.listed("#inbox"))
	assert.NotEqual(t, "on", s.eval(`document.documentElement.dataset.live || ''`), "no script ran")

	s.campaign("acme", "wf-4", "launch-4", true)
	s.load("#refresh")
	assert.Equal(t, []string{"wf-4", "wf-3", "wf-2", "wf-1"}, s.listed("#inbox"), "Refresh shows the new gate")

	s.open("/console/?limit=3")
	assert.Equal(t, []string{"wf-4", "wf-3", "wf-2"}, s.listed("#inbox"))
	s.load("#next-page")
	assert.Equal(t, []string{"wf-1"}, s.listed("#inbox"))

	s.load("#nav-workflows")
	s.do(chromedp.SendKeys(chromedp.CSS("#q"), "launch-2"))
	s.load("#find")
	assert.Equal(t, []string{"wf-2"}, s.listed("#workflows"))
	s.open("/console/workflows?limit=2&waiting=me")
	assert.Equal(t, []string{"wf-4", "wf-3"}, s.listed("#workflows"))
	s.load("#next-page")
	assert.Equal(t, []string{"wf-2", "wf-1"}, s.listed("#workflows"))
	assert.Equal(t, "me", s.query().Get("waiting"))
	s.open("/console/workflows?since=someday")
	assert.Contains(t, s.text("#message"), "not a date")
}
