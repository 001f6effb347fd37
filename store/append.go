package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/internal/failpoint"
)

// maxIDLen bounds tenant ids, workflow ids and idempotency keys, in bytes.
const maxIDLen = 1024

// maxConflictRetries bounds how often one Append is retried after a
// transaction conflict that left its preconditions true. A conflict means
// another append committed, so retries always make progress.
const maxConflictRetries = 1000

// Append describes one atomic write to a workflow: its records, its new
// state snapshot and its idempotency key, all or nothing.
type Append struct {
	Tenant   string // required
	Workflow string // required

	// Create requires that the workflow does not exist yet, in this tenant
	// or any other; ErrExists otherwise. Without Create the workflow must
	// exist in Tenant; ErrNotFound otherwise.
	Create bool

	// ExpectedVersion must equal the workflow's current StateVersion (0
	// for a new workflow), else the append fails with a *StaleError.
	ExpectedVersion uint64

	// BumpVersion sets StateVersion to ExpectedVersion+1. Without it the
	// version stays as it is (a block that changes nothing is still
	// logged, but does not make other writers stale).
	BumpVersion bool

	// Records are appended in order after the workflow's last record; the
	// first record of a workflow has seq 1. At least one is required.
	Records []NewRecord

	// State replaces the workflow's snapshot; nil keeps the old one.
	State []byte

	// Standing, when set, makes the last record of this append the workflow's standing
	// record: the head keeps its seq and this tag (Head.StandingSeq, Head.Standing) until
	// another append names one. Empty keeps the standing record as it is. The engine
	// names each decision that is not a block, with its outcome.
	Standing string

	// IdempotencyKey, when set, is recorded for the tenant with
	// RequestDigest in the same transaction, bound to the last record of
	// this append (its seq and hash): that record is the answer. A later
	// Append with the same key appends nothing: it fails with a
	// *DuplicateError holding that record if the digest is the same, and
	// with ErrIdempotencyKeyReused if it differs. Keys are kept forever.
	IdempotencyKey string
	RequestDigest  string

	// Time is stored in every record (the caller's clock), in UTC.
	Time time.Time
}

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
func (l *Badger) Append(ctx context.Context, a Append) (Head, error) {
	if err := l.begin(ctx); err != nil {
		return Head{}, err
	}
	defer l.end()
	if l.readOnly {
		return Head{}, &Error{Op: "append", Err: ErrReadOnly}
	}
	if err := a.validate(); err != nil {
		return Head{}, err
	}
	if l.reqs == nil {
		return l.appendSingle(ctx, &a)
	}
	return l.appendGrouped(ctx, &a)
}

func (a *Append) validate() error {
	if err := checkID("tenant", a.Tenant); err != nil {
		return err
	}
	if err := checkID("workflow", a.Workflow); err != nil {
		return err
	}
	if len(a.IdempotencyKey) > maxIDLen {
		return invalid("idempotency key longer than %d bytes", maxIDLen)
	}
	if len(a.Standing) > maxIDLen {
		return invalid("standing tag longer than %d bytes", maxIDLen)
	}
	if len(a.Records) == 0 {
		return invalid("append without records")
	}
	for i, r := range a.Records {
		if err := r.validate(); err != nil {
			return fmt.Errorf("%w (record %d)", err, i)
		}
	}
	return checkTime(a.Time)
}

func (r *NewRecord) validate() error {
	if r.Type == "" {
		return invalid("record without type")
	}
	if !json.Valid(r.Payload) {
		return invalid("record payload is not valid JSON")
	}
	if len(r.ID) > maxIDLen {
		return invalid("record id longer than %d bytes", maxIDLen)
	}
	return nil
}

func checkID(what, id string) error {
	switch {
	case id == "":
		return invalid("empty %s id", what)
	case len(id) > maxIDLen:
		return invalid("%s id longer than %d bytes", what, maxIDLen)
	}
	return nil
}

func checkTime(t time.Time) error {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return invalid("time %v outside years 0000 to 9999", t)
	}
	return nil
}

// kv is one write of an append.
type kv struct {
	key, value []byte
}

// checkWrites refuses a value larger than the database takes.
func (l *Badger) checkWrites(writes []kv) error {
	for _, w := range writes {
		if int64(len(w.value)) > l.maxValueSize {
			return ErrTooLarge
		}
	}
	return nil
}

