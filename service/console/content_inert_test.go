package console_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
)

// TestConsoleContentIsInert: the markup agents write into an artifact's content is
// text wherever the content is shown (the gate and the version's own page), in every
// kind of field: a string, a long text, a list item, a nested object's value, a string
// that looks like a URL, and the limitations (a field's name: TestVersionFieldNamesAreText).
// Nothing runs, nothing is injected, no link is live; at a phone's width the content
// wraps inside the page.
func TestConsoleContentIsInert(t *testing.T) {
	s := newSite(t)
	link := "https://evil.example/offer?next=" + xss
	long := strings.Repeat("A paragraph the strategy agent wrote at length. ", 4) + "\n" + xss
	f := s.flow("08-delivery-of-draft")
	f.until("strategy v1 approved", func(name string, req map[string]any) {
		if name != "strategy v1 for approval" {
			return
		}
		c := req["output"].(map[string]any)["content"].(map[string]any)
		c["cta"] = xss
		c["campaign_objective"] = long
		c["messaging_hierarchy"] = []any{"Cafe quality at home", xss}
		c["product"].(map[string]any)["description"] = xss
		c["rejected_alternatives"] = []any{link, "javascript:alert('url')"}
		req["limitations"] = append([]any{xss, link}, req["limitations"].([]any)...)
	})
	wf := f.workflow()
	page := "/console/workflows/" + url.PathEscape(wf)
	own := page + "/artifacts/STRATEGY_BRIEF/1"

	s.signIn(mariaToken)
	for _, path := range []string{page, own} {
		s.run(t, path, func(t *testing.T) {
			s.open(path)
			s.eval(`document.querySelectorAll('details').forEach(d => d.open = true); true`)
			v := `article.version[data-type="STRATEGY_BRIEF"][data-version="1"] `
			assert.Equal(t, xss, s.text(v+`.content > [data-field="cta"] > :is(.text, .long)`), "a string")
			assert.Equal(t, long, s.text(v+`.content > [data-field="campaign_objective"] > .long`), "a long text, its line break kept")
			assert.Equal(t, xss, s.text(v+`[data-field="messaging_hierarchy"] li:nth-child(2)`), "a list item")
			assert.Equal(t, xss, s.text(v+`[data-field="product"] [data-field="description"] > :is(.text, .long)`), "a nested object's value")
			assert.Equal(t, link, s.text(v+`[data-field="rejected_alternatives"] li:nth-child(1)`), "a URL, as text")
			assert.Equal(t, xss, s.text(v+`.limitations li:nth-child(1)`), "a limitation")
			s.inertContent()
		})
	}

	s.run(t, "at a phone's width", func(t *testing.T) {
		s.signIn(mariaToken)
		s.do(chromedp.EmulateViewport(390, 844))
		defer s.do(chromedp.EmulateViewport(1280, 900))
		for _, path := range []string{page, own} {
			s.open(path)
			s.eval(`document.querySelectorAll('details').forEach(d => d.open = true); true`)
			assert.Equal(t, true, s.eval(`document.documentElement.scrollWidth <= window.innerWidth + 1`), path)
			assert.Equal(t, true, s.eval(`[...document.querySelectorAll('.content li, .content .text, .content .long')].every(e => e.getBoundingClientRect().right <= window.innerWidth + 1)`),
				"%s: every value wraps inside the screen", path)
		}
	})

	s.run(t, "another tenant's version, and a version the workflow does not have", func(t *testing.T) {
		s.signIn(mariaToken)
		s.open(page + "/artifacts/STRATEGY_BRIEF/9")
		assert.Equal(t, "Not found", s.text("main h1"))
		unknown := s.text("main")
		s.open(page + "/artifacts/NO_SUCH_TYPE/1")
		assert.Equal(t, unknown, s.text("main"))
		s.signIn(globexToken)
		s.open(own)
		assert.Equal(t, "Not found", s.text("main h1"))
		assert.Equal(t, unknown, s.text("main"), "another tenant's version is not found as an unknown one is")
		assert.NotContains(t, s.text("main"), "STRATEGY_BRIEF")
	})
}

// inertContent checks that the page holds no element an agent's content could have
// made: no script or image, no link but the console's own, and that nothing ran.
func (s *site) inertContent() {
	s.t.Helper()
	s.inert()
	assert.Equal(s.t, float64(0), s.eval(`document.querySelectorAll('main script, main img, main iframe, main object, main embed, main svg a').length`), "an element made of agent text")
	assert.Equal(s.t, true, s.eval(`[...document.querySelectorAll('main a')].every(a => a.getAttribute('href').startsWith('/console/'))`), "a link of the agents' text is live")
	assert.Equal(s.t, float64(0), s.eval(`document.querySelectorAll('.content a, .record .hash a, .limitations a, .assumptions a').length`), "a link inside the content")
}
