package console_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/browsertest"
	"github.com/handoff-dev/handoff/service"
)

// The people of the tests, one token each.
const (
	mariaToken      = "token-maria"       // acme, campaign_approver
	copywriterToken = "token-copywriter"  // acme, a person who carries the copywriter agent's id
	globexToken     = "token-globex-lead" // globex, campaign_approver
	agentToken      = "token-research"    // acme, an agent: no console for it
	anaToken        = "token-ana"         // acme, assessment_reviewer
	chenToken       = "token-chen"        // baimengke, the video client
	samToken        = "token-sam"         // northwind, support_specialist
)

// xss is agent-written content that would run in a page that did not escape it.
const xss = `<script>alert('xss')</script><img src=x onerror=alert('img')><a href=javascript:alert('link')>open</a>`

// site is a served engine and a browser tab.
type site struct {
	t       *testing.T
	e       *engine.Engine
	url     string
	tab     context.Context
	dialogs *atomic.Int32
}

func newSite(t *testing.T) *site {
	t.Helper()
	tab := browsertest.New(t)
	s := newServed(t, nil)
	s.tab = tab
	// Any dialog is a script that ran: count it, and close it so the page goes on.
	require.NoError(t, chromedp.Listen(tab, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			s.dialogs.Add(1)
			go func() {
				_, _ = chromedp.Call(tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			}()
		}
	}))
	return s
}

// newServed is a served engine without a browser; logger, when set, receives the
// service's log.
func newServed(t *testing.T, logger *slog.Logger) *site {
	t.Helper()
	e, err := engine.Open(context.Background(), engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	doc := map[string]any{"principals": []map[string]any{
		{"name": "maria", "token_sha256": service.HashToken(mariaToken), "tenant_id": "acme", "type": "human", "id": "maria.lopez", "roles": []string{"campaign_approver"}},
		{"name": "copywriter-person", "token_sha256": service.HashToken(copywriterToken), "tenant_id": "acme", "type": "human", "id": "copywriter", "roles": []string{"campaign_approver"}},
		{"name": "globex-lead", "token_sha256": service.HashToken(globexToken), "tenant_id": "globex", "type": "human", "id": "lee", "roles": []string{"campaign_approver"}},
		{"name": "research-agent", "token_sha256": service.HashToken(agentToken), "tenant_id": "acme", "type": "agent", "id": "research_agent"},
		{"name": "ana", "token_sha256": service.HashToken(anaToken), "tenant_id": "acme", "type": "human", "id": "ana.souza", "roles": []string{"assessment_reviewer"}},
		{"name": "chen", "token_sha256": service.HashToken(chenToken), "tenant_id": "baimengke", "type": "human", "id": "chen.mei", "roles": []string{"client"}},
		{"name": "sam", "token_sha256": service.HashToken(samToken), "tenant_id": "northwind", "type": "human", "id": "sam.okafor", "roles": []string{"support_specialist"}},
	}}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	ps, err := service.ParsePrincipals(b)
	require.NoError(t, err)
	srv := httptest.NewServer(service.New(e, service.Options{Principals: ps, Logger: logger}))
	t.Cleanup(srv.Close)
	return &site{t: t, e: e, url: srv.URL, dialogs: &atomic.Int32{}}
}

// flow plays a campaign scenario's steps on the engine, as the agents would.
type flow struct {
	s      *site
	steps  []scenario.Step
	player *scenario.Player
	next   int
}

func (s *site) flow(name string) *flow { return s.packFlow("campaign", name) }

// packFlow is a scenario of another pack.
func (s *site) packFlow(pack, name string) *flow {
	sc, err := scenario.Load(filepath.Join("..", "..", "policies_test", "handoff", pack, "scenarios", name+".scenario"))
	require.NoError(s.t, err)
	return &flow{s: s, steps: sc.Steps, player: scenario.NewPlayer(s.e)}
}

// until plays the steps before the one named stop; edit, when set, changes a step's
// request before it is sent.
func (f *flow) until(stop string, edit func(name string, req map[string]any)) {
	f.s.t.Helper()
	ctx := context.Background()
	for ; f.next < len(f.steps) && f.steps[f.next].Name != stop; f.next++ {
		st := f.steps[f.next]
		raw := st.Request
		if edit != nil {
			var req map[string]any
			require.NoError(f.s.t, json.Unmarshal(raw, &req))
			edit(st.Name, req)
			raw, _ = json.Marshal(req)
		}
		body, err := f.player.Render(ctx, raw)
		require.NoError(f.s.t, err, st.Name)
		// A step of a scenario that says when it happens is decided at that time.
		submit := f.s.e.Submit
		if at := st.At(); !at.IsZero() {
			submit = func(ctx context.Context, body []byte) (*engine.Decision, error) { return f.s.e.SubmitAt(ctx, body, at) }
		}
		d, err := submit(ctx, body)
		require.NoError(f.s.t, err, st.Name)
		require.Equal(f.s.t, st.Expect.Outcome, d.Outcome, "step %q: %v", st.Name, d.Reasons)
		f.player.Observe(body, d)
	}
	if stop != "" {
		require.Less(f.s.t, f.next, len(f.steps), "no step named %q", stop)
	}
}

// skip passes over the step the console plays instead.
func (f *flow) skip(name string) {
	require.Equal(f.s.t, name, f.steps[f.next].Name)
	f.next++
}

// do runs browser actions, failing the test on an error.
func (s *site) do(actions ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.tab, 30*time.Second)
	defer cancel()
	require.NoError(s.t, chromedp.Do(ctx, actions...))
}

