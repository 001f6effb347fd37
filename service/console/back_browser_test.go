package console_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// TestConsoleBackAfterDecision: a person approves at a gate and presses Back. The page
// they return to is the workflow as it is now: it says the gate was decided, by whom,
// when and how, with their comment, and offers no form. The form of the page before,
// sent again, is answered with what was decided: as it was, its own decision; with
// other choices, "already decided"; neither records anything.
func TestConsoleBackAfterDecision(t *testing.T) {
	s := newSite(t)
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", nil)
	wf := f.workflow()
	records := func() int {
		n := 0
		require.NoError(t, s.e.History(context.Background(), "acme", wf, func(engine.Entry) error { n++; return nil }))
		return n
	}
	s.signIn(mariaToken)
	// The gate's page, open twice, as in two tabs: each with a form of its own.
	s.open("/console/workflows/" + url.PathEscape(wf))
	otherTab := s.eval(`document.querySelector('#approval-form').outerHTML`).(string)
	s.open("/console/workflows/" + url.PathEscape(wf))
	s.checked("artifact", "STRATEGY_BRIEF")
	s.do(chromedp.SetValue(chromedp.CSS("#comment"), "The proposition holds."))
	sent := s.eval(`document.querySelector('#approval-form').outerHTML`).(string)
	s.follow("#approve", "#decision")
	assert.Contains(t, s.eval(`location.pathname`), "/decided/", "the decision has a page of its own")
	assert.Equal(t, "PRODUCTION", s.text("#status-after"))
	decided := records()

	s.do(chromedp.NavigateBack(), chromedp.WaitVisible(chromedp.CSS("#decided")))
	assert.Equal(t, "/console/workflows/"+wf, s.eval(`location.pathname`))
	assert.Equal(t, float64(0), s.eval(`document.querySelectorAll('#approval-form, #gate form').length`), "no live form")
	assert.Equal(t, "PRODUCTION", s.eval(`document.querySelector('#status').dataset.status`), "the workflow as it is now")
	banner := s.text("#decided")
	assert.Contains(t, banner, "Approved")
	assert.Contains(t, banner, "maria.lopez")
	assert.Contains(t, banner, "Strategy approval")
	assert.Contains(t, banner, "The proposition holds.")
	assert.Regexp(t, `\d{4}-\d\d-\d\dT\d\d:\d\d`, s.text("#decided time"), "when")

	// The form sent, sent again as it was, then with other choices: its own decision.
	for _, choice := range []string{"#approve", "#reject"} {
		s.open("/console/workflows/" + url.PathEscape(wf))
		s.eval(`document.querySelector('main').insertAdjacentHTML('beforeend', ` + jsString(sent) + `); true`)
		s.do(chromedp.SetValue(chromedp.CSS("#approval-form #comment"), "Changed my mind."))
		s.follow("#approval-form "+choice, "#decision")
		assert.Equal(t, "Already decided", s.text("#decision h1"), choice)
		assert.NotEmpty(t, s.text("#again"), "the form's own decision, said to be sent before")
		assert.Equal(t, "allow", s.eval(`document.querySelector('#decision').dataset.outcome`))
		assert.Contains(t, s.text("#decision"), "Approved")
		assert.NotContains(t, s.text("#decision"), "Idempotency")
		assert.Equal(t, decided, records(), "nothing recorded")
	}

	// The other tab's form: the gate was decided by then.
	s.open("/console/workflows/" + url.PathEscape(wf))
	s.eval(`document.querySelector('main').insertAdjacentHTML('beforeend', ` + jsString(otherTab) + `); true`)
	s.follow("#approval-form #reject", "#decision")
	assert.Equal(t, "Already decided", s.text("#decision h1"))
	assert.NotEmpty(t, s.text("#already"))
	already := s.text("#decision")
	assert.Contains(t, already, "maria.lopez")
	assert.Contains(t, already, "Approved")
	assert.Contains(t, already, "The proposition holds.")
	assert.Equal(t, decided, records(), "nothing recorded")

	// The page of a decision is its tenant's alone.
	v := newVisitor(t, s.url, &http.Client{})
	v.signIn(globexToken)
	id := lastDecision(t, s.e, wf)
	resp, err := v.c.Get(s.url + "/console/workflows/" + url.PathEscape(wf) + "/decided/" + url.PathEscape(id))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b := []byte{'`'}
	for _, r := range s {
		switch r {
		case '`', '\\', '$':
			b = append(b, '\\')
		}
		b = append(b, string(r)...)
	}
	return string(append(b, '`'))
}
