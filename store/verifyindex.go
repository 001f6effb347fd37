package store

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff/internal/canary"
)

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

// refCheck checks idempotency keys and index entries against the records they name and
// collects one report per chain: the first problem found with what names it.
type refCheck struct {
	claims  func([]byte) Claims
	reps    map[string]*VerifyReport
	readErr error // a storage failure while reading a record: the check could not be made
}

func newRefCheck(c IndexCheck) *refCheck {
	return &refCheck{claims: c.Claims, reps: map[string]*VerifyReport{}}
}

// headReader reads the head of a chain (workflow "" names the tenant's audit stream):
// found is false when tenant has no such chain.
type headReader func(tenant, workflow string) (h Head, found bool, err error)

// fail records a problem of the chain of tenant and workflow, unless it has one.
// kind tells apart the reports of chain "": the audit stream and the keys that name
// no workflow.
func (v *refCheck) fail(kind, tenant, workflow string, seq uint64, format string, args ...any) {
	k := tenant + "\x00" + workflow
	if workflow == "" {
		k += "\x00" + kind
	}
	if _, ok := v.reps[k]; ok {
		return
	}
	v.reps[k] = &VerifyReport{Tenant: tenant, Workflow: workflow, BrokenSeq: seq, Problem: kind + ": " + fmt.Sprintf(format, args...)}
}

// reports lists the problems found, by tenant and chain.
func (v *refCheck) reports() []VerifyReport {
	out := make([]VerifyReport, 0, len(v.reps))
	for _, r := range v.reps {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tenant != out[j].Tenant {
			return out[i].Tenant < out[j].Tenant
		}
		if out[i].Workflow != out[j].Workflow {
			return out[i].Workflow < out[j].Workflow
		}
		return out[i].Problem < out[j].Problem
	})
	return out
}

// reader wraps read so that a storage failure is kept rather than taken for a problem.
func (v *refCheck) reader(read recordReader) recordReader {
	return func(tenant, workflow string, seq uint64) (storedRecord, bool, error) {
		sr, found, err := read(tenant, workflow, seq)
		if err != nil && !errors.Is(err, errCorrupt) && v.readErr == nil {
			v.readErr = err
		}
		return sr, found, err
	}
}

// key checks idempotency key key of tenant, whose value decoded to e (ok false: it did
// not decode; legacy: an earlier format's key, bound to no record).
func (v *refCheck) key(tenant, key string, e idemEntry, ok, legacy bool, read recordReader, head headReader) error {
	const kind = "idempotency"
	switch {
	case canary.SkipReferenceCheck:
		return nil
	case legacy:
		v.fail(kind, tenant, e.Workflow, 0, "key %q was written by an earlier store format and is bound to no record", key)
		return nil
	case !ok:
		v.fail(kind, tenant, "", 0, "key %q is undecodable", key)
		return nil
	}
	h, found, err := head(tenant, e.Workflow)
	switch {
	case err != nil:
		return err
	case !found:
		v.fail(kind, tenant, e.Workflow, 0, "key %q names workflow %q, which tenant %q does not have", key, e.Workflow, tenant)
		return nil
	case e.Seq > h.Seq:
		v.fail(kind, tenant, e.Workflow, e.Seq, "key %q names record %d, past the head of workflow %q (record %d)", key, e.Seq, e.Workflow, h.Seq)
		return nil
	}
	rec, err := checkBound(v.reader(read), tenant, key, e)
	if v.readErr != nil {
		return v.readErr
	}
	if err != nil {
		v.fail(kind, tenant, e.Workflow, e.Seq, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), ErrTampered.Error()+": "), "idempotency "))
		return nil
	}
	if v.claims == nil {
		return nil
	}
	switch c := v.claims(rec.Payload); {
	case c.Key != key:
		v.fail(kind, tenant, e.Workflow, e.Seq, "key %q is bound to record %d of workflow %q, which answers request %q", key, e.Seq, e.Workflow, c.Key)
	case c.Digest != e.Digest:
		v.fail(kind, tenant, e.Workflow, e.Seq, "key %q holds digest %s, but record %d of workflow %q answers a request with digest %s", key, e.Digest, e.Seq, e.Workflow, c.Digest)
	}
	return nil
}

// id checks the index entry of record id id, which decoded to loc (ok false: it did
// not decode).
func (v *refCheck) id(id string, loc Location, ok bool, read recordReader, head headReader) error {
	const kind = "index"
	switch {
	case canary.SkipReferenceCheck:
		return nil
	case !ok:
		v.fail(kind, "", "", 0, "the entry of id %q is undecodable", id)
		return nil
	}
	h, found, err := head(loc.Tenant, loc.Workflow)
	switch {
	case err != nil:
		return err
	case !found && !loc.Audit():
		v.fail(kind, loc.Tenant, loc.Workflow, 0, "id %q names workflow %q, which tenant %q does not have", id, loc.Workflow, loc.Tenant)
		return nil
	case loc.Seq > h.Seq:
		v.fail(kind, loc.Tenant, loc.Workflow, loc.Seq, "id %q names record %d, past the head of its chain (record %d)", id, loc.Seq, h.Seq)
		return nil
	}
	sr, problem := located(v.reader(read), loc)
	if v.readErr != nil {
		return v.readErr
	}
	if problem != "" {
		v.fail(kind, loc.Tenant, loc.Workflow, loc.Seq, "id %q names %s", id, problem)
		return nil
	}
	if v.claims == nil {
		return nil
	}
	if c := v.claims(sr.Payload); c.ID != id {
		v.fail(kind, loc.Tenant, loc.Workflow, loc.Seq, "id %q names record %d, which holds id %q", id, loc.Seq, c.ID)
	}
	return nil
}
