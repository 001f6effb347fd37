package chain

import (
	"errors"
	"fmt"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// CheckBound reads, with read, the record an idempotency entry names and checks that it
// is the record the entry was written with, unaltered: ErrTampered otherwise.
func CheckBound(read Reader, tenant, key string, e IdemEntry) (store.Record, error) {
	sr, found, err := read(tenant, e.Workflow, e.Seq)
	switch {
	case errors.Is(err, ErrCorrupt):
		return store.Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is undecodable", store.ErrTampered, key, e.Seq, e.Workflow)
	case err != nil:
		return store.Record{}, err
	}
	if !found {
		return store.Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is not there", store.ErrTampered, key, e.Seq, e.Workflow)
	}
	if sr.Seq != e.Seq {
		return store.Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is undecodable", store.ErrTampered, key, e.Seq, e.Workflow)
	}
	if !canary.TrustIdempotencyEntry && (sr.Hash != e.Hash || store.RecordHash(store.DomainRecord, sr.Seq, sr.Time, sr.Type, sr.Payload, sr.PrevHash, tenant, e.Workflow) != sr.Hash) {
		return store.Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, whose hash differs", store.ErrTampered, key, e.Seq, e.Workflow)
	}
	rec, err := sr.Record()
	if err != nil {
		return store.Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is undecodable", store.ErrTampered, key, e.Seq, e.Workflow)
	}
	return rec, nil
}

// Reader reads the record of a chain at seq (workflow "" names the tenant's audit
// stream); an undecodable record fails with errCorrupt.
type Reader func(tenant, workflow string, seq uint64) (r Record, found bool, err error)

// ReadRecord reads one record with read and converts it.
func ReadRecord(read Reader, tenant, workflow string, seq uint64) (store.Record, error) {
	sr, found, err := read(tenant, workflow, seq)
	switch {
	case err != nil:
		return store.Record{}, fmt.Errorf("record %d: %w", seq, err)
	case !found:
		return store.Record{}, fmt.Errorf("%w: no record %d in workflow %q of tenant %q", store.ErrNotFound, seq, workflow, tenant)
	}
	rec, err := sr.Record()
	if err != nil || sr.Seq != seq {
		return store.Record{}, fmt.Errorf("record %d: %w", seq, ErrCorrupt)
	}
	return rec, nil
}

// CheckLocated reads, with read, the record a location names and returns what is wrong
// with it, or "" when it is there, unaltered, with the hash the location holds.
func CheckLocated(read Reader, loc store.Location) string {
	_, problem := Located(read, loc)
	return problem
}

// Located reads, with read, the record a location names and returns it with what is
// wrong with it, or "" when it is there, unaltered, with the hash the location holds.
func Located(read Reader, loc store.Location) (Record, string) {
	domain, name := store.DomainRecord, fmt.Sprintf("record %d of workflow %q", loc.Seq, loc.Workflow)
	if loc.Audit() {
		domain, name = store.DomainAudit, fmt.Sprintf("audit record %d", loc.Seq)
	}
	name += fmt.Sprintf(" of tenant %q", loc.Tenant)
	sr, found, err := read(loc.Tenant, loc.Workflow, loc.Seq)
	switch {
	case errors.Is(err, ErrCorrupt):
		return sr, name + ", which is undecodable"
	case err != nil || !found:
		return sr, name + ", which is not there"
	case sr.Seq != loc.Seq:
		return sr, name + ", which is undecodable"
	case sr.Hash != loc.Hash || store.RecordHash(domain, sr.Seq, sr.Time, sr.Type, sr.Payload, sr.PrevHash, loc.Tenant, loc.Workflow) != sr.Hash:
		return sr, name + ", whose hash differs"
	}
	return sr, ""
}

// Deliver hands the public form of sr to fn, a caller's callback, as both backends'
// record walks do; an error from fn comes back as a CallbackError, so that the
// transaction it ran in returns it unwrapped.
func Deliver(sr *Record, fn func(store.Record) error) error {
	rec, err := sr.Record()
	if err != nil {
		return fmt.Errorf("record %d: %w", sr.Seq, err)
	}
	if err := fn(rec); err != nil {
		return CallbackError{Err: err}
	}
	return nil
}
