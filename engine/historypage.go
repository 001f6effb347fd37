package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/handoff-dev/handoff/engine/governance"
	"github.com/handoff-dev/handoff/store"
)

// HistoryPage is a run of a workflow's recorded decisions, oldest first, and where it
// sits in the whole: a page of a timeline reads these records and no others.
type HistoryPage struct {
	Entries []Entry
	// Last is the seq of the workflow's last record: the page is the latest when its
	// last entry is Last.
	Last uint64
}

// errPageFull stops a read of the log once a page has its records.
var errPageFull = errors.New("engine: history page full")

// HistoryBefore returns up to n of a workflow's recorded decisions whose seq is below
// before (0: below none, the latest n), oldest first. It reads those records only, so
// that a page costs the same on a workflow of a thousand decisions as on one of ten.
// Every read is scoped by tenant: another tenant's workflow is not found.
func (e *Engine) HistoryBefore(ctx context.Context, tenant, workflow string, before uint64, n int) (HistoryPage, error) {
	if n <= 0 {
		return HistoryPage{}, fmt.Errorf("engine: a history page of %d entries", n)
	}
	_, head, err := e.log.State(ctx, tenant, workflow)
	if err != nil {
		return HistoryPage{}, err
	}
	page := HistoryPage{Last: head.Seq}
	end := head.Seq // the last seq of the page
	if before > 0 && before-1 < end {
		end = before - 1
	}
	if end == 0 {
		return page, nil
	}
	from := uint64(1)
	if end > uint64(n) {
		from = end - uint64(n) + 1
	}
	page.Entries = make([]Entry, 0, end-from+1)
	err = e.log.Records(ctx, tenant, workflow, from, func(rec store.Record) error {
		if rec.Seq > end {
			return errPageFull
		}
		ent, err := governance.DecodeEntry(rec)
		if err != nil {
			return err
		}
		page.Entries = append(page.Entries, ent)
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return HistoryPage{}, err
	}
	return page, nil
}

// DecisionPast returns the first recorded decision of a workflow that took its state
// past version: the one that answered whatever a page made at that version offered.
// Versions only grow along the log, so it is found by bisection, with a read per step;
// ok is false when no decision went past version.
func (e *Engine) DecisionPast(ctx context.Context, tenant, workflow string, version uint64) (ent Entry, ok bool, err error) {
	_, head, err := e.log.State(ctx, tenant, workflow)
	if err != nil {
		return Entry{}, false, err
	}
	if head.StateVersion <= version {
		return Entry{}, false, nil
	}
	lo, hi := uint64(1), head.Seq // the answer is in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		d, err := e.decisionAt(ctx, tenant, workflow, mid)
		if err != nil {
			return Entry{}, false, err
		}
		if d != nil && d.StateVersion > version {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	rec, err := e.log.Record(ctx, tenant, workflow, lo)
	if err != nil {
		return Entry{}, false, err
	}
	ent, err = governance.DecodeEntry(rec)
	if err != nil {
		return Entry{}, false, err
	}
	if ent.Decision == nil || ent.Decision.StateVersion <= version {
		return Entry{}, false, fmt.Errorf("engine: tenant %s workflow %s: the head is at version %d, no record past %d: %w",
			tenant, workflow, head.StateVersion, version, store.ErrTampered)
	}
	return ent, true, nil
}
