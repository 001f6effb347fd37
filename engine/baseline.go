package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// PolicyInput is the input of one policy evaluation as the engine builds it: the
// entrypoint the request is routed to and the input document, already an ast.Value.
type PolicyInput struct {
	Entrypoint string
	Value      ast.Value
}

// PolicyInput runs the steps of Evaluate that come before the policy (decode, idempotency
// lookup, route and state read, contract validation, derived values) and returns the
// input the policy would be evaluated on. Nothing is decided or recorded. With EvalPolicy
// it measures the cost of the policy alone, beside the whole decision. It is safe for
// concurrent use.
func (e *Engine) PolicyInput(ctx context.Context, body []byte) (PolicyInput, error) {
	r := e.decodeRequest(body, e.opts.Clock())
	if _, err := e.idempotency(ctx, r); err != nil {
		return PolicyInput{}, err
	}
	if err := e.route(ctx, r); err != nil {
		return PolicyInput{}, err
	}
	e.validate(r)
	r.derive(e.contracts.scanner)
	entrypoint := coreEntrypoint
	if r.pack != nil {
		entrypoint = packEntrypoint(r.pack.name)
	}
	in, err := r.input()
	if err != nil {
		return PolicyInput{}, fmt.Errorf("engine: policy input: %w", err)
	}
	return PolicyInput{Entrypoint: entrypoint, Value: in}, nil
}

// EvalPolicy evaluates the prepared query of in.Entrypoint on in.Value and nothing else:
// no decoding, validation, state, result check or recording. The error is non-nil when
// the evaluation fails or is undefined. It is safe for concurrent use.
func (e *Engine) EvalPolicy(ctx context.Context, in PolicyInput) error {
	q, err := e.policies.query(ctx, in.Entrypoint)
	if err != nil {
		return err
	}
	ectx, cancel := context.WithTimeout(ctx, e.opts.EvalTimeout)
	defer cancel()
	rs, err := q.Eval(ectx, rego.EvalParsedInput(in.Value))
	if err != nil {
		return fmt.Errorf("engine: evaluate %s: %w", in.Entrypoint, err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return errors.New("engine: " + in.Entrypoint + " is undefined for this input")
	}
	return nil
}
