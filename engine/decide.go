package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/handoff-dev/handoff/engine/internal/policy"
	"github.com/handoff-dev/handoff/engine/internal/scan"
	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/internal/failpoint"
)

// Reason codes the engine itself produces when the policy cannot decide.
const (
	codePolicyError   = "POLICY_ERROR"
	codePolicyTimeout = "POLICY_TIMEOUT"
)

// engineTitles are the titles of the reasons the engine produces itself: no policy
// rule produced them, so no METADATA names them.
var engineTitles = map[string]string{
	codePolicyError:   "Policy error",
	codePolicyTimeout: "Policy timeout",
}

// validate checks a routed request against its pack's contract: the request kind's
// definition and, for outputs, the artifact type's content definition.
func (dc *Decider) validate(r *request) {
	if r.value == nil || r.pack == nil {
		return
	}
	def, ok := r.pack.Requests[r.kind]
	if !ok {
		r.validation = append(r.validation, ValidationError{Code: "SCHEMA_INVALID", Path: "kind", Message: fmt.Sprintf("unknown request kind %q", r.kind)})
		return
	}
	r.validation = append(r.validation, def.Validate(r.value)...)
	out, ok := r.value["output"].(map[string]any)
	if !ok {
		return
	}
	typ, _ := out["type"].(string)
	content, hasContent := out["content"]
	art, ok := r.pack.Artifacts[typ]
	switch {
	case !hasContent:
	case !ok:
		r.validation = append(r.validation, ValidationError{Code: "SCHEMA_INVALID", Path: "output.type", Message: fmt.Sprintf("pack %s has no artifact type %q", r.pack.Name, typ)})
	default:
		for _, ve := range art.Validate(content) {
			ve.Path = joinContentPath(ve.Path)
			r.validation = append(r.validation, ve)
		}
	}
}

func joinContentPath(p string) string {
	switch {
	case p == "":
		return "output.content"
	case p[0] == '[':
		return "output.content" + p
	default:
		return "output.content." + p
	}
}

// input builds the policy input: {pack, request, validation, state, derived, now}.
func (r *request) input() (ast.Value, error) {
	in := map[string]any{
		"pack":       "",
		"request":    nil,
		"validation": map[string]any{"errors": validationValues(r.validation)},
		"state":      nil,
		"derived":    r.derived,
		"now":        formatTime(r.now),
	}
	if r.pack != nil {
		in["pack"] = r.pack.Name
	}
	if r.value != nil {
		in["request"] = r.value
	}
	if r.state != nil {
		s, err := toValue(r.state)
		if err != nil {
			return nil, err
		}
		in["state"] = s
	}
	return ast.InterfaceToValue(in)
}

func validationValues(errs []ValidationError) []any {
	out := make([]any, len(errs))
	for i, e := range errs {
		out[i] = map[string]any{"code": e.Code, "path": e.Path, "message": e.Message}
	}
	return out
}

// evaluation says how decide evaluates the policy.
type evaluation struct {
	// timeout is the deadline of the evaluation; zero is the Decider's. A recorded
	// decision is evaluated again on whatever machine replays it: the deadline there is
	// the caller's.
	timeout time.Duration
	// explain traces the evaluation with rule indexing off (so every rule is checked,
	// and reported) and explains the decision.
	explain bool
	// stages times the validate and policy stages; nil times nothing.
	stages *stages
}

// result is what decide returns: the decision, the workflow's state after it (nil when
// nothing changes) and, when asked for, the explanation.
type result struct {
	decision    *Decision
	next        *State
	explanation *traced
}

// decide is the pipeline every decision goes through, from a decoded, routed request
// to the decision and the next state: validate, derive, evaluate the policy, settle the
// decision under the engine invariants, redact. Evaluate, Submit, Decide, replay and
// explain all call it. Derived values already set (replay keeps some recorded ones)
// are kept.
func (dc *Decider) decide(ctx context.Context, r *request, ev evaluation) result {
	end := ev.stages.start(StageValidate)
	dc.validate(r)
	if r.derived == nil {
		r.derive(dc.contracts.Scanner)
	}
	end()
	var tr *ruleTracer
	if ev.explain {
		tr = &ruleTracer{entered: map[string]*ast.Rule{}, exited: map[string]bool{}}
	}
	end = ev.stages.start(StagePolicy)
	d, entrypoint := dc.evaluate(ctx, r, ev.timeout, tr)
	next := dc.settle(r, d, entrypoint)
	if r.identityMismatch {
		d.MarkIdentityMismatch()
	}
	end()
	res := result{decision: d, next: dc.redact(r, d, next)}
	if tr != nil {
		res.explanation = dc.explanation(r, tr, entrypoint)
	}
	return res
}

// entrypoint is the query a request is decided by: its pack's, or the core's when it
// could not be routed.
func (r *request) entrypoint() string {
	if r.pack != nil {
		return policy.PackEntrypoint(r.pack.Name)
	}
	return policy.CoreEntrypoint
}

