package engine

import (
	"github.com/handoff-dev/handoff/engine/governance"
)

// ShadowOptions is governance.ShadowOptions.
type ShadowOptions = governance.ShadowOptions

// ShadowStats is governance.ShadowStats.
type ShadowStats = governance.ShadowStats

// ShadowDisagreement is governance.ShadowDisagreement: one line of a shadow log.
type ShadowDisagreement = governance.ShadowDisagreement

// ShadowSide is governance.ShadowSide: one bundle's decision in a disagreement.
type ShadowSide = governance.ShadowSide

// DisagreementKey is governance.DisagreementKey.
type DisagreementKey = governance.DisagreementKey

// Shadow is a candidate bundle deciding every decision this engine records again, in
// the background, beside the live bundle (governance.Shadow). It never delays or
// changes a live decision.
type Shadow struct {
	*governance.Shadow
	e         *Engine
	candidate *Decider
}

// StartShadow starts a shadow of candidate on e: from now on, every decision e records
// is queued for the candidate, decided again exactly as Replay decides it, and each one
// the candidate would change is appended to the shadow log of opts. Close stops it.
func (e *Engine) StartShadow(candidate *Decider, opts ShadowOptions) (*Shadow, error) {
	gs, err := governance.NewShadow(e.ledger, candidate.p, opts)
	if err != nil {
		return nil, err
	}
	e.OnRecorded(gs.Offer)
	return &Shadow{Shadow: gs, e: e, candidate: candidate}, nil
}

// Candidate is the shadow's candidate bundle.
func (s *Shadow) Candidate() *Decider { return s.candidate }

// Promote makes the candidate the engine's live bundle, for every decision that starts
// from now on, and stops the shadow (its log stays readable). It returns the bundle that
// was live.
func (s *Shadow) Promote() (old *Decider) {
	s.Stop()
	return s.e.SwapDecider(s.candidate)
}
