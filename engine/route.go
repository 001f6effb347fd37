package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// route finds the pack and workflow state of a decoded request. A request that cannot
// be routed keeps pack == nil and is decided by the core policy, which always blocks.
func (e *Engine) route(ctx context.Context, r *request) error {
	if r.value == nil {
		return nil
	}
	if r.kind == "start" {
		return e.routeStart(ctx, r)
	}
	if r.workflow == "" {
		r.validation = append(r.validation, ValidationError{Code: "SCHEMA_INVALID", Path: "workflow_id", Message: "workflow_id is required and must be a valid id"})
		r.audit = true
		return nil
	}
	owner, found, err := e.log.Owner(ctx, r.workflow)
	if err != nil {
		return err
	}
	switch {
	case !found:
		r.validation = append(r.validation, ValidationError{Code: "WORKFLOW_NOT_FOUND", Path: "workflow_id", Message: fmt.Sprintf("workflow %s does not exist", r.workflow)})
		r.audit = true
		return nil
	case owner != r.tenant && !canary.SkipTenantCheck:
		// The other tenant is never named: the requester learns only that it may not.
		r.validation = append(r.validation, ValidationError{Code: "TENANT_MISMATCH", Path: "tenant_id", Message: fmt.Sprintf("workflow %s does not belong to tenant %s", r.workflow, r.tenant)})
		r.audit = true
		return nil
	}
	snap, head, err := e.log.State(ctx, r.tenant, r.workflow)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			r.validation = append(r.validation, ValidationError{Code: "WORKFLOW_NOT_FOUND", Path: "workflow_id", Message: fmt.Sprintf("workflow %s does not exist", r.workflow)})
			r.audit = true
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
	pc, ok := e.contracts.packs[st.Pack]
	if !ok {
		r.validation = append(r.validation, ValidationError{Code: "UNKNOWN_PACK", Path: "workflow_id", Message: fmt.Sprintf("workflow %s is governed by pack %s, which this bundle does not have", r.workflow, st.Pack)})
		r.audit = true
		return nil
	}
	r.pack, r.state = pc, st
	return nil
}

// routeStart prepares the state a start would create.
func (e *Engine) routeStart(ctx context.Context, r *request) error {
	name, _ := r.value["pack"].(string)
	pc, ok := e.contracts.packs[name]
	if !ok {
		r.validation = append(r.validation, ValidationError{Code: "UNKNOWN_PACK", Path: "pack", Message: fmt.Sprintf("no pack named %q", name)})
		r.audit = true
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
	} else {
		_, found, err := e.log.Owner(ctx, r.workflow)
		if err != nil {
			return err
		}
		if found {
			r.validation = append(r.validation, ValidationError{Code: "WORKFLOW_EXISTS", Path: "workflow_id", Message: fmt.Sprintf("workflow %s already exists", r.workflow)})
			r.audit = true
		}
	}
	org, _ := r.value["organization_id"].(string)
	subject, _ := r.value["subject_id"].(string)
	r.pack = pc
	r.state = newState(r.workflow, r.tenant, org, pc.name, subject, pc.initial, formatTime(r.now))
	r.create = true
	return nil
}
