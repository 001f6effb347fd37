package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// State returns a workflow's current state. Every read is scoped by tenant: another
// tenant's workflow is reported as not found (errors.Is(err, store.ErrNotFound)).
func (e *Engine) State(ctx context.Context, tenant, workflow string) (*State, error) {
	snap, _, err := e.log.State(ctx, tenant, workflow)
	if err != nil {
		return nil, err
	}
	st, cached, err := e.states.read(tenant, workflow, snap)
	if err != nil || !cached {
		return st, err
	}
	// The caller may change what it is given: never the cached state.
	return pipeline.CloneState(st), nil
}

// Entry is handoff.Entry.
type Entry = handoff.Entry

// History calls fn for every recorded decision of a workflow, oldest first.
func (e *Engine) History(ctx context.Context, tenant, workflow string, fn func(Entry) error) error {
	return e.log.Records(ctx, tenant, workflow, 1, func(rec store.Record) error {
		ent, err := governance.DecodeEntry(rec)
		if err != nil {
			return err
		}
		return fn(ent)
	})
}

// Audit calls fn for every security record of a tenant's audit stream (a request too
// broken to trust), oldest first. The console's events in the same stream are passed
// over: ConsoleAudit pages through both.
func (e *Engine) Audit(ctx context.Context, tenant string, fn func(Entry) error) error {
	return e.log.AuditRecords(ctx, tenant, 1, func(rec store.Record) error {
		if governance.IsConsoleRecord(rec) {
			return nil
		}
		ent, err := governance.DecodeEntry(rec)
		if err != nil {
			return err
		}
		return fn(ent)
	})
}

// Workflows lists a tenant's workflows with their heads.
func (e *Engine) Workflows(ctx context.Context, tenant string, fn func(workflow string, head store.Head) error) error {
	return e.log.Workflows(ctx, tenant, fn)
}

// Tenants lists the tenants with any record.
func (e *Engine) Tenants(ctx context.Context) ([]string, error) {
	return e.log.Tenants(ctx)
}

// Standing returns the latest decision of a workflow that was not a block: the one the
// workflow stands on (await_human: it waits for a person). Blocks change nothing, so
// they are passed over. The head names its record, so it costs two reads however many
// blocks came after it. Nil when every decision was a block.
func (e *Engine) Standing(ctx context.Context, tenant, workflow string) (*Decision, error) {
	_, head, err := e.log.State(ctx, tenant, workflow)
	if err != nil {
		return nil, err
	}
	if head.StandingUnknown {
		d, _, err := e.findStanding(ctx, tenant, workflow, head)
		return d, err
	}
	if head.StandingSeq == 0 {
		return nil, nil
	}
	d, err := e.decisionAt(ctx, tenant, workflow, head.StandingSeq)
	if err != nil {
		return nil, err
	}
	if d == nil || d.Outcome == Block || string(d.Outcome) != head.Standing {
		return nil, fmt.Errorf("engine: tenant %s workflow %s: the head names record %d as the standing decision, which is not a %s decision: %w",
			tenant, workflow, head.StandingSeq, head.Standing, store.ErrTampered)
	}
	return d, nil
}

// standingOutcome is the outcome of a workflow's standing decision as its head names it,
// read from the log only for a head written before heads named it.
func (e *Engine) standingOutcome(ctx context.Context, tenant, workflow string, head store.Head) (Outcome, error) {
	if !head.StandingUnknown {
		return Outcome(head.Standing), nil
	}
	d, _, err := e.findStanding(ctx, tenant, workflow, head)
	if err != nil || d == nil {
		return "", err
	}
	return d.Outcome, nil
}

// findStanding finds the standing decision of a workflow whose head, written by an
// earlier version, does not name it: it reads the log backwards from the head, one
// record at a time, then records what it found in the head (store.Log.SetStanding) so
// that it is the last time. A store that cannot be written (read-only, a standby) is
// read again next time.
func (e *Engine) findStanding(ctx context.Context, tenant, workflow string, head store.Head) (*Decision, uint64, error) {
	var found *Decision
	var at uint64
	for seq := head.Seq; seq >= 1 && found == nil; seq-- {
		d, err := e.decisionAt(ctx, tenant, workflow, seq)
		if err != nil {
			return nil, 0, err
		}
		if d != nil && d.Outcome != Block {
			found, at = d, seq
		}
	}
	fill := head
	fill.StandingUnknown, fill.StandingSeq = false, at
	if found != nil {
		fill.Standing = string(found.Outcome)
	}
	if err := e.log.SetStanding(ctx, tenant, workflow, fill); err != nil && !errors.Is(err, store.ErrReadOnly) {
		e.logger.Warn("could not record the standing decision in the head of a workflow an earlier version wrote",
			"tenant_id", tenant, "workflow_id", workflow, "error", err)
	}
	return found, at, nil
}

// decisionAt reads the decision of record seq of a workflow, with one read; nil when
// the record holds none.
func (e *Engine) decisionAt(ctx context.Context, tenant, workflow string, seq uint64) (*Decision, error) {
	rec, err := e.log.Record(ctx, tenant, workflow, seq)
	if err != nil {
		return nil, err
	}
	ent, err := governance.DecodeEntry(rec)
	if err != nil {
		return nil, err
	}
	return ent.Decision, nil
}

// Decision returns a recorded decision by its id, with the log entry that holds it,
// read through the decision-id index: nothing is evaluated. It fails with
// ErrDecisionNotFound when no log holds the id.
func (e *Engine) Decision(ctx context.Context, id string) (Entry, error) {
	return e.ledger().Decision(ctx, id)
}
