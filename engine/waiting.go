package engine

import (
	"context"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/guide"
)

// Waiting is handoff.Waiting.
type Waiting = handoff.Waiting

// Party is handoff.Party.
type Party = handoff.Party

// Step is handoff.Step.
type Step = handoff.Step

// Citation is handoff.Citation.
type Citation = handoff.Citation

// Lead is handoff.Lead.
type Lead = handoff.Lead

// Config returns a pack's configuration tables (its CUE value config, exported beside
// the contract tables), or false when the pack has none.
func (dc *Decider) Config(pack string) (map[string]any, bool) {
	p, err := dc.contracts.Pack(pack)
	if err != nil || p == nil || p.Config == nil {
		return nil, false
	}
	return p.Config, true
}

// Waiting says what the workflow in st waits for now: WaitingAt at time.Now().
func (dc *Decider) Waiting(st *State) (*Waiting, error) {
	return dc.WaitingAt(context.Background(), st, time.Now())
}

// WaitingAt says what the workflow in st waits for at time at, the time every step is
// put to the policy at. It fails only when the bundle has no pack st.Pack or the
// policy cannot be evaluated. WaitingAt is safe for concurrent use.
func (dc *Decider) WaitingAt(ctx context.Context, st *State, at time.Time) (*Waiting, error) {
	return guide.WaitingAt(ctx, dc.p, st, at)
}

// Actors says who may act on the workflow in st and what each may send as WaitingAt
// derives them, before any step is put to the policy: a step listed may still be
// refused, and an agent that only hands work to one acting now is listed too. It
// evaluates no policy, for lists of many workflows (the console's inbox).
func (dc *Decider) Actors(st *State) ([]Party, error) {
	return guide.Actors(dc.contracts, st)
}

// acting names the agents and human roles Actors lists, without their steps.
func (dc *Decider) acting(st *State) (agents, roles []string, err error) {
	return guide.Acting(dc.contracts, st)
}
