package store

import "github.com/handoff-dev/handoff"

// VerifyReport is the result of walking a hash chain (handoff.VerifyReport).
type VerifyReport = handoff.VerifyReport

// IndexCheck says what VerifyIndexes checks.
type IndexCheck struct {
	// All checks the keys and index entries of every tenant, and the index entries too
	// damaged to name one; otherwise those of Tenant only ("" is the tenant of the audit
	// records whose tenant could not be told).
	All    bool
	Tenant string
	// Workflow, with Tenant, narrows the check to the keys and index entries that name
	// records of this workflow: the verification of one workflow reads and decodes its
	// own records only, whatever the size of its tenant.
	Workflow string

	// Claims, when set, reads what a record's payload says of itself; VerifyIndexes
	// then also requires a key's record to answer that key with the key's digest, and
	// an index entry's record to hold that entry's id. Nil checks the records' presence
	// and hashes only.
	Claims func(payload []byte) Claims
}

// Claims is what a record says of itself, as its writer reads its payload.
type Claims struct {
	Key    string // the idempotency key of the request the record answers ("" for none)
	Digest string // that request's digest
	ID     string // the record's id ("" for none)
}