func (s *site) text(sel string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.tab, 30*time.Second)
	defer cancel()
	txt, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(s.t, err, sel)
	return txt
}

func (s *site) eval(js string) any {
	s.t.Helper()
	v, err := chromedp.Run(s.tab, chromedp.Evaluate[any](js))
	require.NoError(s.t, err, js)
	return v
}

func (s *site) signIn(token string) {
	s.t.Helper()
	s.do(chromedp.Navigate(s.url+"/console/signin"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), token),
		chromedp.Click(chromedp.CSS("#signin")),
		chromedp.WaitVisible(chromedp.CSS("#signout, .error")))
}

func (s *site) open(path string) {
	s.t.Helper()
	s.do(chromedp.Navigate(s.url+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
}

// screenshot writes the page to HANDOFF_SCREENSHOTS (the README's images) or a
// temporary directory.
func (s *site) screenshot(name string) {
	s.t.Helper()
	dir := os.Getenv("HANDOFF_SCREENSHOTS")
	if dir == "" {
		dir = s.t.TempDir()
	}
	png, err := chromedp.Run(s.tab, chromedp.FullScreenshot(100)) // quality 100 makes a PNG
	require.NoError(s.t, err)
	require.NoError(s.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// checked sets the checkboxes of a form's artifacts (or revisions) to exactly types.
func (s *site) checked(name string, types ...string) {
	s.t.Helper()
	want, _ := json.Marshal(types)
	s.eval(`(() => { const want = ` + string(want) + `;
		for (const b of document.querySelectorAll('#approval-form input[name="` + name + `"]')) {
			const type = b.dataset.type || b.value; b.checked = want.includes(type); }
		return true })()`)
}

// inert checks that the page holds no element an agent's text could have made run.
func (s *site) inert() {
	s.t.Helper()
	assert.Equal(s.t, float64(0), s.eval(`document.querySelectorAll('main script, [onerror], [onload], a[href^="javascript:" i]').length`), "an element made of agent text")
	assert.Equal(s.t, int32(0), s.dialogs.Load(), "a dialog opened: agent text ran as script")
}

// TestConsoleInBrowser plays a campaign through the console in Chromium: the approver
// approves the strategy from the inbox, then asks for a targeted revision of the copy
// only at the final approval; the pages show the agents' text inert, and the
// screenshots of the README are taken on the way.
func TestConsoleInBrowser(t *testing.T) {
	s := newSite(t)
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", nil)

	s.signIn(mariaToken)
	s.screenshot("console-inbox")
	assert.Contains(t, s.text("#inbox"), "Strategy approval")
	assert.Contains(t, s.text("#inbox"), "STRATEGY_BRIEF delivered for approval", "why it waits, in words")
	s.do(chromedp.Click(chromedp.CSS(`#inbox a`)), chromedp.WaitVisible(chromedp.CSS("#approval-form")))
	s.checked("artifact", "STRATEGY_BRIEF")
	s.do(chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#decision")))
	assert.Equal(t, "PRODUCTION", s.text("#status-after"))
	f.skip("strategy v1 approved")

	// The agents go on; the copy's notes carry markup an agent wrote.
	f.until("person returns the copy", func(name string, req map[string]any) {
		if name == "copy v1" {
			req["output"].(map[string]any)["content"].(map[string]any)["notes"] = xss
		}
	})
	s.open("/console/")
	assert.Contains(t, s.text("#inbox"), "Final approval")
	s.do(chromedp.Click(chromedp.CSS(`#inbox a`)), chromedp.WaitVisible(chromedp.CSS("#approval-form")))
	assert.Contains(t, s.text("#gate"), "goes back to copywriter", "the producer of each artifact is shown")
	s.screenshot("console-workflow")
	s.inert()
	s.checked("revise", "COPY_PACKAGE")
	s.do(chromedp.Click(chromedp.CSS("#request-revision")), chromedp.WaitVisible(chromedp.CSS("#decision")))
	assert.Equal(t, "revise", s.eval(`document.querySelector('#decision').dataset.outcome`))
	assert.Equal(t, "TARGETED_REVISION", s.text("#status-after"))
	assert.Contains(t, s.text("#decision"), "COPY_PACKAGE to copywriter")
	assert.NotContains(t, s.text("#decision"), "VISUAL_PACKAGE", "the copy only goes back")
	f.skip("person returns the copy")

	f.until("QA accepts copy v2", nil)
	s.open("/console/workflows/" + f.workflow() + "/diff?type=COPY_PACKAGE&from=1&to=2")
	diff := s.text("#diff")
	assert.Contains(t, diff, xss, "the markup is shown as text")
	s.inert()
	s.screenshot("console-diff")

	// Each decision explains itself.
	s.open("/console/workflows/" + f.workflow())
	s.do(chromedp.Click(chromedp.CSS(`#timeline li:last-child a`)), chromedp.WaitVisible(chromedp.CSS("main h1")))
	assert.Contains(t, s.text("main"), "Entry point data.handoff.campaign.decision")
	s.inert()

	// Sign-out ends the session: the inbox asks for a token again.
	s.open("/console/")
	s.do(chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#token")))
	s.open("/console/")
	assert.Equal(t, "Sign in", s.text("main h1"))
}

// workflow is the id of the flow's workflow, in tenant acme.
func (f *flow) workflow() string { return f.workflowOf("acme") }

func (f *flow) workflowOf(tenant string) string {
	list, err := f.s.e.ListWorkflows(context.Background(), tenant, engine.WorkflowFilter{})
	require.NoError(f.s.t, err)
	require.Len(f.s.t, list, 1)
	return list[0].WorkflowID
}

// TestConsoleRefusals: what the console must refuse, each shown in words and none
// recorded.
func TestConsoleRefusals(t *testing.T) {
	s := newSite(t)
	f := s.flow("08-delivery-of-draft")
	f.until("person returns the copy", nil)
	wf := f.workflow()
	records := func() int {
		n := 0
		require.NoError(t, s.e.History(context.Background(), "acme", wf, func(engine.Entry) error { n++; return nil }))
		return n
	}

	s.run(t, "an agent's token signs nobody in", func(t *testing.T) {
		s.signIn(agentToken)
		assert.Contains(t, s.text(".error"), "an agent's")
	})

	s.run(t, "a person with the copywriter's id cannot approve the copy", func(t *testing.T) {
		s.signIn(copywriterToken)
		s.open("/console/workflows/" + wf)
		s.do(chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#decision")))
		assert.Equal(t, "block", s.eval(`document.querySelector('#decision').dataset.outcome`))
		assert.Contains(t, s.text("#decision"), "Refused")
		assert.Contains(t, s.text("#decision"), "copywriter")
	})

	s.run(t, "tenant B sees nothing of tenant A", func(t *testing.T) {
		s.signIn(globexToken)
		assert.NotEmpty(t, s.text("#inbox-empty"))
		s.open("/console/workflows/" + wf)
		assert.Equal(t, "Not found", s.text("main h1"))
		s.open("/console/workflows/" + wf + "/diff?type=COPY_PACKAGE&from=1&to=1")
		assert.Equal(t, "Not found", s.text("main h1"))
		id := lastDecision(t, s.e, wf)
		s.open("/console/decisions/" + id)
		assert.Equal(t, "Not found", s.text("main h1"))
	})

	s.signIn(mariaToken)
	s.run(t, "a form without its CSRF token", func(t *testing.T) {
		before := records()
		s.open("/console/workflows/" + wf)
		s.eval(`document.querySelector('#approval-form input[name="csrf"]').remove(); true`)
		s.do(chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#message, #decision")))
		assert.Contains(t, s.text("main"), "CSRF", "the form is refused")
		assert.Equal(t, before, records(), "nothing recorded")
	})

	s.run(t, "a form of another site, with the person's token", func(t *testing.T) {
		before := records()
		s.open("/console/workflows/" + wf)
		// The approval form as the console made it, token and all, copied to a page of
		// another origin that posts it back: the same host on another port, the same
		// site, so the browser sends the session cookie (SameSite=Strict) along.
		copied := s.eval(`(() => { const f = document.querySelector('#approval-form').cloneNode(true);
			f.action = f.action; return f.outerHTML })()`).(string)
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<!doctype html><title>Another site</title><main><h1>Another site</h1>` + copied + `</main>`))
		}))
		defer other.Close()
		s.do(chromedp.Navigate(other.URL), chromedp.WaitVisible(chromedp.CSS("#approve")),
			chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#message, #decision")))
		assert.Contains(t, s.text("main"), "another site")
		assert.Equal(t, "Refused", s.text("main h1"))
		assert.Equal(t, before, records(), "nothing recorded")
	})

	s.run(t, "an approval of a version whose hash changed", func(t *testing.T) {
		s.open("/console/workflows/" + wf)
		s.eval(`(() => { for (const b of document.querySelectorAll('#approval-form input[name="artifact"]')) {
			const ref = JSON.parse(b.value); if (ref.type === 'COPY_PACKAGE') { ref.hash = 'sha256:' + '0'.repeat(64); b.value = JSON.stringify(ref); b.checked = true } }
			return true })()`)
		s.do(chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#decision")))
		assert.Equal(t, "block", s.eval(`document.querySelector('#decision').dataset.outcome`))
		assert.Contains(t, s.text("#decision"), "COPY_PACKAGE")
	})

	s.run(t, "a double click records one decision", func(t *testing.T) {
		before := records()
		s.open("/console/workflows/" + wf)
		s.checked("revise", "COPY_PACKAGE")
		// Two submissions of the same form, as a double click sends them.
		s.eval(`(() => { const f = document.querySelector('#approval-form'); const b = document.querySelector('#request-revision');
			f.requestSubmit(b); f.requestSubmit(b); return true })()`)
		s.do(chromedp.WaitVisible(chromedp.CSS("#decision")))
		assert.Equal(t, "revise", s.eval(`document.querySelector('#decision').dataset.outcome`))
		assert.Equal(t, before+1, records(), "one decision recorded for the form sent twice")
	})
	s.inert()
}

// run runs fn as a subtest whose failures the site's helpers report.
func (s *site) run(t *testing.T, name string, fn func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		parent := s.t
		s.t = t
		defer func() { s.t = parent }()
		fn(t)
	})
}

func lastDecision(t *testing.T, e *engine.Engine, wf string) string {
	var id string
	require.NoError(t, e.History(context.Background(), "acme", wf, func(en engine.Entry) error {
		id = en.Decision.DecisionID
		return nil
	}))
	require.NotEmpty(t, id)
	return id
}

// TestConsoleOtherPacks acts at the gates of two other packs: an assessment reviewer
// resolves a conflict, and the video client confirms the work.
func TestConsoleOtherPacks(t *testing.T) {
	s := newSite(t)
	s.run(t, "assessment conflict review", func(t *testing.T) {
		f := s.packFlow("assessment", "eval-2-conflicting-evidence")
		f.until("reviewer keeps the flagged output", nil)
		s.signIn(anaToken)
		assert.Contains(t, s.text("#inbox"), "Conflict review")
		s.do(chromedp.Click(chromedp.CSS(`#inbox a`)), chromedp.WaitVisible(chromedp.CSS("form.conflict")))
		s.eval(`(() => { for (const r of document.querySelectorAll('form.conflict input[name="chosen"]')) {
			if (r.value.includes('EVIDENCE_ASSESSMENT')) r.checked = true } return true })()`)
		s.do(chromedp.SendKeys(chromedp.CSS(`form.conflict textarea[name="rationale"]`), "Both documents are real: the exemptions go to the gap analysis"),
			chromedp.Click(chromedp.CSS(`form.conflict button`)), chromedp.WaitVisible(chromedp.CSS("#decision")))
		assert.Equal(t, "allow", s.eval(`document.querySelector('#decision').dataset.outcome`), s.text("#decision"))
		assert.Equal(t, "GAPS", s.text("#status-after"))
	})
	s.run(t, "video client confirmation", func(t *testing.T) {
		f := s.packFlow("video", "56-waits-for-the-client")
		f.until("", nil)
		s.signIn(chenToken)
		assert.Contains(t, s.text("#inbox"), "Client confirmation")
		s.do(chromedp.Click(chromedp.CSS(`#inbox a`)), chromedp.WaitVisible(chromedp.CSS("#approval-form")),
			chromedp.Click(chromedp.CSS("#approve")), chromedp.WaitVisible(chromedp.CSS("#decision")))
		assert.Equal(t, "COMPLETED", s.text("#status-after"), s.text("#decision"))
		s.open("/console/")
		assert.NotEmpty(t, s.text("#inbox-empty"), "nothing waits for the client any more")
		_ = f.workflowOf("baimengke")
	})

	// A phone's width: the pages fit it, without a page-wide horizontal scroll.
	s.do(chromedp.EmulateViewport(390, 844))
	s.signIn(mariaToken)
	for _, path := range []string{"/console/", "/console/workflows/wf-x"} {
		s.open(path)
		assert.Equal(t, true, s.eval(`document.documentElement.scrollWidth <= window.innerWidth + 1`), path)
	}
}

// slashID is a workflow id core.#ID allows, with every character of it that a URL path
// gives a meaning to: '/', a '..' segment, ':', '@' and '.'.
const slashID = "acme.eu/q2/../launch:brightbrew@v1.0"

// withID starts a scenario's workflow under id.
func withID(id string) func(name string, req map[string]any) {
	return func(name string, req map[string]any) {
		if name == "start" {
			req["workflow_id"] = id
		}
	}
}

// follow clicks a link or a form's button and waits for what the next page shows.
func (s *site) follow(sel, next string) {
	s.t.Helper()
	s.do(chromedp.Click(chromedp.CSS(sel)), chromedp.WaitVisible(chromedp.CSS(next)))
}

// TestConsoleIDsWithSlashes: a workflow whose id holds '/' (and ':', '@', '.') is
// reached through every link and form of the console: each puts the id in its URL as
// one escaped path segment, and each route reads it back whole.
func TestConsoleIDsWithSlashes(t *testing.T) {
	s := newSite(t)
	escaped := "/console/workflows/" + url.PathEscape(slashID)
	atWorkflow := func(where string) {
		s.t.Helper()
		assert.Equal(s.t, slashID, s.text("main h1"), where)
		assert.Equal(s.t, escaped, s.eval(`location.pathname`), where)
	}
	s.run(t, "campaign approval", func(t *testing.T) {
		f := s.flow("08-delivery-of-draft")
		f.until("strategy v1 approved", withID(slashID))
		s.signIn(mariaToken)
		assert.Equal(t, slashID, s.eval(`document.querySelector('#inbox tr[data-workflow]').dataset.workflow`))
		s.follow(`#inbox a`, "#approval-form")
		atWorkflow("from the inbox")
		s.checked("artifact", "STRATEGY_BRIEF")
		s.follow("#approve", "#decision")
		assert.Equal(t, "PRODUCTION", s.text("#status-after"), "the approval was posted to the workflow")
		s.follow("#back", "#timeline")
		atWorkflow("back from the decision")
		s.follow(`#timeline li:last-child a`, "main h1")
		assert.Contains(t, s.text("main"), "Entry point data.handoff.campaign.decision", "the decision explains itself")
		s.follow(`main p.meta a`, "#timeline")
		atWorkflow("from the explanation")
		f.skip("strategy v1 approved")

		f.until("person returns the copy", nil)
		s.open("/console/")
		s.follow(`#inbox a`, "#approval-form")
		s.checked("revise", "COPY_PACKAGE")
		s.follow("#request-revision", "#decision")
		assert.Equal(t, "TARGETED_REVISION", s.text("#status-after"))
		f.skip("person returns the copy")

		f.until("QA accepts copy v2", nil)
		s.open(escaped)
		s.follow(`a.diff[href*="COPY_PACKAGE"]`, "#diff")
		assert.Contains(t, s.text("main h1"), "COPY_PACKAGE: v1 → v2")
		s.follow(`main p.meta a`, "#timeline")
		atWorkflow("from the diff")

		// Each version has its page: from the artifact table, the timeline and a diff.
		s.follow(`#artifacts tr[data-type="STRATEGY_BRIEF"][data-version="1"] a.version-link`, "article.version")
		assert.Equal(t, "STRATEGY_BRIEF v1", s.text("main h1"))
		s.follow(`#back`, "#timeline")
		atWorkflow("from a version's page")
		s.follow(`#timeline a.version-link[href$="/artifacts/COPY_PACKAGE/2"]`, "article.version")
		assert.Equal(t, "COPY_PACKAGE v2", s.text("main h1"))
		s.follow(`main p.meta a.diff`, "#diff")
		s.follow(`main p.meta a.version-link[href$="/artifacts/COPY_PACKAGE/1"]`, "article.version")
		assert.Equal(t, "COPY_PACKAGE v1", s.text("main h1"))
	})
	s.run(t, "assessment conflict resolution", func(t *testing.T) {
		const id = "acme/assessments/scf@2026:q2.v1"
		f := s.packFlow("assessment", "eval-2-conflicting-evidence")
		f.until("reviewer keeps the flagged output", withID(id))
		s.signIn(anaToken)
		s.follow(`#inbox tr[data-workflow="`+id+`"] a`, "form.conflict")
		assert.Equal(t, id, s.text("main h1"))
		s.eval(`(() => { for (const r of document.querySelectorAll('form.conflict input[name="chosen"]')) {
			if (r.value.includes('EVIDENCE_ASSESSMENT')) r.checked = true } return true })()`)
		s.do(chromedp.SendKeys(chromedp.CSS(`form.conflict textarea[name="rationale"]`), "Both documents are real"))
		s.follow(`form.conflict button`, "#decision")
		assert.Equal(t, "GAPS", s.text("#status-after"), s.text("#decision"))
	})
	s.inert()
}

// TestConsoleReasonTitlesOfThePack: a reason is titled by the rules of its decision's
// pack and of core, never by another pack's rule that carries the same code (the
// assessment pack's "No assessment rule decides the request" on a campaign's
// OUT_OF_SEQUENCE, its "Failure reported by a person" on core's UNAUTHORIZED_SUBJECT).
func TestConsoleReasonTitlesOfThePack(t *testing.T) {
	s := newSite(t)
	s.flow("06-upstream-defect").until("", withID("wf-sequence"))
	s.flow("28-identity-is-type-and-id").until("", withID("wf-identity"))
	codes := map[string]string{"OUT_OF_SEQUENCE": "wf-sequence", "UNAUTHORIZED_SUBJECT": "wf-identity"}
	own, foreign := map[string]bool{}, map[string]bool{}
	for _, r := range s.e.Decider().Reasons() {
		if _, ok := codes[r.Code]; !ok {
			continue
		}
		if r.Package == "handoff.campaign" || r.Package == "handoff.core" {
			own[r.Title] = true
		} else {
			foreign[r.Title] = true
		}
	}
	for title := range own {
		delete(foreign, title)
	}
	require.NotEmpty(t, foreign, "other packs title these codes otherwise")

	s.signIn(mariaToken)
	for code, wf := range codes {
		s.open("/console/workflows/" + url.PathEscape(wf))
		v := s.eval(`[...document.querySelectorAll('#timeline span.code[title="` + code + `"]')].map(e => e.textContent)`)
		require.NotEmpty(t, v, "the timeline shows a reason %s", code)
		s.shownNone(foreign, "the timeline of "+wf)
		s.follow(`#timeline li:has(span.code[title="`+code+`"]) a`, "main h1")
		require.NotEmpty(t, s.text(`.reason[data-code="`+code+`"] h3`))
		s.shownNone(foreign, "the explanation of "+code)
	}

	// A request refused before any rule fired is explained by the rules that carry its
	// codes: those of its pack and of core, not the support pack's SCHEMA_INVALID rule.
	d, err := s.e.Submit(context.Background(), []byte(`{"request_id": "start-incomplete", "kind": "start", "tenant_id": "acme",
		"workflow_id": "wf-incomplete", "trace_id": "trace-incomplete", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign"}`))
	require.NoError(t, err)
	require.Contains(t, d.Codes(), "SCHEMA_INVALID")
	s.open("/console/decisions/" + url.PathEscape(d.DecisionID))
	assert.Contains(t, s.text(`.reason[data-code="SCHEMA_INVALID"]`), "handoff.core", "core's rules are named")
	support := map[string]bool{}
	for _, r := range s.e.Decider().Reasons() {
		if r.Code == "SCHEMA_INVALID" && r.Package == "handoff.support" {
			support[r.Title] = true
		}
	}
	require.NotEmpty(t, support)
	s.shownNone(support, "the explanation of a campaign start")
	assert.NotContains(t, s.text("main"), "handoff.support")
}

// shownNone checks that the page shows none of titles.
func (s *site) shownNone(titles map[string]bool, where string) {
	s.t.Helper()
	main := s.text("main")
	for title := range titles {
		assert.False(s.t, strings.Contains(main, title), "%s shows %q, the title of another pack's rule", where, title)
	}
}
