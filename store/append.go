package store

import "time"

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

	// Summary, when set, becomes the workflow's summary (at most MaxSummaryLen bytes),
	// active at Time: Summaries lists the workflow by it, newest first. Nil leaves the
	// workflow without one (one it had would no longer be its own), listed by
	// Unsummarized until SetSummary gives it one. The engine gives one with every append.
	Summary []byte

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
