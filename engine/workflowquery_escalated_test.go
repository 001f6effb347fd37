package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// TestAnEscalatedWorkflowWaitsForItsPeople: a support case that ended ESCALATED is
// handed to people: it waits for their role ("for me"), as the console's inbox shows it.
func TestAnEscalatedWorkflowWaitsForItsPeople(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer e.Close()
	sc, err := scenario.Load(filepath.Join("..", "policies_test", "handoff", "support", "scenarios", "34-workflow-deadline-review-pending.scenario"))
	require.NoError(t, err)
	var last *engine.Decision
	require.NoError(t, scenario.Run(ctx, e, sc, func(r scenario.Result) { last = r.Decision }))
	require.Equal(t, engine.AwaitHuman, last.Outcome)
	st, err := e.State(ctx, last.TenantID, last.WorkflowID)
	require.NoError(t, err)
	require.True(t, st.Terminal, st.Status)

	page, err := e.FindWorkflows(ctx, last.TenantID, engine.WorkflowQuery{Waiting: engine.WaitingAnyone})
	require.NoError(t, err)
	require.Len(t, page.Rows, 1)
	row := page.Rows[0]
	require.NotEmpty(t, row.Roles, "the people the case was handed to")
	mine, err := e.FindWorkflows(ctx, last.TenantID, engine.WorkflowQuery{Waiting: engine.WaitingMe, Roles: row.Roles[:1]})
	require.NoError(t, err)
	assert.Len(t, mine.Rows, 1)
	others, err := e.FindWorkflows(ctx, last.TenantID, engine.WorkflowQuery{Waiting: engine.WaitingMe, Roles: []string{"no_such_role"}})
	require.NoError(t, err)
	assert.Empty(t, others.Rows)
}
