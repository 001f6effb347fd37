package engine

import (
	"context"

	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// ReplayOptions is governance.ReplayOptions.
type ReplayOptions = governance.ReplayOptions

// ReplayResult is governance.ReplayResult.
type ReplayResult = governance.ReplayResult

// ErrReplayDiverged reports that the state rebuilt from the recorded decisions differs
// from what the log says (governance.ErrReplayDiverged).
var ErrReplayDiverged = governance.ErrReplayDiverged

// Replay re-decides the recorded requests opts selects with candidate's bundle (e's own
// when candidate is nil), on the input recorded for each and the state before it rebuilt
// with e's bundle, and gives fn each recorded and replayed decision. Nothing is written
// to either store. See governance.Ledger.Replay.
func (e *Engine) Replay(ctx context.Context, candidate *Decider, opts ReplayOptions, fn func(ReplayResult) error) error {
	return e.ledger().Replay(ctx, candidate.pipeline(), opts, fn)
}

// pipeline is the candidate's pipeline; nil for no candidate, which the ledger reads as
// the engine's own bundle.
func (dc *Decider) pipeline() *pipeline.Pipeline {
	if dc == nil {
		return nil
	}
	return dc.p
}
