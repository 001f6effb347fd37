package console_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/enginetest"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/browsertest"
	"github.com/handoff-dev/handoff/service"
)

// The people of the shadow page: northwind's admin and a northwind reviewer.
const (
	northwindAdminToken = "token-nora-northwind-admin"
	northwindToken      = "token-nils-northwind"
)

// smallerSupportBudget is the shipped bundle with the support pack's cost budget
// lowered from 500000 to 5000 micros (CUE source and exported tables).
func smallerSupportBudget(t *testing.T) engine.Bundle {
	t.Helper()
	return enginetest.EditedBundle(t, enginetest.Edits{Contracts: map[string]enginetest.Edit{
		"support/config.cue": enginetest.Replace("cost_budget_micros:       500000\n", "cost_budget_micros:       5000\n")}})
}

// TestShadowPageInBrowser: in Chromium, northwind's admin sees the decisions of
// northwind the shadow bundle would make otherwise, newest first, the live decision
// beside the candidate's; acme's admin sees none of them, and a person who is not an
// admin is refused the page.
func TestShadowPageInBrowser(t *testing.T) {
	tab := browsertest.New(t)
	ctx := context.Background()
	e := openEngine(t, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	b := smallerSupportBudget(t)
	cand, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	sh, err := e.StartShadow(cand, engine.ShadowOptions{Log: filepath.Join(t.TempDir(), "shadow.ndjson")})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sh.Close() })

	doc := map[string]any{"principals": []map[string]any{
		{"name": "nora", "token_sha256": service.HashToken(northwindAdminToken), "tenant_id": "northwind", "type": "human", "id": "nora", "admin": true},
		{"name": "nils", "token_sha256": service.HashToken(northwindToken), "tenant_id": "northwind", "type": "human", "id": "nils"},
		{"name": "maria", "token_sha256": service.HashToken(adminToken), "tenant_id": "acme", "type": "human", "id": "maria.lopez", "admin": true},
	}}
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	ps, err := service.ParsePrincipals(raw)
	require.NoError(t, err)
	srv := httptest.NewServer(service.New(e, service.Options{Principals: ps, Shadow: sh}))
	t.Cleanup(srv.Close)

	files, err := filepath.Glob("../../policies_test/handoff/support/scenarios/*.scenario")
	require.NoError(t, err)
	for _, f := range files[:min(len(files), 6)] {
		sc, err := scenario.Load(f)
		require.NoError(t, err)
		_ = scenario.Run(ctx, e, sc, nil) // load: whether it plays as written does not matter
	}
	require.Eventually(t, func() bool { return sh.Stats().Pending == 0 }, time.Minute, 20*time.Millisecond)
	var logged []engine.ShadowDisagreement
	require.NoError(t, sh.Disagreements("northwind", "", func(d engine.ShadowDisagreement) error { logged = append(logged, d); return nil }))
	require.NotEmpty(t, logged)
	newest := logged[len(logged)-1]

	s := &site{t: t, e: e, url: srv.URL, tab: tab, dialogs: &atomic.Int32{}}
	s.signIn(northwindAdminToken)
	s.do(chromedp.Click(chromedp.CSS("#nav-shadow")), chromedp.WaitVisible(chromedp.CSS("#shadow")))
	assert.Equal(t, float64(len(logged)), s.eval(`document.querySelectorAll('#shadow tr.shadow-row').length`))
	assert.Equal(t, newest.DecisionID, s.eval(`document.querySelector('#shadow tr.shadow-row').dataset.decision`), "newest first")
	first := s.text("#shadow tr.shadow-row")
	assert.Contains(t, first, newest.Workflow)
	assert.Equal(t, float64(2), s.eval(`document.querySelector('#shadow tr.shadow-row').querySelectorAll('td.shadow-side').length`), "both decisions, side by side")
	assert.Contains(t, s.text("#shadow-candidate"), cand.BundleDigest())
	s.inert()
	s.screenshot("console-shadow")

	s.do(chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#token")))
	s.signIn(adminToken)
	s.open("/console/shadow")
	assert.Contains(t, s.text("#shadow-empty"), "as the live bundle does", "another tenant's disagreements are not shown")

	s.do(chromedp.Click(chromedp.CSS("#signout")), chromedp.WaitVisible(chromedp.CSS("#token")))
	s.signIn(northwindToken)
	assert.Zero(t, s.eval(`document.querySelectorAll('#nav-shadow').length`), "no shadow link for a person who is not an admin")
	s.open("/console/shadow")
	assert.Contains(t, s.text("#message"), "administrators only")
}
