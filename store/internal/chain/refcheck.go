package chain

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// RefCheck checks idempotency keys and index entries against the records they name and
// collects one report per chain: the first problem found with what names it.
type RefCheck struct {
	claims  func([]byte) store.Claims
	reps    map[string]*store.VerifyReport
	readErr error // a storage failure while reading a record: the check could not be made
}

func NewRefCheck(c store.IndexCheck) *RefCheck {
	return &RefCheck{claims: c.Claims, reps: map[string]*store.VerifyReport{}}
}

// HeadReader reads the head of a chain (workflow "" names the tenant's audit stream):
// found is false when tenant has no such chain.
type HeadReader func(tenant, workflow string) (h store.Head, found bool, err error)

// Fail records a problem of the chain of tenant and workflow, unless it has one.
// kind tells apart the reports of chain "": the audit stream and the keys that name
// no workflow.
func (v *RefCheck) Fail(kind, tenant, workflow string, seq uint64, format string, args ...any) {
	k := tenant + "\x00" + workflow
	if workflow == "" {
		k += "\x00" + kind
	}
	if _, ok := v.reps[k]; ok {
		return
	}
	v.reps[k] = &store.VerifyReport{Tenant: tenant, Workflow: workflow, BrokenSeq: seq, Problem: kind + ": " + fmt.Sprintf(format, args...)}
}

// Reports lists the problems found, by tenant and chain.
func (v *RefCheck) Reports() []store.VerifyReport {
	out := make([]store.VerifyReport, 0, len(v.reps))
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
func (v *RefCheck) reader(read Reader) Reader {
	return func(tenant, workflow string, seq uint64) (Record, bool, error) {
		sr, found, err := read(tenant, workflow, seq)
		if err != nil && !errors.Is(err, ErrCorrupt) && v.readErr == nil {
			v.readErr = err
		}
		return sr, found, err
	}
}

// Key checks idempotency key key of tenant, whose value decoded to e (ok false: it did
// not decode; legacy: an earlier format's key, bound to no record).
func (v *RefCheck) Key(tenant, key string, e IdemEntry, ok, legacy bool, read Reader, head HeadReader) error {
	const kind = "idempotency"
	switch {
	case canary.SkipReferenceCheck:
		return nil
	case legacy:
		v.Fail(kind, tenant, e.Workflow, 0, "key %q was written by an earlier store format and is bound to no record", key)
		return nil
	case !ok:
		v.Fail(kind, tenant, "", 0, "key %q is undecodable", key)
		return nil
	}
	h, found, err := head(tenant, e.Workflow)
	switch {
	case err != nil:
		return err
	case !found:
		v.Fail(kind, tenant, e.Workflow, 0, "key %q names workflow %q, which tenant %q does not have", key, e.Workflow, tenant)
		return nil
	case e.Seq > h.Seq:
		v.Fail(kind, tenant, e.Workflow, e.Seq, "key %q names record %d, past the head of workflow %q (record %d)", key, e.Seq, e.Workflow, h.Seq)
		return nil
	}
	rec, err := CheckBound(v.reader(read), tenant, key, e)
	if v.readErr != nil {
		return v.readErr
	}
	if err != nil {
		v.Fail(kind, tenant, e.Workflow, e.Seq, "%s", strings.TrimPrefix(strings.TrimPrefix(err.Error(), store.ErrTampered.Error()+": "), "idempotency "))
		return nil
	}
	if v.claims == nil {
		return nil
	}
	switch c := v.claims(rec.Payload); {
	case c.Key != key:
		v.Fail(kind, tenant, e.Workflow, e.Seq, "key %q is bound to record %d of workflow %q, which answers request %q", key, e.Seq, e.Workflow, c.Key)
	case c.Digest != e.Digest:
		v.Fail(kind, tenant, e.Workflow, e.Seq, "key %q holds digest %s, but record %d of workflow %q answers a request with digest %s", key, e.Digest, e.Seq, e.Workflow, c.Digest)
	}
	return nil
}

// ID checks the index entry of record id id, which decoded to loc (ok false: it did
// not decode).
func (v *RefCheck) ID(id string, loc store.Location, ok bool, read Reader, head HeadReader) error {
	const kind = "index"
	switch {
	case canary.SkipReferenceCheck:
		return nil
	case !ok:
		v.Fail(kind, "", "", 0, "the entry of id %q is undecodable", id)
		return nil
	}
	h, found, err := head(loc.Tenant, loc.Workflow)
	switch {
	case err != nil:
		return err
	case !found && !loc.Audit():
		v.Fail(kind, loc.Tenant, loc.Workflow, 0, "id %q names workflow %q, which tenant %q does not have", id, loc.Workflow, loc.Tenant)
		return nil
	case loc.Seq > h.Seq:
		v.Fail(kind, loc.Tenant, loc.Workflow, loc.Seq, "id %q names record %d, past the head of its chain (record %d)", id, loc.Seq, h.Seq)
		return nil
	}
	sr, problem := Located(v.reader(read), loc)
	if v.readErr != nil {
		return v.readErr
	}
	if problem != "" {
		v.Fail(kind, loc.Tenant, loc.Workflow, loc.Seq, "id %q names %s", id, problem)
		return nil
	}
	if v.claims == nil {
		return nil
	}
	if c := v.claims(sr.Payload); c.ID != id {
		v.Fail(kind, loc.Tenant, loc.Workflow, loc.Seq, "id %q names record %d, which holds id %q", id, loc.Seq, c.ID)
	}
	return nil
}
