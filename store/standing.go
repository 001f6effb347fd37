package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// checkStandingArg refuses a standing record SetStanding must not write.
func checkStandingArg(tenant, workflow string, h Head) error {
	if err := checkID("tenant", tenant); err != nil {
		return err
	}
	if err := checkID("workflow", workflow); err != nil {
		return err
	}
	switch {
	case h.StandingUnknown:
		return invalid("SetStanding needs a known standing record")
	case h.StandingSeq > h.Seq:
		return invalid("standing record %d past the head %d", h.StandingSeq, h.Seq)
	case (h.StandingSeq == 0) != (h.Standing == ""):
		return invalid("standing record %d with the tag %q", h.StandingSeq, h.Standing)
	case len(h.Standing) > maxIDLen:
		return invalid("standing tag longer than %d bytes", maxIDLen)
	}
	return nil
}

// SetStanding fills in the standing record of a workflow's head that an earlier version
// wrote without it (Head.StandingUnknown): h is the head the caller read, with
// StandingSeq and Standing set to the record it found by reading the log. It writes
// them only while the head is still at h.Seq with its standing record unknown, so an
// append made in between is never undone; otherwise it does nothing. It is safe for
// concurrent use.
func (l *Badger) SetStanding(ctx context.Context, tenant, workflow string, h Head) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if l.readOnly {
		return &Error{Op: "set standing", Err: ErrReadOnly}
	}
	if err := checkStandingArg(tenant, workflow, h); err != nil {
		return err
	}
	err := l.db.Update(func(txn *badger.Txn) error {
		hk := headKey(tenant, workflow)
		cur, found, err := getHead(txn, hk)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: %q", ErrNotFound, workflow)
		}
		if cur.Seq != h.Seq || !cur.StandingUnknown {
			return nil
		}
		cur.StandingSeq, cur.Standing, cur.StandingUnknown = h.StandingSeq, h.Standing, false
		return txn.Set(hk, encodeHead(cur))
	})
	if errors.Is(err, badger.ErrConflict) {
		return nil // an append moved the head: the record it names, if any, is the one
	}
	return wrap("set standing", err)
}
