package engine

import (
	"context"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
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
	res, prior, _, err := e.decideOnStore(ctx, body, e.opts.Clock(), nil, nil, true, pipeline.WithExplain(), pipeline.WithTimeout(governance.ExplainTimeout(e.Decider().p, 0)))
	if err != nil {
		return nil, err
	}
	return e.ledger().ExplainEvaluated(res, prior), nil
}

// Explain finds a recorded decision by its id in every tenant's log and explains it,
// evaluated again with tracing on the input recorded for it and the state before it. It
// fails with ErrDecisionNotFound when no decision has the id. See
// governance.Ledger.Explain.
func (e *Engine) Explain(ctx context.Context, decisionID string) (*Explanation, error) {
	return e.ledger().Explain(ctx, decisionID)
}

// ExplainCandidate explains the decision candidate's bundle makes on the input recorded
// for a decision, decided again as Replay decides it: the Explanation's Decision is the
// candidate's, Recorded the one in the log. See governance.Ledger.ExplainCandidate.
func (e *Engine) ExplainCandidate(ctx context.Context, candidate *Decider, decisionID string) (*Explanation, error) {
	return e.ledger().ExplainCandidate(ctx, candidate.pipeline(), decisionID)
}
