package engine

import (
	"context"

	"github.com/handoff-dev/handoff/store"
)

// keyStillFree is checked before a decision goes to the audit stream, which keeps no
// idempotency keys. The request's key was free when Submit looked it up, but the state
// the request was decided on may already hold the work of a concurrent submission of the
// same request_id: a start that lost the race for its workflow id sees the workflow
// "already exists", created by its own twin. That twin wrote its key in the same
// transaction as the state the loser read, so the key is visible now; store.ErrStale
// makes Submit decide again, and the new lookup answers with the recorded decision (or
// IDEMPOTENCY_KEY_REUSED when the payloads differ).
func (e *Engine) keyStillFree(ctx context.Context, r *request) error {
	_, _, found, err := e.log.Idempotent(ctx, r.tenant, r.requestID)
	if err != nil {
		return err
	}
	if found {
		return store.ErrStale
	}
	return nil
}
