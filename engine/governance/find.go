package governance

import (
	"context"
	"errors"
	"fmt"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/store"
)

// decisionLocation is where a recorded decision is.
type decisionLocation struct {
	tenant, workflow string
	seq              uint64
	audit            bool
	decision         *handoff.Decision
	entry            handoff.Entry
}

// findDecision finds a decision by its id in the store's record index: one read, then
// the record it names, which must hold that decision (store.ErrTampered otherwise).
func (l *Ledger) findDecision(ctx context.Context, id string) (*decisionLocation, error) {
	loc, err := l.log.Find(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", handoff.ErrDecisionNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	var found *decisionLocation
	// One read: the record the index names (workflow "" names the audit stream).
	rec, err := l.log.Record(ctx, loc.Tenant, loc.Workflow, loc.Seq)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	case rec.Hash == loc.Hash && IsConsoleRecord(rec):
		// A console event's id names no decision.
		if _, err := DecodeConsoleEvent(rec); err == nil {
			return nil, fmt.Errorf("%w: %s", handoff.ErrDecisionNotFound, id)
		}
	case rec.Hash == loc.Hash:
		ent, err := DecodeEntry(rec)
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

// Decision returns a recorded decision by its id, with the log entry that holds it,
// read through the record index: nothing is evaluated. It fails with
// handoff.ErrDecisionNotFound when no log holds the id.
func (l *Ledger) Decision(ctx context.Context, id string) (handoff.Entry, error) {
	loc, err := l.findDecision(ctx, id)
	if err != nil {
		return handoff.Entry{}, err
	}
	return loc.entry, nil
}
