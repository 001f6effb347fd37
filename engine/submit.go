package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/internal/failpoint"
	"github.com/handoff-dev/handoff/store"
)

// maxRaceRetries bounds how often Submit re-decides a request that lost a race for the
// workflow head. Each retry reads the new state; a request carrying expected_version is
// then answered STALE_STATE_VERSION by the policy.
const maxRaceRetries = 8

// errRedecide says the state a request was decided on has moved (another append won the
// head, took the workflow id or the request_id): Submit decides it again on the new state.
var errRedecide = errors.New("engine: decide again on the new state")

// Evaluate decides a request without recording anything: a dry run, at the time of
// Options.Clock. It is safe for concurrent use. The error is non-nil only when no
// decision could be made (the store failed); the host must then treat the request as
// blocked.
func (e *Engine) Evaluate(ctx context.Context, body []byte) (*Decision, error) {
	return e.EvaluateAt(ctx, body, e.opts.Clock())
}

// EvaluateAt is Evaluate at the time at: the decision's decided_at and the policies'
// input.now. Scenario files use it to play deadlines and expiries step by step.
func (e *Engine) EvaluateAt(ctx context.Context, body []byte, at time.Time) (*Decision, error) {
	return e.evaluateTraced(ctx, body, at, nil)
}

// evaluateTraced is a dry run in a span of its own, its stages timed.
func (e *Engine) evaluateTraced(ctx context.Context, body []byte, at time.Time, from *Principal) (d *Decision, err error) {
	ctx, span := e.decisionSpan(ctx, "handoff.evaluate")
	defer func() { endDecisionSpan(span, d, err) }()
	res, prior, err := e.evaluate(ctx, body, at, from, evaluation{stages: e.stages(ctx)})
	if err != nil || prior != nil {
		return prior, err
	}
	return res.decision, nil
}

// evaluate decides a request on the state of the store, recording nothing. A request
// decided before is answered by prior, the recorded decision.
func (e *Engine) evaluate(ctx context.Context, body []byte, at time.Time, from *Principal, ev evaluation) (res result, prior *Decision, err error) {
	if err := e.acquire(ctx); err != nil {
		return result{}, nil, err
	}
	defer e.release()
	end := ev.stages.start(StageDecode)
	r, prior, _, err := e.prepare(ctx, body, at, from)
	end()
	if err != nil {
		return result{}, nil, err
	}
	if prior != nil && !ev.explain {
		return result{}, prior, nil
	}
	return e.decider.decide(ctx, r, ev), prior, nil
}

// prepare decodes a request, checks it against the principal that sent it (when the
// host authenticated one) and routes it on the store's state. A request decided before
// is answered by prior, the recorded decision. keyFree says the request_id was looked
// up and found unrecorded.
func (e *Engine) prepare(ctx context.Context, body []byte, at time.Time, from *Principal) (r *request, prior *Decision, keyFree bool, err error) {
	r = e.decider.decodeRequest(body, at)
	r.decisionID = newDecisionID()
	if r.authenticate(from) {
		return r, nil, false, nil
	}
	if prior, err = e.idempotency(ctx, r); err != nil {
		return nil, nil, false, err
	}
	keyFree = r.requestID != "" && !r.audit
	if err := e.route(ctx, r); err != nil {
		return nil, nil, false, err
	}
	return r, prior, keyFree, nil
}

// idempotency looks the request_id up: the recorded decision when the same request was
// decided before; otherwise nil, with IDEMPOTENCY_KEY_REUSED added to the request's
// validation errors when the id was used for another request.
func (e *Engine) idempotency(ctx context.Context, r *request) (*Decision, error) {
	if r.value == nil || r.requestID == "" {
		return nil, nil
	}
	digest, answer, found, err := e.log.Idempotent(ctx, r.tenant, r.requestID)
	if err != nil || !found {
		return nil, err
	}
	if digest == r.digest {
		return answerOf(answer, r.requestID, digest)
	}
	r.validation = append(r.validation, ValidationError{Code: "IDEMPOTENCY_KEY_REUSED", Path: "request_id",
		Message: fmt.Sprintf("request_id %s was already used for another request", r.requestID)})
	r.audit = true
	return nil, nil
}

// Submit decides a request and records it atomically with the state it produces: the
// decision is returned only once durable. The same request again returns the original
// decision byte for byte; the same request_id with another payload is blocked with
// IDEMPOTENCY_KEY_REUSED. A block is a Decision, not an error; the error is non-nil
// only when no decision could be made or recorded, and the host must then treat the
// request as blocked. Submit is safe for concurrent use.
func (e *Engine) Submit(ctx context.Context, body []byte) (*Decision, error) {
	return e.SubmitAt(ctx, body, e.opts.Clock())
}

// SubmitAt is Submit at the time at instead of Options.Clock's: the decision's
// decided_at and the policies' input.now. It is for replaying a backfill or playing a
// scenario's deadlines; a host keeps its own clock in Options.Clock.
func (e *Engine) SubmitAt(ctx context.Context, body []byte, at time.Time) (*Decision, error) {
	return e.submitRetrying(ctx, body, at, nil)
}