// evaluate evaluates the request's entrypoint and returns the checked policy result, or
// a fail-closed block with POLICY_ERROR or POLICY_TIMEOUT. With tr set the evaluation
// is traced, with rule indexing off.
func (dc *Decider) evaluate(ctx context.Context, r *request, timeout time.Duration, tr *ruleTracer) (*Decision, string) {
	entrypoint := r.entrypoint()
	in, err := r.input()
	if err != nil {
		return dc.failClosed(codePolicyError, "building the policy input failed: "+err.Error()), entrypoint
	}
	q, err := dc.policies.Query(ctx, entrypoint)
	if err != nil {
		return dc.failClosed(codePolicyError, err.Error()), entrypoint
	}
	if timeout <= 0 {
		timeout = dc.timeout
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
			return dc.failClosed(codePolicyTimeout, fmt.Sprintf("the policy did not decide within %s", timeout)), entrypoint
		}
		return dc.failClosed(codePolicyError, "policy evaluation failed: "+err.Error()), entrypoint
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return dc.failClosed(codePolicyError, entrypoint+" is undefined for this request"), entrypoint
	}
	d, err := dc.checkResult(rs[0].Expressions[0].Value)
	if err != nil {
		return dc.failClosed(codePolicyError, err.Error()), entrypoint
	}
	return d, entrypoint
}

// checkResult checks a policy result against CUE core.#PolicyResult and decodes it. The
// result is checked as OPA returns it (maps, slices, json.Number), before any encoding.
func (dc *Decider) checkResult(v any) (*Decision, error) {
	if errs := dc.contracts.Result.Validate(v); len(errs) > 0 {
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
func (dc *Decider) failClosed(code, msg string) *Decision {
	return &Decision{
		Outcome: Block, Reasons: []Reason{{Code: code, Title: engineTitles[code], Message: msg, Outcome: Block}},
		Next: []Next{}, Revise: []Revision{}, Events: []Event{},
	}
}

// settle completes a policy decision: the request's identity, the decision id, the
// time, the status and version before, then the engine invariants, failing closed when
// the decision breaks one. It returns the new state, or nil when nothing changes.
func (dc *Decider) settle(r *request, d *Decision, entrypoint string) *State {
	d.Policy = PolicyRef{BundleDigest: dc.digest, Entrypoint: entrypoint}
	d.DecisionID = r.decisionID
	d.RequestID, d.TenantID, d.WorkflowID, d.TraceID, d.Kind = r.requestID, r.tenant, r.workflow, r.trace, r.kind
	d.DecidedAt = formatTime(r.now)
	d.StatusBefore = "NONE"
	if r.pack != nil {
		d.Pack = r.pack.Name
	}
	if r.state != nil {
		d.StatusBefore = r.state.Status
		d.StateVersion = r.state.StateVersion
	}
	next, err := dc.enforce(r, d)
	if err != nil {
		*d = *dc.rebase(d, dc.failClosed(codePolicyError, "the policy's decision breaks an engine invariant: "+err.Error()))
		return nil
	}
	return next
}

// rebase keeps the identity fields of d on a fail-closed decision.
func (dc *Decider) rebase(d, fc *Decision) *Decision {
	fc.DecisionID, fc.RequestID, fc.TenantID, fc.WorkflowID, fc.TraceID, fc.Kind, fc.Pack = d.DecisionID, d.RequestID, d.TenantID, d.WorkflowID, d.TraceID, d.Kind, d.Pack
	fc.StatusBefore, fc.StatusAfter, fc.StateVersion, fc.Policy, fc.DecidedAt = d.StatusBefore, d.StatusBefore, d.StateVersion, d.Policy, d.DecidedAt
	return fc
}

// enforce holds the engine invariants whatever the policy said (context packages reach
// the next agent wrapped as untrusted data), and folds the events into a copy of the
// state. It returns the new state, or nil when nothing changes.
func (dc *Decider) enforce(r *request, d *Decision) (*State, error) {
	if d.StatusAfter == "" {
		d.StatusAfter = d.StatusBefore
	}
	wrapUntrusted(d.Next, scan.InjectionFlags(r.derived))
	if r.audit || r.pack == nil || r.state == nil {
		if d.Outcome != Block {
			return nil, fmt.Errorf("a request that cannot be routed must be blocked, policy said %s", d.Outcome)
		}
		d.StatusAfter, d.Events, d.Next = d.StatusBefore, []Event{}, []Next{}
		return nil, nil
	}
	if d.Outcome == Block {
		if len(d.Events) > 0 || d.StatusAfter != d.StatusBefore {
			return nil, fmt.Errorf("a block changes nothing, but the policy returned %d events and status %s", len(d.Events), d.StatusAfter)
		}
		if r.create {
			d.StatusAfter = d.StatusBefore
		}
		return nil, nil
	}
	if len(d.Reasons) == 0 && d.Outcome != Allow && d.Outcome != AwaitHuman && d.Outcome != Retry {
		return nil, fmt.Errorf("outcome %s without a reason", d.Outcome)
	}
	if !r.pack.HasStatus(d.StatusAfter) {
		return nil, fmt.Errorf("status %s is not a status of pack %s", d.StatusAfter, r.pack.Name)
	}
	if !r.create && len(d.Events) == 0 && d.StatusAfter == d.StatusBefore {
		return nil, nil
	}
	if err := sealHashes(d); err != nil {
		return nil, err
	}
	next, err := cloneState(r.state)
	if err != nil {
		return nil, err
	}
	if err := foldState(next, d, r.pack, formatTime(r.now)); err != nil {
		return nil, err
	}
	next.StateVersion++
	d.StateVersion = next.StateVersion
	return next, nil
}

func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func decodeState(b []byte) (*State, error) {
	var s State
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("decode state snapshot: %w", err)
	}
	ensureMaps(&s)
	return &s, nil
}

func cloneState(s *State) (*State, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return decodeState(b)
}
