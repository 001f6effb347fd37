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

// The keys of the policy input, built once.
var (
	keyPack       = ast.StringTerm("pack")
	keyRequest    = ast.StringTerm("request")
	keyValidation = ast.StringTerm("validation")
	keyErrors     = ast.StringTerm("errors")
	keyState      = ast.StringTerm("state")
	keyDerived    = ast.StringTerm("derived")
	keyNow        = ast.StringTerm("now")
	keyCode       = ast.StringTerm("code")
	keyPath       = ast.StringTerm("path")
	keyMessage    = ast.StringTerm("message")
)

// input builds the policy input: {pack, request, validation, state, derived, now}. The
// state's value is the one the caller has (a state read before) or is converted here.
func (f *flight) input() (ast.Value, error) {
	pack := ""
	if f.pack != nil {
		pack = f.pack.Name
	}
	request, state := ast.NullTerm(), ast.NullTerm()
	if f.req.value != nil {
		v, err := ast.InterfaceToValue(f.req.value)
		if err != nil {
			return nil, err
		}
		request = ast.NewTerm(v)
	}
	if f.state != nil {
		v := f.stateValue
		if v == nil {
			var err error
			if v, err = StateValue(f.state); err != nil {
				return nil, err
			}
		}
		state = ast.NewTerm(v)
	}
	derived, err := ast.InterfaceToValue(f.derived)
	if err != nil {
		return nil, err
	}
	errs := make([]*ast.Term, len(f.validation))
	for i, e := range f.validation {
		errs[i] = ast.ObjectTerm([2]*ast.Term{keyCode, ast.StringTerm(e.Code)}, [2]*ast.Term{keyPath, ast.StringTerm(e.Path)},
			[2]*ast.Term{keyMessage, ast.StringTerm(e.Message)})
	}
	return ast.NewObject(
		[2]*ast.Term{keyPack, ast.StringTerm(pack)},
		[2]*ast.Term{keyRequest, request},
		[2]*ast.Term{keyValidation, ast.ObjectTerm([2]*ast.Term{keyErrors, ast.ArrayTerm(errs...)})},
		[2]*ast.Term{keyState, state},
		[2]*ast.Term{keyDerived, ast.NewTerm(derived)},
		[2]*ast.Term{keyNow, ast.StringTerm(FormatTime(f.now))},
	), nil
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
	query := p.policies.Query
	if tr != nil {
		// An explanation names the rules as written, not the constants they fold to.
		query = p.policies.UnfoldedQuery
	}
	q, err := query(ctx, entrypoint)
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
// result is checked as OPA returns it (maps, slices, json.Number), and decoded from
// there as encoding/json would decode its encoding, without encoding it.
func (p *Pipeline) CheckResult(v any) (*Decision, error) {
	if errs := p.contracts.Result.Validate(v); len(errs) > 0 {
		return nil, fmt.Errorf("policy result does not match #PolicyResult: %s: %s", errs[0].Path, errs[0].Message)
	}
	var d Decision
	if err := decodeDirect(&d, v); err != nil {
		d = Decision{}
		if err := decodeThroughJSON(&d, v); err != nil {
			return nil, err
		}
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

// decodeThroughJSON decodes a policy result by its JSON encoding: for the results
// decodeDirect leaves to encoding/json, and its errors.
func decodeThroughJSON(d *Decision, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("policy result is not JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(d); err != nil {
		return fmt.Errorf("policy result: %w", err)
	}
	return nil
}

// failClosed is the decision when the policy could not decide: block.
func (p *Pipeline) failClosed(code, msg string) *Decision {
	return &Decision{
		Outcome: handoff.Block, Reasons: []Reason{{Code: code, Title: engineTitles[code], Message: msg, Outcome: handoff.Block}},
		Next: []Next{}, Revise: []Revision{}, Events: []Event{},
	}
}
