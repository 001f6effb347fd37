package engine

import (
	"context"

	"github.com/handoff-dev/handoff"
)

// DecisionLogOptions is handoff.DecisionLogOptions.
type DecisionLogOptions = handoff.DecisionLogOptions

// DecisionLogEvent is handoff.DecisionLogEvent.
type DecisionLogEvent = handoff.DecisionLogEvent

// BundleInfo is handoff.BundleInfo.
type BundleInfo = handoff.BundleInfo

// DecisionLog calls fn for every selected decision in OPA's decision-log shape, each
// workflow decision with the state before it, the fields a pack lists as sensitive
// removed. See governance.Ledger.DecisionLog.
func (e *Engine) DecisionLog(ctx context.Context, opts DecisionLogOptions, fn func(DecisionLogEvent) error) error {
	return e.ledger().DecisionLog(ctx, opts, fn)
}