// submitRetrying decides and records a request, deciding it again while the state it
// was decided on moves.
func (e *Engine) submitRetrying(ctx context.Context, body []byte, at time.Time, from *Principal) (d *Decision, err error) {
	ctx, span := e.decisionSpan(ctx, "handoff.submit")
	defer func() { endDecisionSpan(span, d, err) }()
	for range maxRaceRetries {
		d, err := e.submitOnce(ctx, body, at, from)
		if errors.Is(err, store.ErrStale) || errors.Is(err, errRedecide) {
			continue
		}
		return d, err
	}
	return nil, fmt.Errorf("engine: workflow too contended: gave up after %d attempts", maxRaceRetries)
}

func (e *Engine) submitOnce(ctx context.Context, body []byte, at time.Time, from *Principal) (*Decision, error) {
	st := e.stages(ctx)
	r, d, next, keyFree, err := e.decideForSubmit(ctx, body, at, from, st)
	if r == nil || err != nil {
		return d, err
	}
	if r.redactErr != nil {
		return nil, r.redactErr
	}
	d.Recorded = true
	if err := failpoint.Eval(ctx, "engine/before-commit"); err != nil {
		return nil, err
	}
	end := st.start(StageCommit)
	if r.audit || (r.create && next == nil) {
		if keyFree {
			err = e.keyStillFree(ctx, r)
		}
		if err == nil {
			err = e.recordAudit(ctx, r, d)
		}
	} else {
		err = e.record(ctx, r, d, next)
	}
	end()
	if err != nil {
		return nil, err
	}
	if err := failpoint.Eval(ctx, "engine/after-commit"); err != nil {
		return nil, err
	}
	if !d.Resent() { // a twin recorded it first, and logged it
		e.logDecision(ctx, d)
	}
	return d, nil
}

// decideForSubmit decides a request to be recorded. r is nil when the request was
// decided before: d is then the recorded decision. keyFree says the request_id was
// looked up and found unrecorded.
func (e *Engine) decideForSubmit(ctx context.Context, body []byte, at time.Time, from *Principal, st *stages) (r *request, d *Decision, next *State, keyFree bool, err error) {
	if err := e.acquire(ctx); err != nil {
		return nil, nil, nil, false, err
	}
	defer e.release()
	end := st.start(StageDecode)
	r, prior, keyFree, err := e.prepare(ctx, body, at, from)
	end()
	if err != nil || prior != nil {
		return nil, prior, nil, false, err
	}
	if err := failpoint.Eval(ctx, "engine/before-decide"); err != nil {
		return nil, nil, nil, false, err
	}
	res := e.decider.decide(ctx, r, evaluation{stages: st})
	if err := failpoint.Eval(ctx, "engine/after-decide"); err != nil {
		return nil, nil, nil, false, err
	}
	return r, res.decision, res.next, keyFree, nil
}

// acquire takes a decision slot, waiting while every slot is taken.
func (e *Engine) acquire(ctx context.Context) error {
	select {
	case e.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *Engine) release() { <-e.slots }

// entry is the log record of a decision.
func (r *request) entry(d *Decision) writtenEntry {
	var req any = r.value
	if r.value == nil {
		req = map[string]any{"undecodable": true, "digest": r.digest, "bytes": len(r.body)}
	}
	v := r.validation
	if v == nil {
		v = []ValidationError{}
	}
	if r.redaction != nil {
		req = r.redacted
	}
	return writtenEntry{Request: req, Validation: v, Derived: r.derived, Now: formatTime(r.now), Decision: d, Redaction: r.redaction}
}

// record appends the decision to its workflow's log with the new state, head and
// idempotency key in one transaction.
func (e *Engine) record(ctx context.Context, r *request, d *Decision, next *State) error {
	payload, err := canonjson.Marshal(r.entry(d))
	if err != nil {
		return fmt.Errorf("engine: encode log record: %w", err)
	}
	a := store.Append{
		Tenant: r.tenant, Workflow: r.workflow, Create: r.create,
		ExpectedVersion: r.state.StateVersion, BumpVersion: next != nil,
		Records:        []store.NewRecord{{Type: "decision", Payload: payload, ID: d.DecisionID}},
		IdempotencyKey: r.requestID, RequestDigest: r.digest, Time: r.now,
	}
	if d.Outcome != Block {
		// The decision the workflow now stands on: the head keeps it, so that Standing
		// and the workflow lists read it at once, however many blocks follow.
		a.Standing = string(d.Outcome)
	}
	if next != nil {
		if a.State, err = json.Marshal(next); err != nil {
			return fmt.Errorf("engine: encode state: %w", err)
		}
	}
	_, err = e.log.Append(ctx, a)
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		orig, derr := answerOf(dup.Record, r.requestID, r.digest)
		if derr != nil {
			return derr
		}
		*d = *orig
		return nil
	}
	if errors.Is(err, store.ErrIdempotencyKeyReused) {
		return errRedecide // the key is now taken, and will be refused
	}
	if errors.Is(err, store.ErrExists) {
		return errRedecide // another start took the workflow id
	}
	return err
}

// recordAudit appends a request too broken to trust to its tenant's security audit stream.
func (e *Engine) recordAudit(ctx context.Context, r *request, d *Decision) error {
	payload, err := canonjson.Marshal(r.entry(d))
	if err != nil {
		return fmt.Errorf("engine: encode audit record: %w", err)
	}
	_, err = e.log.Audit(ctx, r.tenant, store.NewRecord{Type: "security", Payload: payload, ID: d.DecisionID}, r.now)
	return err
}

func decodeDecision(b []byte) (*Decision, error) {
	var d Decision
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("engine: decode recorded decision: %w", err)
	}
	return &d, nil
}
