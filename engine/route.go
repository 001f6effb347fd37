package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// route finds the pack and workflow state of a decoded request in the store. A request
// that cannot be routed keeps pack == nil and is decided by the core policy, which
// always blocks.
func (e *Engine) route(ctx context.Context, r *request) error {
	if r.value == nil {
		return nil
	}
	if r.kind == "start" {
		name, _ := r.value["pack"].(string)
		if e.decider.contracts.HasPack(name) && r.workflow != "" {
			_, found, err := e.log.Owner(ctx, r.workflow)
			if err != nil {
				return err
			}
			if found {
				r.refuse(ValidationError{Code: "WORKFLOW_EXISTS", Path: "workflow_id", Message: fmt.Sprintf("workflow %s already exists", r.workflow)})
			}
		}
		return e.decider.routeStart(r)
	}
	if r.workflow == "" {
		return e.decider.bind(r, nil)
	}
	// The owner first: another tenant's state is never read.
	owner, found, err := e.log.Owner(ctx, r.workflow)
	if err != nil {
		return err
	}
	switch {
	case !found:
		r.refuse(workflowNotFound(r.workflow))
		return nil
	case owner != r.tenant && !canary.SkipTenantCheck:
		r.refuse(tenantMismatch(r.workflow, r.tenant))
		return nil
	}
	snap, head, err := e.log.State(ctx, r.tenant, r.workflow)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			r.refuse(workflowNotFound(r.workflow))
			return nil
		}
		return err
	}
	st, err := decodeState(snap)
	if err != nil {
		return fmt.Errorf("engine: workflow %s: %w", r.workflow, err)
	}
	if st.StateVersion != head.StateVersion {
		return fmt.Errorf("engine: workflow %s: snapshot version %d differs from head %d", r.workflow, st.StateVersion, head.StateVersion)
	}
	return e.decider.routeState(r, st)
}

func workflowNotFound(workflow string) ValidationError {
	return ValidationError{Code: "WORKFLOW_NOT_FOUND", Path: "workflow_id", Message: fmt.Sprintf("workflow %s does not exist", workflow)}
}

// tenantMismatch never names the other tenant: the requester learns only that it may not.
func tenantMismatch(workflow, tenant string) ValidationError {
	return ValidationError{Code: "TENANT_MISMATCH", Path: "tenant_id", Message: fmt.Sprintf("workflow %s does not belong to tenant %s", workflow, tenant)}
}

// routeState routes a request to the workflow state it belongs to: its pack must be in
// the bundle.
func (dc *Decider) routeState(r *request, st *State) error {
	pc, err := dc.contracts.Pack(st.Pack)
	switch {
	case err != nil:
		return err
	case pc == nil:
		r.refuse(ValidationError{Code: "UNKNOWN_PACK", Path: "workflow_id", Message: fmt.Sprintf("workflow %s is governed by pack %s, which this bundle does not have", r.workflow, st.Pack)})
		return nil
	}
	r.pack, r.state = pc, st
	return nil
}

// routeStart prepares the state a start would create. A start without a workflow id is
// given a new one.
func (dc *Decider) routeStart(r *request) error {
	name, _ := r.value["pack"].(string)
	pc, err := dc.contracts.Pack(name)
	if err != nil {
		return err
	}
	if pc == nil {
		r.refuse(ValidationError{Code: "UNKNOWN_PACK", Path: "pack", Message: fmt.Sprintf("no pack named %q", name)})
		return nil
	}
	if r.workflow == "" {
		if _, given := r.value["workflow_id"]; given {
			r.validation = append(r.validation, ValidationError{Code: "SCHEMA_INVALID", Path: "workflow_id", Message: "workflow_id must be a valid id"})
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		r.workflow = id.String()
	}
	org, _ := r.value["organization_id"].(string)
	subject, _ := r.value["subject_id"].(string)
	r.pack = pc
	r.state = newState(r.workflow, r.tenant, org, pc.Name, subject, pc.Initial, formatTime(r.now))
	r.create = true
	return nil
}
