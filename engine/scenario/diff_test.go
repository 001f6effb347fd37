package scenario

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/enginetest"
)

// campaignWithReviewCycles is the shipped bundle with the campaign's QA revision cycles
// set to n, its tables exported again as a governance team would.
func campaignWithReviewCycles(t *testing.T, n string) *engine.Decider {
	t.Helper()
	b := enginetest.EditedBundle(t, enginetest.Edits{Contracts: map[string]enginetest.Edit{
		"campaign/limits.cue": enginetest.Replace("max_review_cycles: 2", "max_review_cycles: "+n)}})
	dc, err := engine.NewDecider(context.Background(), engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	return dc
}

func loadCampaign(t *testing.T, names ...string) []*Scenario {
	t.Helper()
	var out []*Scenario
	for _, n := range names {
		sc, err := Load("../../policies_test/handoff/campaign/scenarios/" + n + Ext)
		require.NoError(t, err)
		out = append(out, sc)
	}
	return out
}

// With one limit changed, the search finds the steps the change decides differently,
// and names each difference with the shortest request that shows it; the same bundle on
// both sides finds none.
func TestDifferencesFindWhatALimitChanges(t *testing.T) {
	ctx := context.Background()
	base, err := engine.NewDecider(ctx, engine.DeciderOptions{LazyPolicies: true})
	require.NoError(t, err)
	candidate := campaignWithReviewCycles(t, "1")
	scenarios := loadCampaign(t, "04-qa-two-cycles-escalate", "01-happy-path")

	same, err := Differences(ctx, base, base, scenarios, DiffOptions{Mutations: 4})
	require.NoError(t, err)
	assert.Empty(t, same.Differences, "a bundle decides as itself")
	assert.Equal(t, 2, same.Scenarios)
	assert.Greater(t, same.Requests, 2*len(scenarios[0].Steps), "each step and its variants")

	rep, err := Differences(ctx, base, candidate, scenarios, DiffOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Differences, "one QA cycle fewer: the second cycle is decided otherwise")
	var outcome *Difference
	for i, d := range rep.Differences {
		assert.Equal(t, "04-qa-two-cycles-escalate", d.Smallest.Scenario, "the happy path has one QA cycle: %s", d.What)
		assert.Positive(t, d.Requests)
		assert.NotEqual(t, d.Smallest.Base, d.Smallest.Candidate)
		if strings.HasPrefix(d.What, "outcome ") {
			outcome = &rep.Differences[i]
		}
	}
	require.NotNil(t, outcome, "an outcome flips: %+v", rep.Differences)
	assert.Contains(t, string(outcome.Smallest.Request), `"kind"`)
}

// Variants change one field each, spread over the request, and the request itself
// comes first.
func TestVariantsChangeOneFieldEach(t *testing.T) {
	body := []byte(`{"a":1,"b":{"c":"x","d":[true,false]},"e":""}`)
	all := variants(body, -1)
	require.Equal(t, body, all[0].body)
	assert.Empty(t, all[0].mutation)
	names := map[string]bool{}
	for _, v := range all[1:] {
		assert.NotEqual(t, string(body), string(v.body), v.mutation)
		names[v.mutation] = true
	}
	for _, want := range []string{"a dropped", "a 1 → 2", "a 1 → 0", "b.c emptied", "b.d emptied", "b.d[0] true → false", "e dropped"} {
		assert.True(t, names[want], "%s among %v", want, names)
	}
	assert.Len(t, variants(body, 3), 4, "the request and three variants")
	assert.Len(t, variants(body, 0), 1)
}
