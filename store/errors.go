package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/handoff-dev/handoff"
)

// Errors returned by the store. Callers branch on them with errors.Is; the
// concrete value may wrap them with more context.
var (
	// ErrLocked is returned by Open when another process, or another Log in
	// this process, already has the directory open. Open fails at once; it
	// never waits for the lock.
	ErrLocked = errors.New("store: store locked")

	// ErrReadOnly is returned by every write to a store opened with
	// Options.ReadOnly, and by every write to a PostgreSQL database that accepts none
	// (a hot standby, or a role or database whose default_transaction_read_only is on):
	// sending it again cannot help until writes go to a primary.
	ErrReadOnly = handoff.ErrReadOnly

	// ErrNotFound is returned when a workflow does not exist in the tenant
	// asked for. A workflow owned by another tenant is not found either.
	// Find returns it, with a message of its own, for an id no record has.
	ErrNotFound = handoff.ErrNotFound

	// ErrExists is returned by a creating Append when the workflow id is
	// already taken, in this tenant or in any other.
	ErrExists = errors.New("store: workflow exists")

	// ErrIdempotencyKeyReused is returned by Append when the idempotency key
	// was already recorded for a request with a different digest.
	ErrIdempotencyKeyReused = errors.New("store: idempotency key reused with a different request")

	// ErrDuplicate is matched by a *DuplicateError: the idempotency key was
	// already recorded for the same request.
	ErrDuplicate = errors.New("store: duplicate request")

	// ErrDuplicateID is matched by a *DuplicateIDError: a record's id is
	// already indexed.
	ErrDuplicateID = errors.New("store: record id already indexed")

	// ErrStale is matched by a *StaleError: the expected state version is
	// not the workflow's current one.
	ErrStale = errors.New("store: stale state version")

	// ErrClosed is returned by every method called after Close.
	ErrClosed = handoff.ErrClosed

	// ErrInvalid is returned for arguments the store refuses: empty or
	// oversized ids, an append without records, a payload that is not
	// JSON, options without a directory.
	ErrInvalid = errors.New("store: invalid argument")

	// ErrTooLarge is returned by Append when one append does not fit in a
	// single transaction.
	ErrTooLarge = errors.New("store: append too large")

	// ErrUnavailable is returned when a PostgreSQL store's database cannot be
	// reached or drops the connection: nothing was decided. A call made once the
	// database is back succeeds; the pool reconnects by itself. The message names the
	// cause (refused, timed out, a name that does not resolve) but never the host or the
	// role of the URL.
	ErrUnavailable = handoff.ErrUnavailable

	// ErrBusy is returned when a PostgreSQL store's database could not do the work in
	// time or with what it had: a statement timeout, too many connections, out of
	// memory, or writers that kept conflicting. Nothing was written; the same call made
	// again later may succeed.
	ErrBusy = handoff.ErrBusy

	// ErrPermission is returned when a PostgreSQL store's database refuses the role of
	// the URL something it needs: a right on the schema or its tables, or its
	// credentials. Sending the call again cannot help; granting the right (or fixing the
	// URL) does.
	ErrPermission = handoff.ErrPermission

	// ErrSchema is returned by postgres.Open when the database's schema is not at the
	// version this one needs: postgres.Migrate brings it there.
	ErrSchema = handoff.ErrSchema

	// ErrUnsupported is returned by a call the backend does not offer (Backup of a
	// PostgreSQL store).
	ErrUnsupported = handoff.ErrUnsupported

	// ErrInconsistent is returned when a Badger store's files do not agree with each
	// other: the manifest names a table that is not there, or a key points into the value
	// log past its end. It is what a copy of a store's directory made with cp or rsync
	// while a process was writing it looks like (or a damaged disk): such a copy is not a
	// backup. Backup (handoffctl backup) copies a live store; badger.Restore makes a store of it.
	ErrInconsistent = handoff.ErrInconsistent

	// ErrTampered is returned when a read finds a value that disagrees with
	// the hash chain: an idempotency key bound to a record that is not there,
	// or whose hash differs. The store was altered outside this package;
	// Verify tells where.
	ErrTampered = handoff.ErrTampered
)

// Retryable reports whether the call that failed with err may succeed if made again
// unchanged, once the cause has passed: the database could not be reached
// (ErrUnavailable), was busy (ErrBusy), or the call's own deadline passed. Every other
// error is an answer a resend gets again: the data (a tampered log, a stale version, a
// reused key), a store that takes no writes (ErrReadOnly), a right the database refuses
// (ErrPermission), a schema at another version (ErrSchema), a closed store.
func Retryable(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, ErrBusy) || errors.Is(err, context.DeadlineExceeded)
}

// StaleError reports an optimistic concurrency failure: the caller expected
// the workflow at state version Expected but it is at Actual. It matches
// ErrStale with errors.Is.
type StaleError struct {
	Expected uint64 // the version the caller expected
	Actual   uint64 // the workflow's current version
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s: expected %d, actual %d", ErrStale, e.Expected, e.Actual)
}

// Is reports whether target is ErrStale.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// DuplicateError reports that the idempotency key of an Append was already
// recorded for the same request digest. Record is the record the key is
// bound to, the answer to the original request, read and checked against
// its hash; nothing was appended. It matches ErrDuplicate with errors.Is.
type DuplicateError struct {
	Record Record // the last record of the original Append
}

func (e *DuplicateError) Error() string { return ErrDuplicate.Error() }

// Is reports whether target is ErrDuplicate.
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// DuplicateIDError reports that a record to append or audit carries an id
// the index already holds. Existing is where the record with that id is;
// nothing was written. It matches ErrDuplicateID with errors.Is.
type DuplicateIDError struct {
	ID       string
	Existing Location // zero when the id is taken by another record of the same append
}

func (e *DuplicateIDError) Error() string { return fmt.Sprintf("%s: %q", ErrDuplicateID, e.ID) }

// Is reports whether target is ErrDuplicateID.
func (e *DuplicateIDError) Is(target error) bool { return target == ErrDuplicateID }

// Error wraps a failure of the underlying storage (I/O, corruption, a
// closed database) with the operation that saw it. Err never carries a type
// of the storage engine.
type Error struct {
	Op  string // the store operation: "open", "append", "state", ...
	Err error  // the cause
}

func (e *Error) Error() string {
	return "store: " + e.Op + ": " + strings.TrimPrefix(e.Err.Error(), "store: ")
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// invalid returns ErrInvalid with a reason.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
