package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/topdown"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// PolicyInput is the input of one policy evaluation as the engine builds it, ready for
// the policy: the entrypoint the request is routed to and the input document.
type PolicyInput struct {
	entrypoint string
	value      ast.Value
}

// Entrypoint is the query the input is for; empty for the zero PolicyInput.
func (in PolicyInput) Entrypoint() string { return in.entrypoint }

// PolicyInput runs the steps of Evaluate that come before the policy (decode, idempotency
// lookup, route and state read, contract validation, derived values) and returns the
// input the policy would be evaluated on. Nothing is decided or recorded. With EvalPolicy
// it measures the cost of the policy alone, beside the whole decision. It is safe for
// concurrent use.
func (e *Engine) PolicyInput(ctx context.Context, body []byte) (PolicyInput, error) {
	dc := e.Decider()
	in, _, _, err := e.input(ctx, dc, body, e.opts.Clock(), nil)
	if err != nil {
		return PolicyInput{}, err
	}
	entrypoint, value, err := dc.p.PolicyInput(in)
	if err != nil {
		return PolicyInput{}, fmt.Errorf("engine: policy input: %w", err)
	}
	return PolicyInput{entrypoint: entrypoint, value: value}, nil
}

// EvalPolicy evaluates the prepared query of the input's entrypoint on it and nothing
// else: no decoding, validation, state, result check or recording. The error is non-nil
// when the evaluation fails or is undefined. It is safe for concurrent use.
func (dc *Decider) EvalPolicy(ctx context.Context, in PolicyInput) error {
	q, err := dc.policies.Query(ctx, in.entrypoint)
	if err != nil {
		return err
	}
	ectx, cancel := context.WithTimeout(ctx, dc.timeout)
	defer cancel()
	rs, err := q.Eval(ectx, rego.EvalParsedInput(in.value))
	if err != nil {
		return fmt.Errorf("engine: evaluate %s: %w", in.entrypoint, err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return errors.New("engine: " + in.entrypoint + " is undefined for this input")
	}
	return nil
}

// Pack is the pack whose policy the input is for: "core" for a request the engine
// could not route to a pack.
func (in PolicyInput) Pack() string {
	return strings.TrimSuffix(strings.TrimPrefix(in.entrypoint, "data.handoff."), ".decision")
}

// Kind is the request's kind as the input holds it, "" when it has none.
func (in PolicyInput) Kind() string {
	obj, ok := in.value.(ast.Object)
	if !ok {
		return ""
	}
	req, ok := obj.Get(ast.InternedTerm("request")).Value.(ast.Object)
	if !ok {
		return ""
	}
	if k := req.Get(ast.InternedTerm("kind")); k != nil {
		if s, ok := k.Value.(ast.String); ok {
			return string(s)
		}
	}
	return ""
}

// PolicyExpressions evaluates the input's query as EvalPolicy does and counts the
// expressions the evaluation entered: a measure of the policy's work that the load of
// the machine does not change.
func (dc *Decider) PolicyExpressions(ctx context.Context, in PolicyInput) (int, error) {
	q, err := dc.policies.Query(ctx, in.entrypoint)
	if err != nil {
		return 0, err
	}
	var c expressionCounter
	if _, err := q.Eval(ctx, rego.EvalParsedInput(in.value), rego.EvalQueryTracer(&c)); err != nil {
		return 0, fmt.Errorf("engine: evaluate %s: %w", in.entrypoint, err)
	}
	return c.n, nil
}

// expressionCounter counts the expressions an evaluation enters.
type expressionCounter struct{ n int }

func (c *expressionCounter) Enabled() bool { return true }

func (c *expressionCounter) TraceEvent(e topdown.Event) {
	if e.Op == topdown.EvalOp {
		c.n++
	}
}

func (c *expressionCounter) Config() topdown.TraceConfig { return topdown.TraceConfig{} }
