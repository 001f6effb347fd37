package engine

import (
	"context"
	"fmt"
	"testing"

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
