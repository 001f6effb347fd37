package engine

import (
	"context"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/store"
)

// WorkflowFilter is handoff.WorkflowFilter.
type WorkflowFilter = handoff.WorkflowFilter

// WorkflowSummary is handoff.WorkflowSummary.
type WorkflowSummary = handoff.WorkflowSummary

// ListWorkflows lists a tenant's workflows that f selects, in id order. Each costs one
// read of its state and none of its decisions: the head names the standing one's
// outcome, however long the workflow's history.
func (e *Engine) ListWorkflows(ctx context.Context, tenant string, f WorkflowFilter) ([]WorkflowSummary, error) {
	var ids []string
	err := e.log.Workflows(ctx, tenant, func(wf string, _ store.Head) error {
		ids = append(ids, wf)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := []WorkflowSummary{}
	for _, wf := range ids {
		// The snapshot and the head read together: the standing outcome is the state's.
		snap, head, err := e.log.State(ctx, tenant, wf)
		if err != nil {
			return nil, err
		}
		st, _, err := e.states.read(tenant, wf, snap) // read, never changed
		if err != nil {
			return nil, err
		}
		if f.Pack != "" && st.Pack != f.Pack || f.Status != "" && st.Status != f.Status {
			continue
		}
		s := WorkflowSummary{WorkflowID: wf, Pack: st.Pack, Status: st.Status, Terminal: st.Terminal, StateVersion: st.StateVersion, UpdatedAt: st.UpdatedAt}
		if s.Standing, err = e.standingOutcome(ctx, tenant, wf, head); err != nil {
			return nil, err
		}
		if f.AwaitingHuman && s.Standing != AwaitHuman {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}
