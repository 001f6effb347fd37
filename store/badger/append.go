package badger

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/internal/failpoint"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// maxConflictRetries bounds how often one Append is retried after a
// transaction conflict that left its preconditions true. A conflict means
// another append committed, so retries always make progress.
const maxConflictRetries = 1000

// Append writes a atomically and returns the workflow's new head. It
// returns only once the write is durable. The error is a *StaleError,
// a *DuplicateError, a *DuplicateIDError, or matches ErrNotFound, ErrExists,
// ErrIdempotencyKeyReused, ErrInvalid, ErrTooLarge or ErrClosed; anything
// else is an *Error from the storage. On any error nothing was written.
//
// Append is safe for concurrent use. Of several appends made concurrently
// at the same ExpectedVersion with BumpVersion, exactly one succeeds; the
// others get a *StaleError. If ctx ends before the append is taken up,
// Append returns ctx.Err() and writes nothing; once taken up it completes.
// Append does not keep the slices of a after it returns.
func (l *Log) Append(ctx context.Context, a store.Append) (store.Head, error) {
	if err := l.begin(ctx); err != nil {
		return store.Head{}, err
	}
	defer l.end()
	if err := chain.CheckAppend(l.readOnly, &a); err != nil {
		return store.Head{}, err
	}
	if l.reqs == nil {
		return l.appendSingle(ctx, &a)
	}
	return l.appendGrouped(ctx, &a)
}

// kv is one write of an append: a value set, or a key deleted.
type kv struct {
	key, value []byte
	del        bool
}

func (w kv) apply(txn *badger.Txn) error {
	if w.del {
		return txn.Delete(w.key)
	}
	return txn.Set(w.key, w.value)
}

// checkWrites refuses a value larger than the database takes.
func (l *Log) checkWrites(writes []kv) error {
	for _, w := range writes {
		if int64(len(w.value)) > l.maxValueSize {
			return store.ErrTooLarge
		}
	}
	return nil
}

// writesSize returns at least what Badger counts for writes against its
// transaction limits: a value at or above the value threshold goes to the
// value log and counts as a pointer.
func (l *Log) writesSize(writes []kv) (size, count int64) {
	for _, w := range writes {
		v := int64(len(w.value))
		if v >= l.valueThreshold {
			v = 16
		}
		size += int64(len(w.key)) + v + 16
	}
	return size, int64(len(writes))
}

