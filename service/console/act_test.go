package console

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// TestApprovalFormOffersWhatThePolicyTakes: at a gate, the approval form's decisions,
// stage and checked versions are those of the approval the policy takes now
// (engine.Waiting). At the campaign's ESCALATED gate the person requests a revision or
// rejects: an Approve button there would be refused.
func TestApprovalFormOffersWhatThePolicyTakes(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer eng.Close()
	sc, err := scenario.Load("../../policies_test/handoff/campaign/scenarios/20-failure-retry-cancel.scenario")
	require.NoError(t, err)
	p := scenario.NewPlayer(eng)
	var st *engine.State
	for _, step := range sc.Steps {
		body, err := p.Render(ctx, step.Request)
		require.NoError(t, err)
		at := step.At()
		if at.IsZero() {
			at = time.Now()
		}
		d, err := eng.SubmitAt(ctx, body, at)
		require.NoError(t, err)
		p.Observe(body, d)
		if st, err = eng.State(ctx, d.TenantID, d.WorkflowID); err == nil && st.Status == "ESCALATED" {
			break
		}
	}
	require.Equal(t, "ESCALATED", st.Status)
	c := New(eng, Options{})
	pk, ok := c.packOf(st.Pack)
	require.True(t, ok)
	f := c.formsFor(pk, st, []string{"campaign_approver"})
	require.NotNil(t, f)
	require.NotNil(t, f.Approval)
	assert.Equal(t, "ESCALATED", f.Approval.Stage)
	assert.False(t, f.Approval.Allows("APPROVE"), "got decisions %v", f.Approval.Decisions)
	assert.True(t, f.Approval.Allows("REQUEST_REVISION"), "got decisions %v", f.Approval.Decisions)
}
