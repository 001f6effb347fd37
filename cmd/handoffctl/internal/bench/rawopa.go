package bench

import (
	"context"

	"github.com/handoff-dev/handoff/engine"
)

// This file is the only one that uses the engine's raw policy API (PolicyInput and
// EvalPolicy), which the raw OPA mode is built on: when that API changes, only this
// file does.

// policyJob is one evaluation of the raw OPA mode: a pack's prepared query and the
// input the engine built for a request.
type policyJob struct {
	in engine.PolicyInput
}

// valid says whether the job has a query to evaluate: a request the engine could not
// route to a policy has none.
func (j policyJob) valid() bool { return j.in.Entrypoint() != "" }

// newPolicyJob runs the steps of a decision that come before the policy on body and
// returns the job they prepare. Nothing is decided or recorded.
func newPolicyJob(ctx context.Context, e *engine.Engine, body []byte) (policyJob, error) {
	in, err := e.PolicyInput(ctx, body)
	return policyJob{in: in}, err
}

// eval evaluates the job's query alone on e.
func (j policyJob) eval(ctx context.Context, e *engine.Engine) error {
	return e.Decider().EvalPolicy(ctx, j.in)
}

// expressions counts the expressions the job's evaluation enters.
func (j policyJob) expressions(ctx context.Context, e *engine.Engine) (int, error) {
	return e.Decider().PolicyExpressions(ctx, j.in)
}

// pack and kind are what the job decides.
func (j policyJob) pack() string { return j.in.Pack() }
func (j policyJob) kind() string { return j.in.Kind() }