// prepare checks a against the store as seen by txn and returns the new
// head and the writes that perform a. It writes nothing, so a failed
// prepare leaves txn as it was. ctx is the append's context.
func prepare(ctx context.Context, txn *badger.Txn, a *store.Append) (store.Head, []kv, error) {
	var ik []byte
	if a.IdempotencyKey != "" {
		ik = idemKey(a.Tenant, a.IdempotencyKey)
		v, found, err := getIdem(txn, a.Tenant, a.IdempotencyKey)
		if err != nil {
			return store.Head{}, nil, err
		}
		if found {
			e, err := chain.DecodeIdem(v)
			if err != nil {
				return store.Head{}, nil, fmt.Errorf("%w: idempotency key %q is undecodable", store.ErrTampered, a.IdempotencyKey)
			}
			if e.Digest != a.RequestDigest {
				return store.Head{}, nil, store.ErrIdempotencyKeyReused
			}
			rec, err := boundRecord(txn, a.Tenant, a.IdempotencyKey, e)
			if err != nil {
				return store.Head{}, nil, err
			}
			return store.Head{}, nil, &store.DuplicateError{Record: rec}
		}
	}

	hk := headKey(a.Tenant, a.Workflow)
	cur, found, err := getHead(txn, hk)
	if err != nil {
		return store.Head{}, nil, err
	}
	var ok []byte
	switch {
	case a.Create && found:
		return store.Head{}, nil, fmt.Errorf("%w: %q", store.ErrExists, a.Workflow)
	case a.Create:
		ok = ownerKey(a.Workflow)
		_, taken, err := getValue(txn, ok)
		if err != nil {
			return store.Head{}, nil, err
		}
		if taken {
			return store.Head{}, nil, fmt.Errorf("%w: %q", store.ErrExists, a.Workflow)
		}
	case !found:
		return store.Head{}, nil, fmt.Errorf("%w: %q", store.ErrNotFound, a.Workflow)
	}
	if err := chain.CheckVersion(a, cur); err != nil {
		return store.Head{}, nil, err
	}

	if err := checkIDs(txn, a.Records); err != nil {
		return store.Head{}, nil, err
	}

	writes := make([]kv, 0, 2*len(a.Records)+7)
	recs, next := chain.Seal(a, cur)
	for i, r := range recs {
		writes = append(writes, kv{key: recordKey(a.Tenant, a.Workflow, r.Seq), value: r.Encode()})
		if id := a.Records[i].ID; id != "" {
			loc := store.Location{Tenant: a.Tenant, Workflow: a.Workflow, Seq: r.Seq, Hash: r.Hash}
			writes = append(writes, kv{key: indexKey(id), value: chain.EncodeLocation(&loc)})
		}
	}
	writes = append(writes, kv{key: hk, value: chain.EncodeHead(next)})
	sw, err := summaryWrites(txn, a, found, next.Seq)
	if err != nil {
		return store.Head{}, nil, err
	}
	writes = append(writes, sw...)
	if err := failpoint.Eval(ctx, "store/snapshot-write"); err != nil {
		return store.Head{}, nil, err
	}
	if a.State != nil {
		writes = append(writes, kv{key: snapshotKey(a.Tenant, a.Workflow), value: a.State})
	}
	if ik != nil {
		e := chain.IdemEntry{Digest: a.RequestDigest, Workflow: a.Workflow, Seq: next.Seq, Hash: next.Hash}
		writes = append(writes, kv{key: ik, value: e.Encode()})
	}
	if ok != nil {
		writes = append(writes, kv{key: ok, value: []byte(a.Tenant)})
	}
	return next, writes, nil
}

// checkIDs refuses records whose id the index holds already, as seen by
// txn, or that share an id with each other: a *DuplicateIDError. Each id is
// one point read, so two transactions writing the same id conflict.
func checkIDs(txn *badger.Txn, recs []store.NewRecord) error {
	for i, r := range recs {
		if r.ID == "" {
			continue
		}
		for _, o := range recs[:i] {
			if o.ID == r.ID {
				return &store.DuplicateIDError{ID: r.ID}
			}
		}
		v, found, err := getValue(txn, indexKey(r.ID))
		if err != nil {
			return err
		}
		if found {
			loc, _ := chain.DecodeLocation(v)
			return &store.DuplicateIDError{ID: r.ID, Existing: loc}
		}
	}
	return nil
}

// appendSingle performs a in a transaction of its own. After a conflict it
// tries again; the retry re-reads the head and the idempotency key, so a
// conflicting writer that won shows up as a *StaleError, a
// *DuplicateError or ErrIdempotencyKeyReused.
func (l *Log) appendSingle(ctx context.Context, a *store.Append) (store.Head, error) {
	for range maxConflictRetries {
		if err := ctx.Err(); err != nil {
			return store.Head{}, err
		}
		head, err := l.appendTxn(ctx, a)
		if !errors.Is(err, badger.ErrConflict) {
			return head, wrap("append", err)
		}
	}
	return store.Head{}, &store.Error{Op: "append", Err: chain.ErrTooManyConflicts}
}

func (l *Log) appendTxn(ctx context.Context, a *store.Append) (store.Head, error) {
	txn := l.db.NewTransaction(true)
	defer txn.Discard()
	head, writes, err := prepare(ctx, txn, a)
	if err != nil {
		return store.Head{}, err
	}
	if err := l.checkWrites(writes); err != nil {
		return store.Head{}, err
	}
	for _, w := range writes {
		if err := w.apply(txn); err != nil {
			return store.Head{}, err
		}
	}
	if err := txn.Commit(); err != nil {
		return store.Head{}, err
	}
	return head, nil
}
