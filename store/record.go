package store

import (
	"encoding/json"
	"time"
)

// Head is the tip of a workflow's log (or of a tenant's audit stream).
type Head struct {
	Seq          uint64 // sequence number of the last record; 0 when empty
	StateVersion uint64 // the workflow's state version; always 0 for an audit stream
	Hash         string // "sha256:<hex>" of the last record; "" when empty

	// StandingSeq is the seq of the workflow's standing record: the last record of the
	// last append that named one (Append.Standing), kept with the head so that it is
	// found with one read whatever came after it. 0 when none did. Standing is the tag
	// that append gave it ("" when none).
	StandingSeq uint64
	Standing    string
	// StandingUnknown says the head was written before heads kept their standing
	// record (an earlier version): StandingSeq and Standing say nothing, and SetStanding
	// fills them in once the caller has found the record. Appends that name no standing
	// record keep it unknown.
	StandingUnknown bool
}

// Record is one entry of a workflow log or of an audit stream.
type Record struct {
	Seq      uint64          // 1 for the first record, then contiguous
	Time     time.Time       // the time given by the writer, in UTC
	Type     string          // the writer's record type, e.g. "request" or "decision"
	Payload  json.RawMessage // the payload exactly as appended
	PrevHash string          // Hash of the previous record; "" for the first
	Hash     string          // "sha256:<hex>" of the record's canonical encoding
}

// NewRecord is a record to append. Payload must be valid JSON and is stored
// byte for byte: the caller canonicalises it.
type NewRecord struct {
	Type    string // required
	Payload []byte // valid JSON

	// ID, when set, names the record in the store's index, in the same
	// transaction as the record: Find then locates it with one read. An id
	// is unique in the store, across tenants and streams: a record whose id
	// is already indexed is refused with a *DuplicateIDError. At most
	// maxIDLen bytes. "" leaves the record out of the index.
	ID string
}

// Location is where an indexed record is: its chain, its seq, and its hash
// as it was written.
type Location struct {
	Tenant   string
	Workflow string // "" for the tenant's audit stream
	Seq      uint64
	Hash     string
}

// Audit reports whether the record is in the tenant's audit stream.
func (l Location) Audit() bool { return l.Workflow == "" }

// Idempotency is an idempotency key of a tenant as recorded: the digest of the request
// it was recorded for and the record that answers it (the last record of the append
// that recorded the key), named by workflow, seq and hash.
type Idempotency struct {
	Key      string
	Digest   string
	Workflow string
	Seq      uint64
	Hash     string
	// Unbound says the key was written by an earlier store format (it held a copy of its
	// answer) and UpgradeIdempotency could not bind it to a record: Seq and Hash are zero.
	Unbound bool
}

// Chain is one hash chain of the store: a workflow of a tenant, or a
// tenant's audit stream.
type Chain struct {
	Tenant   string
	Workflow string // "" for the audit stream
	Audit    bool   // the tenant's audit stream
	Head     Head   // zero when the chain's head is missing (Verify reports it)
}
