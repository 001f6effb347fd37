package pipeline

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/handoff-dev/handoff/internal/canary"
)

// route binds a request to its sender and to the workflow state it is given. A request
// that cannot be routed keeps pack == nil and is decided by the core policy, which
// always blocks. A request that is not its principal's is refused before anything of
// the tenant it claims is looked at.
func (p *Pipeline) route(f *flight, in Input) error {
	r := f.req
	f.validation = append(f.validation, r.refused...)
	f.audit = len(r.refused) > 0
	f.tenant = r.tenant
	if r.mismatch != nil {
		f.mismatch = true
		f.refuse(*r.mismatch)
		return nil
	}
	if r.value == nil {
		return nil
	}
	if in.Facts.KeyReused {
		f.refuse(ValidationError{Code: "IDEMPOTENCY_KEY_REUSED", Path: "request_id",
			Message: fmt.Sprintf("request_id %s was already used for another request", r.requestID)})
	}
	st := in.State
	switch {
	case r.kind == "start":
		if in.Facts.WorkflowExists {
			f.refuse(ValidationError{Code: "WORKFLOW_EXISTS", Path: "workflow_id", Message: fmt.Sprintf("workflow %s already exists", f.workflow)})
		}
		for _, ve := range in.Facts.Routing {
			f.validation = append(f.validation, ve)
		}
		return p.routeStart(f, in)
	case f.workflow == "":
		f.refuse(ValidationError{Code: "SCHEMA_INVALID", Path: "workflow_id", Message: "workflow_id is required and must be a valid id"})
	case in.Facts.Foreign:
		f.refuse(tenantMismatch(f.workflow, f.tenant))
	case st == nil || st.WorkflowID != f.workflow:
		f.refuse(workflowNotFound(f.workflow))
	case st.TenantID != f.tenant && !canary.SkipTenantCheck:
		f.refuse(tenantMismatch(f.workflow, f.tenant))
	default:
		return p.routeState(f, st, in.StateValue)
	}
	return nil
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
func (p *Pipeline) routeState(f *flight, st *State, value ast.Value) error {
	pc, err := p.contracts.Pack(st.Pack)
	switch {
	case err != nil:
		return err
	case pc == nil:
		f.refuse(ValidationError{Code: "UNKNOWN_PACK", Path: "workflow_id", Message: fmt.Sprintf("workflow %s is governed by pack %s, which this bundle does not have", f.workflow, st.Pack)})
		return nil
	}
	f.pack, f.state, f.stateValue = pc, st, value
	return nil
}

// routeStart prepares the state a start would create (or takes the one given). A start
// without a workflow id is given a new one.
func (p *Pipeline) routeStart(f *flight, in Input) error {
	name := f.req.PackName()
	pc, err := p.contracts.Pack(name)
	if err != nil {
		return err
	}
	if pc == nil {
		f.refuse(ValidationError{Code: "UNKNOWN_PACK", Path: "pack", Message: fmt.Sprintf("no pack named %q", name)})
		return nil
	}
	f.pack, f.create = pc, true
	if in.Start {
		f.state, f.stateValue = in.State, in.StateValue
		return nil
	}
	if f.workflow == "" {
		if _, given := f.req.value["workflow_id"]; given {
			f.validation = append(f.validation, ValidationError{Code: "SCHEMA_INVALID", Path: "workflow_id", Message: "workflow_id must be a valid id"})
		}
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		f.workflow = id.String()
	}
	org, _ := f.req.value["organization_id"].(string)
	subject, _ := f.req.value["subject_id"].(string)
	f.state = NewState(f.workflow, f.tenant, org, pc.Name, subject, pc.Initial, FormatTime(f.now))
	return nil
}
