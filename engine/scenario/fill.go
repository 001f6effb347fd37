package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/handoff-dev/handoff/engine"
)

// FilledTemplate is a request template filled for one recorded workflow: Request is the
// skeleton with the workflow's tenant, organization, id and trace, and every artifact
// placeholder the workflow records resolved to its {id, type, version, hash}.
// Unresolved lists, as written and once each in the order met, the placeholders that
// name an artifact type or version the workflow has not recorded: they stay in Request
// as they are, for the sender to fill once the version exists.
type FilledTemplate struct {
	Request    map[string]any `json:"request"`
	Unresolved []string       `json:"unresolved"`
}

// FillTemplate fills skeleton (a Template's JSON) for the workflow in st, whose trace is
// traceID (the trace its start request named; empty leaves the skeleton's). It resolves
// with the Resolver, as handoffctl submit and validate do.
func FillTemplate(ctx context.Context, skeleton []byte, st *engine.State, traceID string) (*FilledTemplate, error) {
	dec := json.NewDecoder(bytes.NewReader(skeleton))
	dec.UseNumber()
	var req map[string]any
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("scenario: the template is not a JSON object: %w", err)
	}
	req["tenant_id"] = st.TenantID
	req["workflow_id"] = st.WorkflowID
	if st.OrganizationID != "" {
		req["organization_id"] = st.OrganizationID
	}
	if traceID != "" {
		req["trace_id"] = traceID
	}
	out := &FilledTemplate{Request: req, Unresolved: []string{}}
	seen := map[string]bool{}
	r := Resolver{
		Tenant:   st.TenantID,
		Workflow: st.WorkflowID,
		Version:  &st.StateVersion,
		State:    func(context.Context, string, string) (*engine.State, error) { return st, nil },
		Missing: func(p string) {
			if !seen[p] {
				seen[p] = true
				out.Unresolved = append(out.Unresolved, p)
			}
		},
	}
	if _, err := r.Replace(ctx, req); err != nil {
		return nil, err
	}
	return out, nil
}
