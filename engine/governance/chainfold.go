package governance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/store"
)

// visit is one record of a workflow with the state before it. The state is the walk's
// own: a visitor reads it and must not keep or change it.
type visit struct {
	rec      store.Record
	ent      pipeline.RecordedEntry
	recorded *handoff.Decision
	state    *handoff.State
	now      time.Time
	create   bool
}

// chainFold rebuilds a workflow's state by folding its recorded decisions in log order
// from the state its start created, as the engine did when it recorded them.
type chainFold struct {
	l     *Ledger
	t     replayTarget
	state *handoff.State // nil before the first record
	last  uint64         // seq of the last record folded

	// The last decision folded that was not a block: the standing one.
	standingSeq uint64
	standing    handoff.Outcome
}

func (f *chainFold) diverged(seq uint64, format string, args ...any) error {
	return fmt.Errorf("%w: tenant %s workflow %s record %d: %s", ErrReplayDiverged, f.t.tenant, f.t.workflow, seq, fmt.Sprintf(format, args...))
}

// step calls fn (when not nil) with one record and the state before it, then folds the
// record's decision and checks the recorded state_version against the fold.
func (f *chainFold) step(rec store.Record, fn func(visit) error) error {
	t := f.t
	ent, err := pipeline.DecodeRecordedEntry(rec.Payload)
	if err != nil {
		return fmt.Errorf("engine: tenant %s workflow %s record %d: %w", t.tenant, t.workflow, rec.Seq, err)
	}
	recorded, err := pipeline.DecodeDecision(ent.Decision)
	if err != nil {
		return err
	}
	now, err := time.Parse("2006-01-02T15:04:05.000Z", ent.Now)
	if err != nil {
		return fmt.Errorf("engine: record %d: time %q: %w", rec.Seq, ent.Now, err)
	}
	create := f.state == nil
	if create {
		if recorded.Kind != "start" {
			return f.diverged(rec.Seq, "the first record is of kind %s, not a start", recorded.Kind)
		}
		org, _ := ent.Request["organization_id"].(string)
		subject, _ := ent.Request["subject_id"].(string)
		f.state = pipeline.NewState(recorded.WorkflowID, recorded.TenantID, org, recorded.Pack, subject, recorded.StatusBefore, ent.Now)
	}
	state := f.state
	f.last = rec.Seq
	if recorded.Outcome != handoff.Block {
		f.standingSeq, f.standing = rec.Seq, recorded.Outcome
	}
	if fn != nil {
		if err := fn(visit{rec: rec, ent: ent, recorded: recorded, state: state, now: now, create: create}); err != nil {
			return err
		}
	}
	if recorded.Outcome == handoff.Block || (!create && len(recorded.Events) == 0 && recorded.StatusAfter == recorded.StatusBefore) {
		if recorded.StateVersion != state.StateVersion {
			return f.diverged(rec.Seq, "state_version %d recorded, %d rebuilt", recorded.StateVersion, state.StateVersion)
		}
		return nil
	}
	pc, err := f.l.p.Contracts().Pack(state.Pack)
	if err != nil {
		return err
	}
	if pc == nil {
		return f.diverged(rec.Seq, "pack %s is not in the bundle the store was opened with", state.Pack)
	}
	// The state is folded in place: visitors never keep or change it.
	if err := pipeline.Fold(state, recorded, pc, ent.Now); err != nil {
		return f.diverged(rec.Seq, "%v", err)
	}
	state.StateVersion++
	if recorded.StateVersion != state.StateVersion {
		return f.diverged(rec.Seq, "state_version %d recorded, %d rebuilt", recorded.StateVersion, state.StateVersion)
	}
	return nil
}

// walkWorkflow calls fn for every record of a workflow in order, with the state before
// it rebuilt by folding the recorded decisions, and checks the fold against every
// recorded state_version and, at the end, against the stored snapshot and the head's
// state version (ErrReplayDiverged). Records appended while it walks are walked too: the
// snapshot and head are read together, and the walk goes on until the head is the last
// record folded.
func (l *Ledger) walkWorkflow(ctx context.Context, t replayTarget, fn func(visit) error) error {
	f := &chainFold{l: l, t: t}
	for {
		err := l.log.Records(ctx, t.tenant, t.workflow, f.last+1, func(rec store.Record) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return f.step(rec, fn)
		})
		if err != nil {
			return err
		}
		snap, head, err := l.log.State(ctx, t.tenant, t.workflow)
		if err != nil {
			return err
		}
		switch {
		case head.Seq > f.last:
			continue
		case head.Seq < f.last:
			return fmt.Errorf("%w: tenant %s workflow %s: the head is at record %d, the log goes on to %d", ErrReplayDiverged, t.tenant, t.workflow, head.Seq, f.last)
		case f.state == nil:
			return nil
		}
		if err := f.compare(snap, head); err != nil {
			return err
		}
		return f.compareStanding(head)
	}
}

// compareStanding checks the standing decision the head names against the fold's: a
// head naming another would list the workflow as waiting for what it does not wait for.
func (f *chainFold) compareStanding(head store.Head) error {
	if head.StandingUnknown || head.StandingSeq == f.standingSeq && head.Standing == string(f.standing) {
		return nil
	}
	t := f.t
	return fmt.Errorf("%w: tenant %s workflow %s: the head names record %d (%q) as the standing decision, but the last decision that was not a block is record %d (%q)",
		ErrReplayDiverged, t.tenant, t.workflow, head.StandingSeq, head.Standing, f.standingSeq, f.standing)
}

// compare checks the stored snapshot and head against the fold.
func (f *chainFold) compare(snap []byte, head store.Head) error {
	if canary.SkipSnapshotFold {
		return nil
	}
	t := f.t
	stored, err := pipeline.DecodeState(snap)
	if err != nil {
		return fmt.Errorf("%w: tenant %s workflow %s: the stored state snapshot is undecodable", ErrReplayDiverged, t.tenant, t.workflow)
	}
	a, err1 := canonjson.Marshal(stored)
	b, err2 := canonjson.Marshal(f.state)
	if err := errors.Join(err1, err2); err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%w: tenant %s workflow %s: the stored state snapshot differs from the fold of its decisions", ErrReplayDiverged, t.tenant, t.workflow)
	}
	if head.StateVersion != f.state.StateVersion {
		return fmt.Errorf("%w: tenant %s workflow %s: the head holds state version %d, the fold of its decisions %d", ErrReplayDiverged, t.tenant, t.workflow, head.StateVersion, f.state.StateVersion)
	}
	return nil
}
