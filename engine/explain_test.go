package engine_test

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

const explainStart = `{"request_id": "req-start", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew-q2-launch", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-explain"}`

func explainCancel(id, actor, role string) string {
	return `{"request_id": "` + id + `", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-explain", "organization_id": "acme-marketing", "trace_id": "trace-2", "actor": {"type": "human", "id": "` + actor + `", "roles": ["` + role + `"]}, "reason": "stop"}`
}

// blockedCancel records a start and a cancel by a person without an approving role,
// which is blocked, on an engine closed when the test ends.
func blockedCancel(t *testing.T) (*engine.Engine, *engine.Decision) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	_, err = e.Submit(ctx, []byte(explainStart))
	require.NoError(t, err)
	d, err := e.Submit(ctx, []byte(explainCancel("req-c1", "sam.intern", "viewer")))
	require.NoError(t, err)
	require.Equal(t, engine.Block, d.Outcome)
	return e, d
}

func TestExplainRecordedBlock(t *testing.T) {
	ctx := context.Background()
	e, d := blockedCancel(t)

	ex, err := e.Explain(ctx, d.DecisionID)
	require.NoError(t, err)
	assert.True(t, ex.Reproduced)
	assert.Equal(t, d.DecisionID, ex.Decision.DecisionID)
	require.Len(t, ex.Reasons, 1)
	r := ex.Reasons[0]
	assert.Equal(t, "UNAUTHORIZED_SUBJECT", r.Code)
	require.Len(t, r.Rules, 1, "rules %+v", r.Rules)
	rule := r.Rules[0]
	assert.Equal(t, "Cancel by a person without an approving role", rule.Title)
	assert.Equal(t, "handoff.campaign", rule.Package)
	assert.True(t, strings.HasSuffix(rule.File, "handoff/campaign/sequence.rego"), rule.File)
	assert.NotZero(t, rule.Line)
	var paths []string
	for _, in := range rule.Inputs {
		paths = append(paths, in.Path+"="+in.Value)
	}
	assert.Contains(t, strings.Join(paths, " "), `"viewer"`, "inputs %v", paths)
	assert.NotEmpty(t, ex.Passed)

	_, err = e.Explain(ctx, "no-such-decision")
	require.Error(t, err)
}

func TestEvaluateExplainAllow(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(t, err)
	defer e.Close()
	_, err = e.Submit(ctx, []byte(explainStart))
	require.NoError(t, err)
	ex, err := e.EvaluateExplain(ctx, []byte(explainCancel("req-c2", "maria.lopez", "campaign_approver")))
	require.NoError(t, err)
	assert.Equal(t, engine.Allow, ex.Decision.Outcome)
	assert.Empty(t, ex.Reasons)
	var titles []string
	for _, p := range ex.Passed {
		titles = append(titles, p.Title)
	}
	assert.Contains(t, titles, "Cancel by a person without an approving role")
	// Nothing was recorded.
	st, err := e.State(ctx, "acme", "wf-explain")
	require.NoError(t, err)
	assert.Equal(t, "RESEARCH", st.Status)
}

// TestExplainEveryScenarioDecision explains every recorded decision of a scenario: each
// is reproduced, and each reason that a rule produces names that rule.
func TestExplainEveryScenarioDecision(t *testing.T) {
	sc, err := scenario.Load("../policies_test/handoff/campaign/scenarios/02-weak-research-hg2.scenario")
	require.NoError(t, err)
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(t, err)
	defer e.Close()
	var ids []string
	require.NoError(t, scenario.Run(ctx, e, sc, func(r scenario.Result) { ids = append(ids, r.Decision.DecisionID) }))
	for _, id := range ids {
		ex, err := e.Explain(ctx, id)
		require.NoError(t, err, id)
		assert.True(t, ex.Reproduced, id)
		for _, r := range ex.Reasons {
			if r.Code != "POLICY_ERROR" {
				assert.NotEmpty(t, r.Rules, "%s: reason %s has no rule", id, r.Code)
			}
		}
	}
}

