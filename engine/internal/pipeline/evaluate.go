package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/policy"
	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/internal/failpoint"
)

// Reason codes the engine itself produces when the policy cannot decide.
const (
	CodePolicyError   = "POLICY_ERROR"
	CodePolicyTimeout = "POLICY_TIMEOUT"
)

// engineTitles are the titles of the reasons the engine produces itself: no policy
// rule produced them, so no METADATA names them.
var engineTitles = map[string]string{
	CodePolicyError:   "Policy error",
	CodePolicyTimeout: "Policy timeout",
}

// input builds the policy input: {pack, request, validation, state, derived, now}.
func (f *flight) input() (ast.Value, error) {
	in := map[string]any{
		"pack":       "",
		"request":    nil,
		"validation": map[string]any{"errors": ValidationValues(f.validation)},
		"state":      nil,
		"derived":    f.derived,
		"now":        FormatTime(f.now),
	}
	if f.pack != nil {
		in["pack"] = f.pack.Name
	}
	if f.req.value != nil {
		in["request"] = f.req.value
	}
	if f.state != nil {
		s, err := ToValue(f.state)
		if err != nil {
			return nil, err
		}
		in["state"] = s
	}
	return ast.InterfaceToValue(in)
}

func ValidationValues(errs []ValidationError) []any {
	out := make([]any, len(errs))
	for i, e := range errs {
		out[i] = map[string]any{"code": e.Code, "path": e.Path, "message": e.Message}
	}
	return out
}

// entrypoint is the query a request is decided by: its pack's, or the core's when it
// could not be routed.
func (f *flight) entrypoint() string {
	if f.pack != nil {
		return policy.PackEntrypoint(f.pack.Name)
	}
	return policy.CoreEntrypoint
}

// evaluate evaluates the request's entrypoint and returns the checked policy result, or
// a fail-closed block with POLICY_ERROR or POLICY_TIMEOUT. With tr set the evaluation
// is traced, with rule indexing off.
func (p *Pipeline) evaluate(ctx context.Context, f *flight, timeout time.Duration, tr *ruleTracer) (*Decision, string) {
	entrypoint := f.entrypoint()
	in, err := f.input()
	if err != nil {
		return p.failClosed(CodePolicyError, "building the policy input failed: "+err.Error()), entrypoint
	}
	q, err := p.policies.Query(ctx, entrypoint)
	if err != nil {
		return p.failClosed(CodePolicyError, err.Error()), entrypoint
	}
	if timeout <= 0 {
		timeout = p.timeout
	}
	deadline := timeout
	if canary.NoEvalDeadline {
		deadline = time.Hour
	}
	ectx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	opts := []rego.EvalOption{rego.EvalParsedInput(in)}
	if tr != nil {
		opts = append(opts, rego.EvalQueryTracer(tr), rego.EvalRuleIndexing(false))
	}
	var rs rego.ResultSet
	if err = failpoint.Eval(ectx, "engine/evaluate"); err == nil {
		rs, err = q.Eval(ectx, opts...)
	}
	if err != nil {
		if errors.Is(ectx.Err(), context.DeadlineExceeded) {
			return p.failClosed(CodePolicyTimeout, fmt.Sprintf("the policy did not decide within %s", timeout)), entrypoint
		}
		return p.failClosed(CodePolicyError, "policy evaluation failed: "+err.Error()), entrypoint
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return p.failClosed(CodePolicyError, entrypoint+" is undefined for this request"), entrypoint
	}
	d, err := p.CheckResult(rs[0].Expressions[0].Value)
	if err != nil {
		return p.failClosed(CodePolicyError, err.Error()), entrypoint
	}
	return d, entrypoint
}

// CheckResult checks a policy result against CUE core.#PolicyResult and decodes it. The
// result is checked as OPA returns it (maps, slices, json.Number), before any encoding.
func (p *Pipeline) CheckResult(v any) (*Decision, error) {
	if errs := p.contracts.Result.Validate(v); len(errs) > 0 {
		return nil, fmt.Errorf("policy result does not match #PolicyResult: %s: %s", errs[0].Path, errs[0].Message)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("policy result is not JSON: %w", err)
	}
	var d Decision
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("policy result: %w", err)
	}
	if d.Reasons == nil {
		d.Reasons = []Reason{}
	}
	if d.Next == nil {
		d.Next = []Next{}
	}
	if d.Revise == nil {
		d.Revise = []Revision{}
	}
	if d.Events == nil {
		d.Events = []Event{}
	}
	return &d, nil
}

// failClosed is the decision when the policy could not decide: block.
func (p *Pipeline) failClosed(code, msg string) *Decision {
	return &Decision{
		Outcome: handoff.Block, Reasons: []Reason{{Code: code, Title: engineTitles[code], Message: msg, Outcome: handoff.Block}},
		Next: []Next{}, Revise: []Revision{}, Events: []Event{},
	}
}
