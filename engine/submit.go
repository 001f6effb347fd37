package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
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
	res, prior, _, err := e.decideOnStore(ctx, body, at, from, e.stages(ctx), false)
	if err != nil || prior != nil {
		return prior, err
	}
	return res.Decision, nil
}

// decideOnStore decides a request on the state of the store, recording nothing: it
// decodes the request once, reads what the store knows of it (the request_id, the
// workflow's owner and state) and enters the pipeline once. A request decided before is
// answered by prior, the recorded decision (decided again too when again is set).
// keyFree says the request_id was looked up and found unrecorded.
func (e *Engine) decideOnStore(ctx context.Context, body []byte, at time.Time, from *Principal, st *stages, again bool, opts ...pipeline.Option) (res *pipeline.Result, prior *Decision, keyFree bool, err error) {
	if err := e.acquire(ctx); err != nil {
		return nil, nil, false, err
	}
	defer e.release()
	dc := e.Decider()
	end := st.start(StageDecode)
	in, prior, keyFree, err := e.input(ctx, dc, body, at, from)
	end()
	if err != nil || prior != nil && !again {
		return nil, prior, false, err
	}
	if err := failpoint.Eval(ctx, "engine/before-decide"); err != nil {
		return nil, nil, false, err
	}
	res, err = dc.p.Decide(ctx, in, append(opts, pipeline.WithStages(st.start))...)
	if err != nil {
		return nil, nil, false, err
	}
	if err := failpoint.Eval(ctx, "engine/after-decide"); err != nil {
		return nil, nil, false, err
	}
	return res, prior, keyFree, nil
}

// input decodes a request and reads what the store knows of it: the decision recorded
// for its request_id (prior), whether that id was used for another request, and the
// workflow's owner and state. keyFree says the request_id was looked up and found
// unrecorded. A request that is not its principal's reads nothing.
func (e *Engine) input(ctx context.Context, dc *Decider, body []byte, at time.Time, from *Principal) (in pipeline.Input, prior *Decision, keyFree bool, err error) {
	req := dc.p.Decode(body, from)
	in = pipeline.Input{Request: req, Now: at, DecisionID: newDecisionID()}
	if !req.Trusted() {
		return in, nil, false, nil
	}
	if prior, in.Facts.KeyReused, err = e.idempotency(ctx, req); err != nil {
		return in, nil, false, err
	}
	keyFree = req.ID() != "" && !in.Facts.KeyReused
	err = e.route(ctx, dc, req, &in)
	return in, prior, keyFree, err
}

// idempotency looks the request_id up: the recorded decision when the same request was
// decided before; reused when the id was used for another request.
func (e *Engine) idempotency(ctx context.Context, req *pipeline.Request) (prior *Decision, reused bool, err error) {
	if req.ID() == "" {
		return nil, false, nil
	}
	digest, answer, found, err := e.log.Idempotent(ctx, req.Tenant(), req.ID())
	if err != nil || !found {
		return nil, false, err
	}
	if digest == req.Digest() {
		prior, err = answerOf(answer, req.ID(), digest)
		return prior, false, err
	}
	return nil, true, nil
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
	res, prior, keyFree, err := e.decideOnStore(ctx, body, at, from, st, false)
	if err != nil || prior != nil {
		return prior, err
	}
	if err := res.Unrecordable(); err != nil {
		return nil, err
	}
	d := res.Decision
	d.Recorded = true
	if err := failpoint.Eval(ctx, "engine/before-commit"); err != nil {
		return nil, err
	}
	end := st.start(StageCommit)
	if res.Audit() || (res.Creates() && res.Next == nil) {
		if keyFree {
			err = e.keyStillFree(ctx, res.Tenant(), res.Request().ID())
		}
		if err == nil {
			err = e.recordAudit(ctx, res, d)
		}
	} else {
		err = e.record(ctx, res, d)
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
		e.announce(d)
	}
	return d, nil
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

// record appends the decision to its workflow's log with the new state, head, summary
// and idempotency key in one transaction.
func (e *Engine) record(ctx context.Context, res *pipeline.Result, d *Decision) error {
	payload, err := res.Entry(d)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	req := res.Request()
	a := store.Append{
		Tenant: res.Tenant(), Workflow: res.Workflow(), Create: res.Creates(),
		ExpectedVersion: res.StateVersion(), BumpVersion: res.Next != nil,
		Records:        []store.NewRecord{{Type: "decision", Payload: payload, ID: d.DecisionID}},
		IdempotencyKey: req.ID(), RequestDigest: req.Digest(), Time: res.Now(),
		// The row the lists show, as of this decision: they read it, not the log.
		Summary: e.recordedSummary(res.Next, res.State(), d, res.Now()),
	}
	if d.Outcome != Block {
		// The decision the workflow now stands on: the head keeps it, so that Standing
		// and the workflow lists read it at once, however many blocks follow.
		a.Standing = string(d.Outcome)
	}
	if res.Next != nil {
		if a.State, err = json.Marshal(res.Next); err != nil {
			return fmt.Errorf("engine: encode state: %w", err)
		}
	}
	_, err = e.log.Append(ctx, a)
	if err == nil && res.Next != nil {
		// The next request on the workflow reads this state: it need not decode it.
		e.states.committed(res.Tenant(), res.Workflow(), a.State, res.Next)
		return nil
	}
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		orig, derr := answerOf(dup.Record, req.ID(), req.Digest())
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
func (e *Engine) recordAudit(ctx context.Context, res *pipeline.Result, d *Decision) error {
	payload, err := res.Entry(d)
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	_, err = e.log.Audit(ctx, res.Tenant(), store.NewRecord{Type: "security", Payload: payload, ID: d.DecisionID}, res.Now())
	return err
}
