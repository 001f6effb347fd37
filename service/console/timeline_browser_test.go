package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// refuse has n requests refused on a workflow of tenant acme: a person without the
// role cancels it, again and again, as a stuck host would.
func (s *site) refuse(workflow string, n int) {
	s.t.Helper()
	ctx := context.Background()
	for i := range n {
		body := fmt.Sprintf(`{"request_id": "refused-%d", "kind": "cancel", "tenant_id": "acme", "workflow_id": %q, "organization_id": "brightbrew-co", "trace_id": "trace-refused", "actor": {"type": "human", "id": "viewer", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`, i, workflow)
		d, err := s.e.Submit(ctx, []byte(body))
		require.NoError(s.t, err)
		require.Equal(s.t, engine.Block, d.Outcome, "request %d: %v", i, d.Reasons)
	}
}

// refusals is how many refused requests the long workflow's timeline holds: a
// thousand, as many as a stuck host sends in a day, and fast enough to play always.
const refusals = 1000

// TestConsoleTimelineOfALongWorkflow: a workflow with a person's approval, its comment
// an agent's markup, and then a thousand refused requests. Its page opens in less than
// 100 KB, the latest 50 refusals folded into one line that opens on each; the pages
// before it reach back to the start, every decision on exactly one of them, and the
// approval's line shows the person's comment as text.
func TestConsoleTimelineOfALongWorkflow(t *testing.T) {
	s := newSite(t)
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", nil)
	wf := f.workflow()
	s.signIn(mariaToken)
	s.open("/console/workflows/" + url.PathEscape(wf))
	s.checked("artifact", "STRATEGY_BRIEF")
	comment := "Approved, the tone is right.\n" + xss
	s.do(chromedp.SetValue(chromedp.CSS("#comment"), comment))
	s.follow("#approve", "#decision")
	s.refuse(wf, refusals)
	total := 0
	require.NoError(t, s.e.History(context.Background(), "acme", wf, func(engine.Entry) error { total++; return nil }))

	// The page as served, in bytes.
	v := newVisitor(t, s.url, &http.Client{})
	v.signIn(mariaToken)
	began := time.Now()
	page := v.get("/console/workflows/" + url.PathEscape(wf))
	t.Logf("the first page of a workflow of %d decisions: %d bytes, served in %v", total, len(page), time.Since(began))
	assert.Less(t, len(page), 100_000, "the first page does not grow with the history")

	s.open("/console/workflows/" + url.PathEscape(wf))
	assert.Equal(t, float64(1), s.eval(`document.querySelectorAll('#timeline > li').length`), "the latest page is one run of refusals")
	assert.Equal(t, "50", s.eval(`document.querySelector('#timeline > li.folded').dataset.count`))
	line := s.text(`#timeline > li.folded > div`)
	assert.Contains(t, line, "Refused")
	assert.Contains(t, line, "50 times")
	assert.Equal(t, false, s.eval(`document.querySelector('#timeline details.run').open`), "the run is folded")
	assert.Equal(t, false, s.eval(`document.querySelector('#timeline .run-step').checkVisibility()`))
	s.do(chromedp.Click(chromedp.CSS(`#timeline details.run > summary`)), chromedp.WaitVisible(chromedp.CSS(`#timeline .run-step`)))
	assert.Equal(t, float64(50), s.eval(`document.querySelectorAll('#timeline .run-step').length`), "unfolded, each decision of the run")
	assert.Equal(t, float64(0), s.eval(`document.querySelectorAll('#newer').length`), "the first page is the latest")

	// Back to the start, a page at a time: each decision once, oldest first.
	var seqs []int
	pages := 0
	for {
		pages++
		got := s.eval(`[...document.querySelectorAll('#timeline > li')].flatMap(li => {
			const first = +li.dataset.seq, n = +li.dataset.count; return Array.from({length: n}, (_, i) => first + i) })`).([]any)
		var these []int
		for _, x := range got {
			these = append(these, int(x.(float64)))
		}
		seqs = append(these, seqs...)
		if s.eval(`document.querySelectorAll('#older').length`) == float64(0) {
			break
		}
		s.follow("#older", "#timeline")
		require.Less(t, pages, total, "the pages end")
	}
	require.Len(t, seqs, total, "every decision on a page")
	for i, seq := range seqs {
		require.Equal(t, i+1, seq, "each decision once, in order")
	}
	assert.Equal(t, (total+49)/50, pages)
	assert.Contains(t, s.text("#timeline > li:first-child"), "Start")

	// The approval's line: the person's answer and words, as text.
	approval := `#timeline > li:has(.answer)`
	assert.Contains(t, s.text(approval), "Approved")
	assert.Contains(t, s.text(approval), "maria.lopez")
	assert.Equal(t, comment, s.eval(`document.querySelector('`+approval+` blockquote.comment').textContent`))
	s.inert()

	// Later pages lead back to the latest.
	s.follow("#newer", "#timeline")
	assert.Equal(t, "/console/workflows/"+wf, s.eval(`location.pathname`))
	oldestLast := total % 50
	if oldestLast == 0 {
		oldestLast = 50
	}
	assert.Equal(t, float64(oldestLast+1), s.eval(`+document.querySelector('#timeline > li').dataset.seq`), "the next page starts after the oldest")
	before := s.eval(`new URLSearchParams(location.search).get('before')`)
	require.NotNil(t, before)
	n, err := strconv.Atoi(before.(string))
	require.NoError(t, err)
	assert.Equal(t, oldestLast+50+1, n, "and ends before the one after it")

	// A page asked for with a number that is none is refused in words.
	s.open("/console/workflows/" + url.PathEscape(wf) + "?before=x")
	assert.Contains(t, s.text("#message"), "not a decision's number")
}

// The words on the workflow page are people's: no outcome or status is shown as the
// engine writes it, except in the small print beside it.
func TestConsoleWorkflowInWords(t *testing.T) {
	s := newSite(t)
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", nil)
	s.signIn(mariaToken)
	s.open("/console/workflows/" + f.workflow())
	text := s.eval(`(() => { const m = document.querySelector('main').cloneNode(true);
		m.querySelectorAll('.value, .reason-code, code, svg, form').forEach(e => e.remove()); return m.innerText })()`).(string)
	for _, engineWord := range []string{"allow", "await_human", "STRATEGY_APPROVAL", "under_review", "Decided:"} {
		assert.False(t, strings.Contains(text, engineWord), "the page says %q", engineWord)
	}
	assert.Contains(t, text, "Waiting for a person")
	assert.Contains(t, text, "Moved on")
	assert.Contains(t, text, "Strategy approval")
}
