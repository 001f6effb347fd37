package engine

import (
	"context"
	"fmt"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/store"
)

// answerOf is the recorded decision a request_id answers with: the decision of the log
// record its idempotency key is bound to (the store checked that record against its
// hash). The record must be the one of that request: its decision names the request_id,
// and its request (or, when it is recorded redacted, the digest the redaction kept) has
// the digest the key was recorded with. Anything else is an altered store, and no
// decision is given: the host treats the request as blocked.
func answerOf(rec store.Record, requestID, digest string) (*Decision, error) {
	ent, err := pipeline.DecodeRecordedEntry(rec.Payload)
	if err != nil {
		return nil, fmt.Errorf("engine: the answer to request_id %s: record %d: %w", requestID, rec.Seq, err)
	}
	d, err := pipeline.DecodeDecision(ent.Decision)
	if err != nil || canary.TrustIdempotencyEntry {
		return d, err
	}
	recorded := ""
	switch {
	case ent.Redaction != nil:
		recorded = ent.Redaction.RequestDigest
	case ent.Request != nil:
		recorded, _ = canonjson.Hash(ent.Request)
	}
	if d.RequestID != requestID || recorded != digest {
		return nil, fmt.Errorf("engine: %w: the idempotency key of request_id %s is bound to record %d, which answers another request (run handoffctl verify)", store.ErrTampered, requestID, rec.Seq)
	}
	d.MarkResent()
	return d, nil
}

// keyStillFree is checked before a decision goes to the audit stream, which keeps no
// idempotency keys. The request's key was free when Submit looked it up, but the state
// the request was decided on may already hold the work of a concurrent submission of the
// same request_id: a start that lost the race for its workflow id sees the workflow
// "already exists", created by its own twin. That twin wrote its key in the same
// transaction as the state the loser read, so the key is visible now; errRedecide
// makes Submit decide again, and the new lookup answers with the recorded decision (or
// IDEMPOTENCY_KEY_REUSED when the payloads differ).
func (e *Engine) keyStillFree(ctx context.Context, tenant, requestID string) error {
	_, _, found, err := e.log.Idempotent(ctx, tenant, requestID)
	if err != nil {
		return err
	}
	if found {
		return errRedecide
	}
	return nil
}
