package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
)

// TestAStoreWithoutSummariesIsSummarizedAtOpen turns a Badger store into what the format
// before summaries wrote (no summary, format mark 4) and opens it: its workflows are
// summarized at Open, and listed as they were.
func TestAStoreWithoutSummariesIsSummarizedAtOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var workflows []string
	for i := range 3 {
		wf := fmt.Sprintf("wf-%d", i)
		workflows = append(workflows, wf)
		start := fmt.Sprintf(`{"request_id": "s-%d", "kind": "start", "tenant_id": "acme", "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "subject-%d", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": %q}`, i, i, wf)
		d, err := e.SubmitAt(ctx, []byte(start), t0.Add(time.Duration(i)*time.Minute))
		require.NoError(t, err)
		require.Equal(t, engine.Allow, d.Outcome, d.Reasons)
	}
	blocked := `{"request_id": "b-1", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-0", "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`
	d, err := e.SubmitAt(ctx, []byte(blocked), t0.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, engine.Block, d.Outcome)
	want, err := e.FindWorkflows(ctx, "acme", engine.WorkflowQuery{})
	require.NoError(t, err)
	require.Len(t, want.Rows, 3)
	assert.Equal(t, "wf-0", want.Rows[0].WorkflowID, "the block is the latest activity")
	require.NoError(t, e.Close())

	tenant := "t/acme\x00\x01"
	rewrite(t, dir, func(get func([]byte) []byte, set func(k, v []byte)) {
		for _, wf := range workflows {
			pointer := []byte(tenant + "w/" + wf + "\x00\x01u")
			active := get(pointer)
			set([]byte(tenant+"u/"+string(active)+wf+"\x00\x01"), nil)
			set(pointer, nil)
		}
		set([]byte("m/format"), []byte("4"))
	})
	ro, err := engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true, ReadOnly: true})
	require.NoError(t, err)
	got, err := ro.FindWorkflows(ctx, "acme", engine.WorkflowQuery{})
	require.NoError(t, err)
	assert.Equal(t, want, got, "read-only, summarized at each list")
	require.NoError(t, ro.Close())

	e, err = engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	require.NoError(t, e.Close())
	l, err := badger.Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.NoError(t, err)
	require.NoError(t, l.Unsummarized(ctx, "acme", func(wf string, _ store.Head) error {
		t.Errorf("%s was not summarized at Open", wf)
		return nil
	}))
	n := 0
	require.NoError(t, l.Summaries(ctx, "acme", nil, func(store.Summary) error { n++; return nil }))
	assert.Equal(t, 3, n)
	require.NoError(t, l.Close())

	e, err = engine.Open(ctx, engine.Options{Dir: dir, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	got, err = e.FindWorkflows(ctx, "acme", engine.WorkflowQuery{})
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
