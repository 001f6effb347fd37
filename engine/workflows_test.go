package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// countingLog counts the reads made through a store: the calls, and the records and
// workflows they deliver.
type countingLog struct {
	store.Log
	calls, delivered int
}

func (c *countingLog) State(ctx context.Context, tenant, workflow string) ([]byte, store.Head, error) {
	c.calls++
	return c.Log.State(ctx, tenant, workflow)
}

func (c *countingLog) Record(ctx context.Context, tenant, workflow string, seq uint64) (store.Record, error) {
	c.calls++
	c.delivered++
	return c.Log.Record(ctx, tenant, workflow, seq)
}

func (c *countingLog) Records(ctx context.Context, tenant, workflow string, from uint64, fn func(store.Record) error) error {
	c.calls++
	return c.Log.Records(ctx, tenant, workflow, from, func(r store.Record) error { c.delivered++; return fn(r) })
}

func (c *countingLog) Workflows(ctx context.Context, tenant string, fn func(string, store.Head) error) error {
	c.calls++
	return c.Log.Workflows(ctx, tenant, func(w string, h store.Head) error { c.delivered++; return fn(w, h) })
}

func (c *countingLog) Summaries(ctx context.Context, tenant string, after *store.SummaryCursor, fn func(store.Summary) error) error {
	c.calls++
	return c.Log.Summaries(ctx, tenant, after, func(s store.Summary) error { c.delivered++; return fn(s) })
}

func (c *countingLog) Unsummarized(ctx context.Context, tenant string, fn func(string, store.Head) error) error {
	c.calls++
	return c.Log.Unsummarized(ctx, tenant, func(w string, h store.Head) error { c.delivered++; return fn(w, h) })
}

func (c *countingLog) SetSummary(ctx context.Context, tenant, workflow string, seq uint64, active time.Time, summary []byte) error {
	c.calls++
	return c.Log.SetSummary(ctx, tenant, workflow, seq, active, summary)
}

// TestListingCostsTheSameWhateverTheHistory lists, and reads the standing decision of, a
// workflow with one blocked decision after its start and one with 1,000: both cost the
// same reads, counted at the store.
func TestListingCostsTheSameWhateverTheHistory(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	blocks := map[string]int{"short": 1, "long": 1000}
	for tenant, n := range blocks {
		start := `{"request_id": "s-` + tenant + `", "kind": "start", "tenant_id": "` + tenant + `", "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-` + tenant + `"}`
		d, err := e.Submit(ctx, []byte(start))
		require.NoError(t, err)
		require.NotEqual(t, Block, d.Outcome)
		for i := range n {
			blocked := fmt.Sprintf(`{"request_id": "b-%d", "kind": "cancel", "tenant_id": %q, "workflow_id": "wf-%s", "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`, i, tenant, tenant)
			d, err := e.Submit(ctx, []byte(blocked))
			require.NoError(t, err)
			require.Equal(t, Block, d.Outcome)
		}
	}
	inner := e.log
	cost := map[string][2]int{}
	for tenant := range blocks {
		c := &countingLog{Log: inner}
		e.log = c
		list, err := e.ListWorkflows(ctx, tenant, WorkflowFilter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, Allow, list[0].Standing)
		d, err := e.Standing(ctx, tenant, "wf-"+tenant)
		require.NoError(t, err)
		require.NotNil(t, d)
		assert.Equal(t, "start", d.Kind)
		cost[tenant] = [2]int{c.calls, c.delivered}
	}
	e.log = inner
	t.Logf("reads (calls, records and workflows delivered): 1 block %v, 1,000 blocks %v", cost["short"], cost["long"])
	assert.Equal(t, cost["short"], cost["long"])
}

// withoutSummaries writes as a version before summaries did: its appends give none.
type withoutSummaries struct{ store.Log }

func (w withoutSummaries) Append(ctx context.Context, a store.Append) (store.Head, error) {
	a.Summary = nil
	return w.Log.Append(ctx, a)
}

// unwritable keeps no summary, as a store opened read-only.
type unwritable struct{ store.Log }

func (u unwritable) SetSummary(context.Context, string, string, uint64, time.Time, []byte) error {
	return &store.Error{Op: "set summary", Err: store.ErrReadOnly}
}

// campaignHistory starts campaign workflows of tenant, "<tenant>-<i>" a minute apart
// from t0, and submits blocks[i] blocked cancels to the i-th, a second apart.
func campaignHistory(t *testing.T, e *Engine, tenant string, t0 time.Time, blocks []int) {
	t.Helper()
	for i, n := range blocks {
		wf := fmt.Sprintf("%s-%d", tenant, i)
		at := t0.Add(time.Duration(i) * time.Minute)
		startCampaign(t, e, tenant, wf, fmt.Sprintf("subject-%d", i), at)
		for b := range n {
			blocked := fmt.Sprintf(`{"request_id": "b-%s-%d", "kind": "cancel", "tenant_id": %q, "workflow_id": %q, "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`, wf, b, tenant, wf)
			d, err := e.SubmitAt(context.Background(), []byte(blocked), at.Add(time.Duration(b+1)*time.Second))
			require.NoError(t, err)
			require.Equal(t, Block, d.Outcome)
		}
	}
}

