package engine

import (
	"context"

	"github.com/handoff-dev/handoff"
)

// Principal is handoff.Principal.
type Principal = handoff.Principal

// SubmitFrom is Submit for a request the host authenticated as p. A request whose
// tenant_id or actor is not p's, or that claims a role p does not hold, is blocked with
// IDENTITY_MISMATCH and recorded in p's tenant's security audit stream only: nothing of
// the tenant it names is read or written. An undecodable request goes to p's tenant's
// audit stream too.
func (e *Engine) SubmitFrom(ctx context.Context, body []byte, p Principal) (*Decision, error) {
	return e.submitRetrying(ctx, body, e.opts.Clock(), &p)
}

// EvaluateFrom is Evaluate for a request the host authenticated as p, checked as
// SubmitFrom checks it. Nothing is recorded.
func (e *Engine) EvaluateFrom(ctx context.Context, body []byte, p Principal) (*Decision, error) {
	return e.evaluateTraced(ctx, body, e.opts.Clock(), &p)
}
