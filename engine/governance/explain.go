package governance

import (
	"context"
	"errors"
	"fmt"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// ExplainEvaluated explains a decision made on the store's state with
// pipeline.WithExplain (Engine.EvaluateExplain): res is that decision, prior the one
// recorded for the same request, if any. A request already decided is answered with the
// recorded decision, explained with the state as it is now: Reproduced says whether
// that gives the same decision.
func (l *Ledger) ExplainEvaluated(res *pipeline.Result, prior *handoff.Decision) *handoff.Explanation {
	d, ex := res.Decision, res.Explanation
	ex.Reproduced = true
	if prior != nil {
		ex.Reproduced = sameOutcome(prior, d)
		d = prior
	}
	ex.Decision = d
	l.p.Attach(ex)
	return ex.Explanation
}

// Explain finds a recorded decision by its id in every tenant's log and explains it:
// the request is evaluated again with tracing on the input recorded for it and the
// state before it, rebuilt as Replay rebuilds it. A decision of a security audit stream
// is explained from its reason codes alone: the engine blocked it before routing. So is
// a decision whose request the log holds redacted (handoff.Redaction): it cannot be
// evaluated again. It fails with handoff.ErrDecisionNotFound when no decision has the id.
func (l *Ledger) Explain(ctx context.Context, decisionID string) (*handoff.Explanation, error) {
	return l.explain(ctx, nil, decisionID)
}

// ExplainCandidate explains the decision candidate's bundle makes on the input recorded
// for a decision, decided again as Replay decides it (on the state rebuilt with the
// ledger's bundle, the one the log was recorded with): the Explanation's Decision is the
// candidate's, with the recorded decision's id and time, Recorded is the decision in
// the log, Candidate is true and Reproduced says the candidate decides as recorded. A
// record no bundle can decide again (a redacted request, or a decision of a security
// audit stream, blocked before any policy was asked) is explained as Explain explains
// it, Candidate false.
func (l *Ledger) ExplainCandidate(ctx context.Context, candidate *pipeline.Pipeline, decisionID string) (*handoff.Explanation, error) {
	return l.explain(ctx, candidate, decisionID)
}

func (l *Ledger) explain(ctx context.Context, candidate *pipeline.Pipeline, decisionID string) (*handoff.Explanation, error) {
	loc, err := l.findDecision(ctx, decisionID)
	if err != nil {
		return nil, err
	}
	if loc.entry.Redaction != nil {
		ex := &handoff.Explanation{Decision: loc.decision, Entrypoint: loc.decision.Policy.Entrypoint, Passed: []handoff.RuleInfo{},
			Redaction: loc.entry.Redaction, Request: loc.entry.Request}
		l.p.Attach(&pipeline.Traced{Explanation: ex})
		return ex, nil
	}
	if loc.audit {
		ex := &handoff.Explanation{Decision: loc.decision, Entrypoint: loc.decision.Policy.Entrypoint, Passed: []handoff.RuleInfo{}, Reproduced: true}
		l.p.Attach(&pipeline.Traced{Explanation: ex})
		return ex, nil
	}
	dc := l.p
	if candidate != nil {
		dc = candidate
	}
	var out *pipeline.Traced
	stop := errors.New("found")
	err = l.replayWorkflow(ctx, dc, replayTarget{loc.tenant, loc.workflow}, replayPlan{only: loc.seq, explain: true, timeout: ExplainTimeout(dc, 0)},
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
		return nil, fmt.Errorf("%w: %s", handoff.ErrDecisionNotFound, decisionID)
	}
	dc.Attach(out)
	return out.Explanation, nil
}

func sameOutcome(a, b *handoff.Decision) bool {
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
