package console_test

import (
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/browsertest"
)

// TestAuditPageInBrowser: in Chromium, a refused sign-in (an agent's token), a sign-in
// and a forged form (its CSRF token changed) appear on the tenant admin's audit page,
// newest first, in words; a person who is not an admin is refused the page.
func TestAuditPageInBrowser(t *testing.T) {
	tab := browsertest.New(t)
	e := openEngine(t, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	s := &site{t: t, e: e, url: serveAudit(t, e), tab: tab, dialogs: &atomic.Int32{}}

	s.signIn(agentToken)
	assert.Contains(t, s.text(".error"), "does not sign a person in")
	s.signIn(adminToken)
	assert.Contains(t, s.text(".who"), "maria.lopez")
	// The sign-out form as a forger would send it: without the session's CSRF token.
	require.Equal(t, "forged", s.eval(`document.querySelector('form[action="/console/signout"] input[name="csrf"]').value = 'forged'`))
	s.do(chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#message")))
	assert.Contains(t, s.text("#message"), "CSRF token")

	s.do(chromedp.Click(chromedp.CSS("#nav-audit")), chromedp.WaitVisible(chromedp.CSS("#audit")))
	audit := s.text("#audit")
	assert.Regexp(t, `(?s)Form refused: nothing was done.*Signed in, until.*Sign-in refused`, audit, "newest first")
	assert.Contains(t, audit, "its CSRF token is missing or wrong")
	assert.Contains(t, audit, "research-agent (research_agent)")
	assert.Contains(t, audit, "only people sign in to the console")
	assert.Contains(t, audit, "maria (maria.lopez)")
	assert.Contains(t, audit, "/console/signout")
	assert.Contains(t, s.text(".user-agent"), "Chrome", "the browser is named")
	assert.NotContains(t, audit, "forged", "nothing of the form")
	assert.NotContains(t, audit, agentToken)
	s.inert()
	s.screenshot("console-audit")

	// Sign out (a form with its token, this time); ana may not read the audit.
	s.open("/console/")
	s.do(chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#token")))
	s.signIn(anaToken)
	assert.Zero(t, s.eval(`document.querySelectorAll('#nav-audit').length`), "no audit link for a person who is not an admin")
	assert.NotZero(t, s.eval(`document.querySelectorAll('#nav-signout-all').length`))
	s.open("/console/audit")
	assert.Contains(t, s.text("#message"), "administrators only")
}
