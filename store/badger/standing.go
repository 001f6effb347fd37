package badger

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// SetStanding fills in the standing record of a workflow's head that an earlier version
// wrote without it (Head.StandingUnknown): h is the head the caller read, with
// StandingSeq and Standing set to the record it found by reading the log. It writes
// them only while the head is still at h.Seq with its standing record unknown, so an
// append made in between is never undone; otherwise it does nothing. It is safe for
// concurrent use.
func (l *Log) SetStanding(ctx context.Context, tenant, workflow string, h store.Head) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if l.readOnly {
		return &store.Error{Op: "set standing", Err: store.ErrReadOnly}
	}
	if err := chain.CheckStandingArg(tenant, workflow, h); err != nil {
		return err
	}
	err := l.db.Update(func(txn *badger.Txn) error {
		hk := headKey(tenant, workflow)
		cur, found, err := getHead(txn, hk)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
		}
		if cur.Seq != h.Seq || !cur.StandingUnknown {
			return nil
		}
		cur.StandingSeq, cur.Standing, cur.StandingUnknown = h.StandingSeq, h.Standing, false
		return txn.Set(hk, chain.EncodeHead(cur))
	})
	if errors.Is(err, badger.ErrConflict) {
		return nil // an append moved the head: the record it names, if any, is the one
	}
	return wrap("set standing", err)
}
