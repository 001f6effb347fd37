package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startCampaign starts a campaign workflow wf for tenant at time at.
func startCampaign(t *testing.T, e *Engine, tenant, wf, subject string, at time.Time) *Decision {
	t.Helper()
	start := fmt.Sprintf(`{"request_id": "s-%s", "kind": "start", "tenant_id": %q, "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": %q, "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": %q}`, wf, tenant, subject, wf)
	d, err := e.SubmitAt(context.Background(), []byte(start), at)
	require.NoError(t, err)
	require.NotEqual(t, Block, d.Outcome, d.Reasons)
	return d
}

// TestFindWorkflowsPagesNewestFirst pages 7 workflows by 3, newest first, then filters
// them by search, by reason code and by time, and refuses a forged cursor.
func TestFindWorkflowsPagesNewestFirst(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range 7 {
		startCampaign(t, e, "acme", fmt.Sprintf("wf-%d", i), fmt.Sprintf("subject-%d", i), t0.Add(time.Duration(i)*time.Minute))
	}
	startCampaign(t, e, "other", "wf-other", "subject-9", t0)
	blocked := `{"request_id": "b-1", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-2", "organization_id": "org", "trace_id": "trace-1", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`
	d, err := e.SubmitAt(ctx, []byte(blocked), t0.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, Block, d.Outcome)

	var got []string
	q := WorkflowQuery{Limit: 3}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 3)
		page, err := e.FindWorkflows(ctx, "acme", q)
		require.NoError(t, err)
		for _, r := range page.Rows {
			got = append(got, r.WorkflowID)
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	assert.Equal(t, []string{"wf-2", "wf-6", "wf-5", "wf-4", "wf-3", "wf-1", "wf-0"}, got, "the blocked cancel made wf-2 the latest")

	page, err := e.FindWorkflows(ctx, "acme", WorkflowQuery{Search: "SUBJECT-4"})
	require.NoError(t, err)
	require.Len(t, page.Rows, 1)
	assert.Equal(t, "wf-4", page.Rows[0].WorkflowID)
	assert.Equal(t, "campaign", page.Rows[0].Pack)
	assert.NotEmpty(t, page.Rows[0].Agents)

	page, err = e.FindWorkflows(ctx, "acme", WorkflowQuery{Reason: d.Reasons[0].Code})
	require.NoError(t, err)
	require.Len(t, page.Rows, 1)
	assert.Equal(t, "wf-2", page.Rows[0].WorkflowID)

	page, err = e.FindWorkflows(ctx, "acme", WorkflowQuery{Since: t0.Add(time.Minute), Until: t0.Add(3 * time.Minute)})
	require.NoError(t, err)
	require.Len(t, page.Rows, 1, "wf-1 and wf-2 started in the range, but wf-2's latest decision is later")
	assert.Equal(t, "wf-1", page.Rows[0].WorkflowID)

	_, err = e.FindWorkflows(ctx, "acme", WorkflowQuery{Cursor: "not-a-cursor"})
	assert.ErrorIs(t, err, ErrBadCursor)
	_, err = e.FindWorkflows(ctx, "acme", WorkflowQuery{Waiting: "someone"})
	assert.Error(t, err)
}

// TestOnRecordedSeesEveryRecordedDecision counts what a listener is given: each recorded
// decision once, and not a resent answer.
func TestOnRecordedSeesEveryRecordedDecision(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	var seen []string
	e.OnRecorded(func(d *Decision) { seen = append(seen, d.DecisionID) })
	d := startCampaign(t, e, "acme", "wf-1", "s", time.Now())
	again := startCampaign(t, e, "acme", "wf-1", "s", time.Now())
	assert.Equal(t, d.DecisionID, again.DecisionID)
	assert.Equal(t, []string{d.DecisionID}, seen)
}
