package engine_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/enginetest"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// stricterSupport is the shipped bundle with the support pack's cost budget
// lowered from 500000 to 5000 micros, in its CUE source and its exported tables: a
// workflow that spends more is stopped.
func stricterSupport(t testing.TB) engine.Bundle {
	t.Helper()
	return enginetest.EditedBundle(t, enginetest.Edits{Contracts: map[string]enginetest.Edit{
		"support/config.cue": enginetest.Replace("cost_budget_micros:       500000\n", "cost_budget_micros:       5000\n")}})
}

// TestShadowFindsWhatReplayFinds plays support scenarios on an engine with a shadow of a
// stricter support pack: once the shadow has decided every recorded decision, its log
// holds exactly the decisions Replay with the same candidate reports as changed, with
// the same outcomes; the live decisions are the shipped bundle's.
func TestShadowFindsWhatReplayFinds(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	b := stricterSupport(t)
	cand, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	shadowLog := filepath.Join(t.TempDir(), "shadow.ndjson")
	s, err := e.StartShadow(cand, engine.ShadowOptions{Log: shadowLog, Queue: 10000})
	require.NoError(t, err)
	defer s.Close()

	files, err := filepath.Glob("../policies_test/handoff/support/scenarios/*.scenario")
	require.NoError(t, err)
	// A sixth of them, at any size: the served test in cmd/handoffctl plays the four
	// packs' scenarios under a shadow.
	for i := 0; i < len(files); i += 6 {
		sc, err := scenario.Load(files[i])
		require.NoError(t, err)
		_ = scenario.Run(ctx, e, sc, nil) // the load: whether it plays as written does not matter
	}
	require.Eventually(t, func() bool { st := s.Stats(); return st.Pending == 0 }, 60*time.Second, 10*time.Millisecond)
	st := s.Stats()
	assert.Zero(t, st.Dropped)
	assert.Zero(t, st.Errors)
	assert.Equal(t, cand.BundleDigest(), st.CandidateDigest)
	assert.Equal(t, e.Decider().BundleDigest(), st.LiveDigest)

	type flip struct {
		id       string
		from, to engine.Outcome
	}
	var want []flip
	require.NoError(t, e.Replay(ctx, cand, engine.ReplayOptions{SkipUnchanged: true}, func(r engine.ReplayResult) error {
		if r.Skipped == "" && len(r.Changed) > 0 {
			want = append(want, flip{r.Recorded.DecisionID, r.Recorded.Outcome, r.Replayed.Outcome})
		}
		return nil
	}))
	var got []flip
	require.NoError(t, s.Disagreements("", "", func(d engine.ShadowDisagreement) error {
		got = append(got, flip{d.DecisionID, d.Live.Outcome, d.Candidate.Outcome})
		assert.Equal(t, "support", d.Pack)
		assert.NotEmpty(t, d.Differences())
		assert.Equal(t, cand.BundleDigest(), d.Candidate.BundleDigest)
		return nil
	}))
	require.NotEmpty(t, want, "the smaller budget changes some decision")
	cmpFlip := func(a, b flip) int { return bytes.Compare([]byte(a.id), []byte(b.id)) }
	slices.SortFunc(want, cmpFlip)
	slices.SortFunc(got, cmpFlip)
	assert.Equal(t, want, got)
	assert.Equal(t, uint64(len(want)), st.Disagreed)
	assert.Positive(t, st.Agreed)
	assert.Positive(t, st.Unchanged+st.Agreed+st.Disagreed)
	var counted uint64
	for k, n := range s.DisagreementCounts() {
		assert.Equal(t, "support", k.Pack)
		counted += n
	}
	assert.GreaterOrEqual(t, counted, st.Disagreed)
}

// TestShadowPromote: promoting makes the candidate the live bundle of the next decision
// and stops the shadow, which then takes no more decisions.
func TestShadowPromote(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	b := stricterSupport(t)
	cand, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	s, err := e.StartShadow(cand, engine.ShadowOptions{Log: filepath.Join(t.TempDir(), "shadow.ndjson")})
	require.NoError(t, err)
	defer s.Close()
	live := e.Decider()
	old := s.Promote()
	assert.Same(t, live, old)
	assert.Same(t, cand, e.Decider())
	st := s.Stats()
	assert.False(t, st.Running)
	assert.Equal(t, cand.BundleDigest(), st.LiveDigest)
	d, err := e.Submit(ctx, []byte(explainStart))
	require.NoError(t, err)
	assert.Equal(t, cand.BundleDigest(), d.Policy.BundleDigest)
	assert.Zero(t, s.Stats().Pending, "a stopped shadow queues nothing")
}
