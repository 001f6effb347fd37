package engine

import "time"

// RecordedSummary is the summary the engine gives the store when decision d, recorded at
// at, leaves a workflow in state st: for tests that build a store's histories without
// deciding them.
func (e *Engine) RecordedSummary(st *State, d *Decision, at time.Time) []byte {
	return e.recordedSummary(st, nil, d, at)
}