// writesSize returns at least what Badger counts for writes against its
// transaction limits: a value at or above the value threshold goes to the
// value log and counts as a pointer.
func (l *Badger) writesSize(writes []kv) (size, count int64) {
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
func prepare(ctx context.Context, txn *badger.Txn, a *Append) (Head, []kv, error) {
	var ik []byte
	if a.IdempotencyKey != "" {
		ik = idemKey(a.Tenant, a.IdempotencyKey)
		v, found, err := getIdem(txn, a.Tenant, a.IdempotencyKey)
		if err != nil {
			return Head{}, nil, err
		}
		if found {
			e, err := decodeIdem(v)
			if err != nil {
				return Head{}, nil, fmt.Errorf("%w: idempotency key %q is undecodable", ErrTampered, a.IdempotencyKey)
			}
			if e.Digest != a.RequestDigest {
				return Head{}, nil, ErrIdempotencyKeyReused
			}
			rec, err := boundRecord(txn, a.Tenant, a.IdempotencyKey, e)
			if err != nil {
				return Head{}, nil, err
			}
			return Head{}, nil, &DuplicateError{Record: rec}
		}
	}

	hk := headKey(a.Tenant, a.Workflow)
	cur, found, err := getHead(txn, hk)
	if err != nil {
		return Head{}, nil, err
	}
	var ok []byte
	switch {
	case a.Create && found:
		return Head{}, nil, fmt.Errorf("%w: %q", ErrExists, a.Workflow)
	case a.Create:
		ok = ownerKey(a.Workflow)
		_, taken, err := getValue(txn, ok)
		if err != nil {
			return Head{}, nil, err
		}
		if taken {
			return Head{}, nil, fmt.Errorf("%w: %q", ErrExists, a.Workflow)
		}
	case !found:
		return Head{}, nil, fmt.Errorf("%w: %q", ErrNotFound, a.Workflow)
	}
	if err := checkVersion(a, cur); err != nil {
		return Head{}, nil, err
	}

	if err := checkIDs(txn, a.Records); err != nil {
		return Head{}, nil, err
	}

	writes := make([]kv, 0, 2*len(a.Records)+4)
	recs, next := a.seal(cur)
	for i, r := range recs {
		writes = append(writes, kv{recordKey(a.Tenant, a.Workflow, r.Seq), r.encode()})
		if id := a.Records[i].ID; id != "" {
			loc := Location{Tenant: a.Tenant, Workflow: a.Workflow, Seq: r.Seq, Hash: r.Hash}
			writes = append(writes, kv{indexKey(id), loc.encode()})
		}
	}
	writes = append(writes, kv{hk, encodeHead(next)})
	if err := failpoint.Eval(ctx, "store/snapshot-write"); err != nil {
		return Head{}, nil, err
	}
	if a.State != nil {
		writes = append(writes, kv{snapshotKey(a.Tenant, a.Workflow), a.State})
	}
	if ik != nil {
		e := idemEntry{Digest: a.RequestDigest, Workflow: a.Workflow, Seq: next.Seq, Hash: next.Hash}
		writes = append(writes, kv{ik, e.encode()})
	}
	if ok != nil {
		writes = append(writes, kv{ok, []byte(a.Tenant)})
	}
	return next, writes, nil
}

// seal chains the records of a after the head cur: each gets the next seq, the
// append's time and the hash of the record before. It returns them with the head they
// leave, whose state version is bumped when a asks.
func (a *Append) seal(cur Head) ([]storedRecord, Head) {
	ts := formatTime(a.Time)
	recs := make([]storedRecord, len(a.Records))
	next := cur
	for i, nr := range a.Records {
		recs[i] = storedRecord{Seq: next.Seq + 1, Time: ts, Type: nr.Type, Payload: nr.Payload, PrevHash: next.Hash}
		sealRecord(domainRecord, a.Tenant, a.Workflow, &recs[i])
		next.Seq, next.Hash = recs[i].Seq, recs[i].Hash
	}
	if a.BumpVersion {
		next.StateVersion = a.ExpectedVersion + 1
	}
	if a.Standing != "" {
		next.StandingSeq, next.Standing, next.StandingUnknown = next.Seq, a.Standing, false
	}
	return recs, next
}

// checkIDs refuses records whose id the index holds already, as seen by
// txn, or that share an id with each other: a *DuplicateIDError. Each id is
// one point read, so two transactions writing the same id conflict.
func checkIDs(txn *badger.Txn, recs []NewRecord) error {
	for i, r := range recs {
		if r.ID == "" {
			continue
		}
		for _, o := range recs[:i] {
			if o.ID == r.ID {
				return &DuplicateIDError{ID: r.ID}
			}
		}
		v, found, err := getValue(txn, indexKey(r.ID))
		if err != nil {
			return err
		}
		if found {
			loc, _ := decodeLocation(v)
			return &DuplicateIDError{ID: r.ID, Existing: loc}
		}
	}
	return nil
}

// appendSingle performs a in a transaction of its own. After a conflict it
// tries again; the retry re-reads the head and the idempotency key, so a
// conflicting writer that won shows up as a *StaleError, a
// *DuplicateError or ErrIdempotencyKeyReused.
func (l *Badger) appendSingle(ctx context.Context, a *Append) (Head, error) {
	for range maxConflictRetries {
		if err := ctx.Err(); err != nil {
			return Head{}, err
		}
		head, err := l.appendTxn(ctx, a)
		if !errors.Is(err, badger.ErrConflict) {
			return head, wrap("append", err)
		}
	}
	return Head{}, &Error{Op: "append", Err: errTooManyConflicts}
}

func (l *Badger) appendTxn(ctx context.Context, a *Append) (Head, error) {
	txn := l.db.NewTransaction(true)
	defer txn.Discard()
	head, writes, err := prepare(ctx, txn, a)
	if err != nil {
		return Head{}, err
	}
	if err := l.checkWrites(writes); err != nil {
		return Head{}, err
	}
	for _, w := range writes {
		if err := txn.Set(w.key, w.value); err != nil {
			return Head{}, err
		}
	}
	if err := txn.Commit(); err != nil {
		return Head{}, err
	}
	return head, nil
}