// allPages pages through every workflow q selects, limit by limit.
func allPages(t *testing.T, e *Engine, tenant string, q WorkflowQuery) []WorkflowRow {
	t.Helper()
	var rows []WorkflowRow
	for range 100 {
		page, err := e.FindWorkflows(context.Background(), tenant, q)
		require.NoError(t, err)
		rows = append(rows, page.Rows...)
		if page.Next == "" {
			return rows
		}
		q.Cursor = page.Next
	}
	t.Fatal("the pages do not end")
	return nil
}

// TestWorkflowsRecordedWithoutSummaries records workflows as a version before summaries
// did, and lists them: they are summarized from their logs once, and the lists show what
// they show of workflows summarized as they were recorded; a store that keeps nothing
// still lists them, summarized each time.
func TestWorkflowsRecordedWithoutSummaries(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	blocks := []int{0, 2, 1, 0, 3}
	summarized, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer summarized.Close()
	campaignHistory(t, summarized, "acme", t0, blocks)
	want := allPages(t, summarized, "acme", WorkflowQuery{Limit: 2})
	require.Len(t, want, len(blocks))
	wantList, err := summarized.ListWorkflows(ctx, "acme", WorkflowFilter{})
	require.NoError(t, err)

	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	inner := e.log
	e.log = withoutSummaries{inner}
	campaignHistory(t, e, "acme", t0, blocks)
	missing := 0
	require.NoError(t, inner.Unsummarized(ctx, "acme", func(string, store.Head) error { missing++; return nil }))
	require.Equal(t, len(blocks), missing)

	e.log = unwritable{inner}
	assert.Equal(t, want, allPages(t, e, "acme", WorkflowQuery{Limit: 2}), "listed, though nothing could be kept")
	list, err := e.ListWorkflows(ctx, "acme", WorkflowFilter{})
	require.NoError(t, err)
	assert.Equal(t, wantList, list)

	c := &countingLog{Log: inner}
	e.log = c
	assert.Equal(t, want, allPages(t, e, "acme", WorkflowQuery{Limit: 2}))
	first := c.calls
	c.calls = 0
	assert.Equal(t, want, allPages(t, e, "acme", WorkflowQuery{Limit: 2}))
	assert.Equal(t, 6, c.calls, "summarized once: then each of the 3 pages looks for none and reads its summaries")
	assert.Greater(t, first, c.calls)
	list, err = e.ListWorkflows(ctx, "acme", WorkflowFilter{})
	require.NoError(t, err)
	assert.Equal(t, wantList, list)
	require.NoError(t, inner.Unsummarized(ctx, "acme", func(wf string, _ store.Head) error {
		t.Errorf("%s is still unsummarized", wf)
		return nil
	}))
}

// TestAPageCostsItsRowsWhateverTheStore reads a page of a tenant of many workflows with
// short histories and of one with long ones: each page costs the same reads, counted at
// the store, and they are the page's summaries (and the one after), not the tenant's
// workflows nor their records.
func TestAPageCostsItsRowsWhateverTheStore(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	workflows, long := 24, 12
	if testing.Short() {
		workflows, long = 12, 6
	}
	histories := map[string][]int{"short": make([]int, workflows), "long": make([]int, workflows)}
	for i := range histories["long"] {
		histories["long"][i] = long
	}
	for tenant, blocks := range histories {
		campaignHistory(t, e, tenant, t0, blocks)
	}
	inner := e.log
	defer func() { e.log = inner }()
	cost := map[string][2]int{}
	for tenant := range histories {
		c := &countingLog{Log: inner}
		e.log = c
		page, err := e.FindWorkflows(ctx, tenant, WorkflowQuery{Limit: 5})
		require.NoError(t, err)
		require.Len(t, page.Rows, 5)
		page, err = e.FindWorkflows(ctx, tenant, WorkflowQuery{Limit: 5, Cursor: page.Next})
		require.NoError(t, err)
		require.Len(t, page.Rows, 5)
		assert.Equal(t, fmt.Sprintf("%s-%d", tenant, workflows-6), page.Rows[0].WorkflowID)
		cost[tenant] = [2]int{c.calls, c.delivered}
	}
	t.Logf("reads of two pages (calls, rows delivered): short histories %v, long %v", cost["short"], cost["long"])
	assert.Equal(t, cost["short"], cost["long"])
	assert.Equal(t, [2]int{4, 12}, cost["long"], "per page: one look for unsummarized workflows, and 6 summaries")
}

// TestASummaryOfAnotherKindIsMadeAgain gives a workflow a summary this engine does not
// write (another version's, or garbled): it is listed as before, summarized again from
// its log, and the store keeps the new summary.
func TestASummaryOfAnotherKindIsMadeAgain(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	campaignHistory(t, e, "acme", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), []int{1, 0})
	want, err := e.FindWorkflows(ctx, "acme", WorkflowQuery{})
	require.NoError(t, err)
	require.Len(t, want.Rows, 2)
	row := want.Rows[0]
	for _, garbled := range []string{`{"v":99}`, `not json`, `{"v":1,"w":"acme-9"}`} {
		require.NoError(t, e.log.SetSummary(ctx, "acme", row.WorkflowID, row.Decisions, row.Active, []byte(garbled)))
		got, err := e.FindWorkflows(ctx, "acme", WorkflowQuery{})
		require.NoError(t, err)
		assert.Equal(t, want, got, garbled)
		require.NoError(t, e.log.Summaries(ctx, "acme", nil, func(s store.Summary) error {
			_, ok := decodeSummary(s.Workflow, s.Data)
			assert.True(t, ok, "%s: %s", s.Workflow, s.Data)
			return nil
		}))
	}
}
