package console_test

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// phone is the width of a phone's screen, in CSS pixels.
const phone = 390

// screen writes what the screen shows now (not the whole page) to HANDOFF_SCREENSHOTS
// (the README's images) or a temporary directory.
func (s *site) screen(name string) {
	s.t.Helper()
	dir := os.Getenv("HANDOFF_SCREENSHOTS")
	if dir == "" {
		dir = s.t.TempDir()
	}
	png, err := chromedp.Run(s.tab, chromedp.CaptureScreenshot())
	require.NoError(s.t, err)
	require.NoError(s.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// fits checks that the page is no wider than the screen: nothing to scroll sideways.
func (s *site) fits(where string) {
	s.t.Helper()
	assert.Equal(s.t, true, s.eval(`document.documentElement.scrollWidth <= window.innerWidth + 1`), "%s scrolls sideways", where)
}

// onScreen checks that every element sel matches is shown, and lies within the
// screen's width, where a finger reaches it without scrolling sideways.
func (s *site) onScreen(sel string) {
	s.t.Helper()
	out := s.eval(`[...document.querySelectorAll('` + sel + `')].map(e => { const r = e.getBoundingClientRect();
		return {text: e.textContent, left: r.left, right: r.right, width: r.width, shown: e.checkVisibility()} })`).([]any)
	require.NotEmpty(s.t, out, "no %s on the page", sel)
	for _, o := range out {
		m := o.(map[string]any)
		assert.Equal(s.t, true, m["shown"], "%s %q is hidden", sel, m["text"])
		assert.Greater(s.t, m["width"].(float64), float64(0), "%s %q has no width", sel, m["text"])
		assert.GreaterOrEqual(s.t, m["left"].(float64), float64(0), "%s %q starts left of the screen", sel, m["text"])
		assert.LessOrEqual(s.t, m["right"].(float64), float64(phone), "%s %q ends right of the screen", sel, m["text"])
	}
}

// TestConsoleOnAPhone: at 390 px the pages fit the screen. The path the workflow took
// is a list in text of at least 12 px, where the diagram's would be 6; the artifact
// table's rows stack, their version, history and diff links all on the screen; the
// explanation's tables too. The README's phone screenshots are taken here.
func TestConsoleOnAPhone(t *testing.T) {
	s := newSite(t)
	s.do(chromedp.EmulateViewport(phone, 844))
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", nil)
	wf := f.workflow()
	s.signIn(mariaToken)
	s.fits("the inbox")
	s.screen("console-390-inbox")

	s.follow(`#inbox a`, "#approval-form")
	s.fits("a gate")
	s.onScreen("#approve")
	s.screen("console-390-gate")
	s.checked("artifact", "STRATEGY_BRIEF")
	s.follow("#approve", "#decision")
	s.fits("a decision")
	f.skip("strategy v1 approved")
	f.until("QA accepts copy v2", nil)

	s.open("/console/workflows/" + url.PathEscape(wf))
	s.fits("a workflow")
	size := s.eval(`parseFloat(getComputedStyle(document.querySelector('#path li')).fontSize)`).(float64)
	assert.GreaterOrEqual(t, size, float64(12), "the path's text")
	s.onScreen("#path li")
	assert.Contains(t, s.text("#path"), "Production", "the path in words")
	// The diagram's text, for comparison: its viewBox is wider than the screen.
	diagram := s.eval(`(() => { const t = document.querySelector('svg.diagram text'); const svg = t.ownerSVGElement;
		return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width })()`).(float64)
	t.Logf("at %d px the path's text is %.1f px, the diagram's %.1f px", phone, size, diagram)
	s.onScreen("#artifacts a.version-link")
	s.onScreen("#artifacts a.history-link")
	s.onScreen("#artifacts a.diff")
	assert.Equal(t, "block", s.eval(`getComputedStyle(document.querySelector('#artifacts tr')).display`), "the rows stack")
	s.eval(`document.querySelector('#path').scrollIntoView(); true`)
	s.screen("console-390-workflow")

	s.follow(`#artifacts a.history-link[href$="/artifacts/COPY_PACKAGE"]`, "#versions")
	s.fits("an artifact's versions")
	s.onScreen("#versions a")

	s.refuse(wf, 1)
	s.open("/console/decisions/" + url.PathEscape(lastDecision(t, s.e, wf)))
	s.fits("an explanation")
	s.onScreen("#fired .reason h3")
	s.screen("console-390-explain")
	s.do(chromedp.Click(chromedp.CSS("#passed > summary")), chromedp.WaitVisible(chromedp.CSS("#passed li")))
	s.fits("an explanation, its passed checks open")
}
