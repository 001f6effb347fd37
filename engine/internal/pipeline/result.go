package pipeline

import (
	"fmt"
	"time"

	"github.com/handoff-dev/handoff/internal/canonjson"
)

// Result is what Decide returns: the decision, the workflow's state after it (nil when
// nothing changes) and, when asked for, the explanation; its methods say where and
// how the decision is recorded.
type Result struct {
	Decision    *Decision
	Next        *State
	Explanation *Traced
	flight      *flight
}

// Tenant is the tenant whose streams the decision belongs to: the request's, or its
// authenticated principal's when it could not be trusted with its own.
func (r *Result) Tenant() string { return r.flight.tenant }

// Workflow is the workflow the request was routed to (a start given no id gets one).
func (r *Result) Workflow() string { return r.flight.workflow }

// Creates says the request is a start: recorded, it creates its workflow.
func (r *Result) Creates() bool { return r.flight.create }

// Audit says the decision goes to the tenant's security audit stream: the request
// could not be trusted or routed.
func (r *Result) Audit() bool { return r.flight.audit }

// StateVersion is the version of the state the request was decided on.
func (r *Result) StateVersion() uint64 {
	if r.flight.state == nil {
		return 0
	}
	return r.flight.state.StateVersion
}

// State is the state the request was decided on: nil for a start, or when no workflow
// could be loaded.
func (r *Result) State() *State { return r.flight.state }

// Validation lists the errors found before the policy was asked.
func (r *Result) Validation() []ValidationError { return r.flight.validation }

// Derived is the derived input the policy read (redacted when the request is).
func (r *Result) Derived() map[string]any { return r.flight.derived }

// Unrecordable is handoff.ErrUnrecordable when the request carries a secret no record
// can leave out; nil otherwise.
func (r *Result) Unrecordable() error { return r.flight.unrecordable }

// Entry is the canonical encoding of the log record of d, this result's decision as
// it is recorded (a LogEntry): the request (its redacted copy when it carries content
// to redact, a stub when it did not decode), the validation errors, the derived input,
// the time. The request's encoding is the one Decode made.
func (r *Result) Entry(d *Decision) ([]byte, error) {
	f := r.flight
	var req any = f.req.value
	switch {
	case f.redaction != nil:
		req = f.redacted
	case f.req.value == nil:
		req = map[string]any{"undecodable": true, "digest": f.req.digest, "bytes": len(f.req.body)}
	case f.req.canonical != nil:
		req = f.req.canonical
	}
	ent := map[string]any{"request": req, "validation": ValidationValues(f.validation), "derived": f.derived, "now": FormatTime(f.now), "decision": d}
	if f.redaction != nil {
		ent["redaction"] = f.redaction
	}
	b, err := canonjson.Marshal(ent)
	if err != nil {
		return nil, fmt.Errorf("encode log record: %w", err)
	}
	return b, nil
}

// Request is the request decided.
func (r *Result) Request() *Request { return r.flight.req }

// Now is the decision's time.
func (r *Result) Now() time.Time { return r.flight.now }
