package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/handoff-dev/handoff"

	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// Explanation is handoff.Explanation.
type Explanation = handoff.Explanation

// ExplainedReason is handoff.ExplainedReason.
type ExplainedReason = handoff.ExplainedReason

// RuleInfo is handoff.RuleInfo.
type RuleInfo = handoff.RuleInfo

// FiredRule is handoff.FiredRule.
type FiredRule = handoff.FiredRule

// InputValue is handoff.InputValue.
type InputValue = handoff.InputValue

// ErrDecisionNotFound reports that no log holds a decision with the id asked for
// (handoff.ErrDecisionNotFound).
var ErrDecisionNotFound = handoff.ErrDecisionNotFound

// EvaluateExplain decides a request without recording anything, as Evaluate does, and
// explains the decision. A request already decided is answered with the recorded
// decision, which is then explained with the state as it is now (Reproduced says
// whether that gives the same decision). It is safe for concurrent use.
func (e *Engine) EvaluateExplain(ctx context.Context, body []byte) (*Explanation, error) {
	res, prior, _, err := e.decideOnStore(ctx, body, e.opts.Clock(), nil, nil, true, pipeline.WithExplain(), pipeline.WithTimeout(replayTimeout(e.decider, 0)))
	if err != nil {
		return nil, err
	}
	d, ex := res.Decision, res.Explanation
	ex.Reproduced = true
	if prior != nil {
		ex.Reproduced = sameOutcome(prior, d)
		d = prior
	}
	ex.Decision = d
	e.decider.p.Attach(ex)
	return ex.Explanation, nil
}

// Explain finds a recorded decision by its id in every tenant's log and explains it:
// the request is evaluated again with tracing on the input recorded for it and the
// state before it, rebuilt as Replay rebuilds it. A decision of a security audit stream
// is explained from its reason codes alone: the engine blocked it before routing. So is
// a decision whose request the log holds redacted (Redaction): it cannot be evaluated
// again. It fails with ErrDecisionNotFound when no decision has the id.
func (e *Engine) Explain(ctx context.Context, decisionID string) (*Explanation, error) {
	return e.explain(ctx, nil, decisionID)
}

// ExplainCandidate explains the decision candidate's bundle makes on the input recorded
// for a decision, decided again as Replay decides it (on the state rebuilt with e's
// bundle, the one the log was recorded with): the Explanation's Decision is the
// candidate's, with the recorded decision's id and time, Recorded is the decision in
// the log, Candidate is true and Reproduced says the candidate decides as recorded. A
// record no bundle can decide again (a redacted request, or a decision of a security
// audit stream, blocked before any policy was asked) is explained as Explain explains
// it, Candidate false.
func (e *Engine) ExplainCandidate(ctx context.Context, candidate *Decider, decisionID string) (*Explanation, error) {
	return e.explain(ctx, candidate, decisionID)
}

func (e *Engine) explain(ctx context.Context, candidate *Decider, decisionID string) (*Explanation, error) {
	loc, err := e.findDecision(ctx, decisionID)
	if err != nil {
		return nil, err
	}
	if loc.entry.Redaction != nil {
		ex := &Explanation{Decision: loc.decision, Entrypoint: loc.decision.Policy.Entrypoint, Passed: []RuleInfo{},
			Redaction: loc.entry.Redaction, Request: loc.entry.Request}
		e.decider.p.Attach(&pipeline.Traced{Explanation: ex})
		return ex, nil
	}
	if loc.audit {
		ex := &Explanation{Decision: loc.decision, Entrypoint: loc.decision.Policy.Entrypoint, Passed: []RuleInfo{}, Reproduced: true}
		e.decider.p.Attach(&pipeline.Traced{Explanation: ex})
		return ex, nil
	}
	dc := e.decider
	if candidate != nil {
		dc = candidate
	}
	var out *pipeline.Traced
	stop := errors.New("found")
	err = e.replayWorkflow(ctx, dc, replayTarget{loc.tenant, loc.workflow}, replayPlan{only: loc.seq, explain: true, timeout: replayTimeout(dc, 0)},
		func(res ReplayResult) error {
			out = res.explanation
			out.Reproduced = len(res.Changed) == 0
			out.Decision = res.Recorded
			if candidate != nil {
				out.Decision, out.Recorded, out.Candidate = res.Replayed, res.Recorded, true
			}
			return stop
		})
	if err != nil && !errors.Is(err, stop) {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("%w: %s", ErrDecisionNotFound, decisionID)
	}
	dc.p.Attach(out)
	return out.Explanation, nil
}

func sameOutcome(a, b *Decision) bool {
	if a.Outcome != b.Outcome || len(a.Reasons) != len(b.Reasons) {
		return false
	}
	for i := range a.Reasons {
		if a.Reasons[i].Code != b.Reasons[i].Code {
			return false
		}
	}
	return true
}

// decisionLocation is where a recorded decision is.
type decisionLocation struct {
	tenant, workflow string
	seq              uint64
	audit            bool
	decision         *Decision
	entry            Entry
}

// findDecision finds a decision by its id in the store's record index: one read, then
// the record it names, which must hold that decision (store.ErrTampered otherwise).
func (e *Engine) findDecision(ctx context.Context, id string) (*decisionLocation, error) {
	loc, err := e.log.Find(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrDecisionNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	var found *decisionLocation
	// One read: the record the index names (workflow "" names the audit stream).
	rec, err := e.log.Record(ctx, loc.Tenant, loc.Workflow, loc.Seq)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	case rec.Hash == loc.Hash:
		ent, err := decodeEntry(rec)
		if err != nil {
			return nil, err
		}
		if ent.Decision != nil && ent.Decision.DecisionID == id {
			found = &decisionLocation{tenant: loc.Tenant, workflow: loc.Workflow, seq: rec.Seq, audit: loc.Audit(), decision: ent.Decision, entry: ent}
		}
	}
	if found == nil {
		return nil, fmt.Errorf("engine: decision %s: the index names record %d of %s, which does not hold it: %w", id, loc.Seq, chainName(loc), store.ErrTampered)
	}
	return found, nil
}

// chainName names the chain of a location in messages.
func chainName(loc store.Location) string {
	if loc.Audit() {
		return fmt.Sprintf("the audit stream of tenant %s", loc.Tenant)
	}
	return fmt.Sprintf("workflow %s of tenant %s", loc.Workflow, loc.Tenant)
}
