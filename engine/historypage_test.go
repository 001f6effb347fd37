package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/testsize"
	"github.com/handoff-dev/handoff/store"
)

// blockedWorkflow starts a campaign workflow in tenant acme and has n requests refused
// on it: a history of n+1 decisions, all at state version 1.
func blockedWorkflow(t *testing.T, e *Engine, workflow string, n int) {
	t.Helper()
	ctx := context.Background()
	start := `{"request_id": "s-` + workflow + `", "kind": "start", "tenant_id": "acme", "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "` + workflow + `"}`
	d, err := e.Submit(ctx, []byte(start))
	require.NoError(t, err)
	require.NotEqual(t, Block, d.Outcome, d.Reasons)
	for i := range n {
		blocked := fmt.Sprintf(`{"request_id": "b-%s-%d", "kind": "cancel", "tenant_id": "acme", "workflow_id": %q, "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`, workflow, i, workflow)
		d, err := e.Submit(ctx, []byte(blocked))
		require.NoError(t, err)
		require.Equal(t, Block, d.Outcome)
	}
}

// TestHistoryBeforeReadsOnlyItsPage pages through a long history from its end: each
// page holds the decisions just before the one that follows it, and reads from the
// store the records it shows and at most one more, however long the history.
func TestHistoryBeforeReadsOnlyItsPage(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	n := testsize.Pick(1000, 120)
	blockedWorkflow(t, e, "wf-long", n)
	last := uint64(n + 1)

	inner := e.log
	defer func() { e.log = inner }()
	var seen []uint64
	before := uint64(0)
	for {
		c := &countingLog{Log: inner}
		e.log = c
		page, err := e.HistoryBefore(ctx, "acme", "wf-long", before, 50)
		require.NoError(t, err)
		assert.Equal(t, last, page.Last)
		if len(page.Entries) == 0 {
			break
		}
		assert.LessOrEqual(t, c.delivered, len(page.Entries)+1, "a page reads its records and at most one more")
		assert.LessOrEqual(t, len(page.Entries), 50)
		for i, en := range page.Entries {
			require.NotNil(t, en.Decision)
			if i > 0 {
				assert.Equal(t, page.Entries[i-1].Seq+1, en.Seq, "oldest first, contiguous")
			}
		}
		if before != 0 {
			assert.Equal(t, before-1, page.Entries[len(page.Entries)-1].Seq, "the page ends just before the next one")
		} else {
			assert.Equal(t, last, page.Entries[len(page.Entries)-1].Seq, "the first page is the latest")
		}
		for i := len(page.Entries) - 1; i >= 0; i-- {
			seen = append(seen, page.Entries[i].Seq)
		}
		before = page.Entries[0].Seq
	}
	require.Len(t, seen, n+1, "every decision on exactly one page")
	for i, seq := range seen {
		assert.Equal(t, last-uint64(i), seq)
	}
	assert.Equal(t, "start", func() string {
		p, err := e.HistoryBefore(ctx, "acme", "wf-long", 2, 50)
		require.NoError(t, err)
		require.Len(t, p.Entries, 1)
		return p.Entries[0].Decision.Kind
	}())

	// A page past the end is the latest; no page is of no entries; another tenant's
	// workflow is not found.
	p, err := e.HistoryBefore(ctx, "acme", "wf-long", last+100, 10)
	require.NoError(t, err)
	require.Len(t, p.Entries, 10)
	assert.Equal(t, last, p.Entries[9].Seq)
	_, err = e.HistoryBefore(ctx, "acme", "wf-long", 0, 0)
	assert.Error(t, err)
	_, err = e.HistoryBefore(ctx, "globex", "wf-long", 0, 10)
	assert.True(t, errors.Is(err, store.ErrNotFound), "%v", err)
}

// TestDecisionPast finds the decision that took a workflow past a state version by
// bisection, past any number of refusals that left the version as it was.
func TestDecisionPast(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	n := testsize.Pick(1000, 90)
	blockedWorkflow(t, e, "wf-past", n)
	cancel := `{"request_id": "c-1", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-past", "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "reason": "the client withdrew"}`
	d, err := e.Submit(ctx, []byte(cancel))
	require.NoError(t, err)
	require.NotEqual(t, Block, d.Outcome, d.Reasons)
	require.Equal(t, uint64(2), d.StateVersion)

	en, ok, err := e.DecisionPast(ctx, "acme", "wf-past", 0)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, uint64(1), en.Seq)
	assert.Equal(t, "start", en.Decision.Kind)

	inner := e.log
	c := &countingLog{Log: inner}
	e.log = c
	en, ok, err = e.DecisionPast(ctx, "acme", "wf-past", 1)
	e.log = inner
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, uint64(n+2), en.Seq, "the cancel, past every refusal")
	assert.Equal(t, d.DecisionID, en.Decision.DecisionID)
	assert.Less(t, c.delivered, 2*bitsOf(n+2)+2, "bisection, not a scan")

	_, ok, err = e.DecisionPast(ctx, "acme", "wf-past", 2)
	require.NoError(t, err)
	assert.False(t, ok, "nothing went past the current version")
	_, _, err = e.DecisionPast(ctx, "globex", "wf-past", 0)
	assert.True(t, errors.Is(err, store.ErrNotFound), "%v", err)
}

// bitsOf is the number of bits of n: the steps of a bisection over n.
func bitsOf(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
