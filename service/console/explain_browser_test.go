package console_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// TestConsoleExplainFoldsWhatPassed: the explanation of a refusal shows the rules that
// made it first, in words with their code beside; the checks that passed come after,
// folded in one <details> that says how many they are and opens on them. A decision
// no rule stood in the way of says so, its checks folded alike.
func TestConsoleExplainFoldsWhatPassed(t *testing.T) {
	s := newSite(t)
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", nil)
	wf := f.workflow()
	allowed := lastDecision(t, s.e, wf)
	s.refuse(wf, 1)
	refused := lastDecision(t, s.e, wf)
	s.signIn(mariaToken)

	for _, tc := range []struct {
		name, id string
		fired    bool
	}{{"a refusal", refused, true}, {"a decision that moved on", allowed, false}} {
		s.run(t, tc.name, func(t *testing.T) {
			ex, err := s.e.Explain(context.Background(), tc.id)
			require.NoError(t, err)
			require.NotEmpty(t, ex.Passed, "the evaluation checked rules that passed")
			s.open("/console/decisions/" + url.PathEscape(tc.id))
			assert.Equal(t, float64(len(ex.Reasons)), s.eval(`document.querySelectorAll('#fired .reason').length`))
			if tc.fired {
				require.NotEmpty(t, ex.Reasons)
				code := ex.Reasons[0].Code
				h := s.text(`#fired .reason[data-code="` + code + `"] h3`)
				assert.Contains(t, h, code, "the code beside, for search")
				assert.NotEqual(t, code, h, "the reason in words")
			} else {
				assert.Contains(t, s.text("#fired"), "No rule stood in its way")
			}
			assert.Equal(t, true, s.eval(`!!(document.querySelector('#fired').compareDocumentPosition(document.querySelector('#passed')) & Node.DOCUMENT_POSITION_FOLLOWING)`),
				"the rules that fired come first")
			assert.Equal(t, false, s.eval(`document.querySelector('#passed').open`), "the checks that passed are folded")
			assert.Equal(t, false, s.eval(`document.querySelector('#passed li').checkVisibility()`))
			assert.Contains(t, s.text("#passed > summary"), strconv.Itoa(len(ex.Passed))+" checks passed")
			s.do(chromedp.Click(chromedp.CSS("#passed > summary")), chromedp.WaitVisible(chromedp.CSS("#passed li")))
			assert.Equal(t, float64(len(ex.Passed)), s.eval(`document.querySelectorAll('#passed li').length`))
			said := map[engine.Outcome]string{engine.Block: "Refused", engine.AwaitHuman: "Waiting for a person", engine.Allow: "Moved on"}
			require.Contains(t, said, ex.Decision.Outcome)
			assert.Equal(t, said[ex.Decision.Outcome], s.text("main p.meta .outcome"), "the outcome in words")
		})
	}
}