// TestExplainCandidate: the candidate's decision on the recorded input is explained,
// with the recorded one beside it; the recorded bundle as candidate reproduces it.
func TestExplainCandidate(t *testing.T) {
	ctx := context.Background()
	e, d := blockedCancel(t)

	b := engine.ShippedBundle()
	pfs := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(b.Policies, ".", func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		data, err := fs.ReadFile(b.Policies, p)
		if p == "handoff/campaign/sequence.rego" {
			data = bytes.Replace(data, []byte("count(_approving_roles) == 0"), []byte("count(_approving_roles) == -1"), 1)
		}
		pfs[p] = &fstest.MapFile{Data: data}
		return err
	}))
	b.Policies = pfs
	cand, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)

	ex, err := e.ExplainCandidate(ctx, cand, d.DecisionID)
	require.NoError(t, err)
	assert.True(t, ex.Candidate)
	assert.False(t, ex.Reproduced)
	assert.Equal(t, engine.Allow, ex.Decision.Outcome)
	assert.Equal(t, d.DecisionID, ex.Decision.DecisionID)
	require.NotNil(t, ex.Recorded)
	assert.Equal(t, engine.Block, ex.Recorded.Outcome)
	assert.Empty(t, ex.Reasons)
	assert.NotEmpty(t, ex.Passed)

	ex, err = e.ExplainCandidate(ctx, e.Decider(), d.DecisionID)
	require.NoError(t, err)
	assert.True(t, ex.Candidate)
	assert.True(t, ex.Reproduced)
	assert.Equal(t, engine.Block, ex.Decision.Outcome)
}

// A redacted record is not evaluated again: each reason names the rules of its pack and
// core that carry its code, and of those the one its title names.
func TestExplainRedactedNamesTheRuleOfTheTitle(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(t, err)
	defer e.Close()
	leaky := strings.Replace(explainStart, `"Grow trial sign-ups"`, `"Grow trial sign-ups. password: Lumen2027!Forte"`, 1)
	d, err := e.Submit(ctx, []byte(leaky))
	require.NoError(t, err)
	require.Contains(t, d.Codes(), "FORBIDDEN_CONTENT")
	ex, err := e.Explain(ctx, d.DecisionID)
	require.NoError(t, err)
	require.NotNil(t, ex.Redaction)
	for _, r := range ex.Reasons {
		require.NotEmpty(t, r.Rules, "reason %s", r.Code)
		for _, rule := range r.Rules {
			assert.Equal(t, r.Title, rule.Title, "reason %s", r.Code)
			assert.Contains(t, []string{"handoff.core", "handoff.campaign"}, rule.Package, "reason %s", r.Code)
		}
	}
}

// An engine that folds its packs' constant rules (compiled at once) explains a decision
// as one that does not (compiled lazily): explanations trace the rules as written.
func TestExplanationsDoNotSeeFoldedRules(t *testing.T) {
	sc, err := scenario.Load("../policies_test/handoff/campaign/scenarios/02-weak-research-hg2.scenario")
	require.NoError(t, err)
	ctx := context.Background()
	folded, err := engine.Open(ctx, engine.Options{InMemory: true, FoldConstants: true})
	require.NoError(t, err)
	defer folded.Close()
	lazy, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer lazy.Close()
	var ids, lazyIDs []string
	require.NoError(t, scenario.Run(ctx, folded, sc, func(r scenario.Result) { ids = append(ids, r.Decision.DecisionID) }))
	require.NoError(t, scenario.Run(ctx, lazy, sc, func(r scenario.Result) { lazyIDs = append(lazyIDs, r.Decision.DecisionID) }))
	require.Len(t, lazyIDs, len(ids))
	for i, id := range ids {
		want, err := lazy.Explain(ctx, lazyIDs[i])
		require.NoError(t, err, id)
		got, err := folded.Explain(ctx, id)
		require.NoError(t, err, id)
		want.Decision, got.Decision = nil, nil
		assert.Equal(t, want, got, id)
	}
}
