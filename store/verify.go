package store

import (
	"context"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/internal/canary"
)

// VerifyReport is the result of walking a hash chain.
type VerifyReport struct {
	Tenant   string `json:"tenant"`
	Workflow string `json:"workflow"` // "" for an audit stream

	// Records is the number of records verified before the first problem
	// (all of them when OK).
	Records uint64 `json:"records"`

	OK bool `json:"ok"` // the chain and its head are intact

	// BrokenSeq is the seq of the first broken or missing record; 0 when
	// OK, or when the problem is not in a record (a missing head, a wrong
	// owner index).
	BrokenSeq uint64 `json:"broken_seq"`

	Problem string `json:"problem"` // what is wrong; "" when OK
}

func (r *VerifyReport) fail(seq uint64, format string, args ...any) {
	r.OK, r.BrokenSeq, r.Problem = false, seq, fmt.Sprintf(format, args...)
}

// Verify walks the chain of a workflow of tenant: every record's hash is
// recomputed from its contents, every prev_hash must be the hash of the
// record before, seqs must run from 1 without a gap, the head must name
// the last record, and the owner index must name tenant. The report names
// the first problem found; a workflow whose head and records are all gone
// while the owner index still names it is reported too. An error means the
// walk could not be made: the workflow does not exist (ErrNotFound) or the
// storage failed. It is safe for concurrent use.
func (l *Badger) Verify(ctx context.Context, tenant, workflow string) (VerifyReport, error) {
	if err := l.begin(ctx); err != nil {
		return VerifyReport{}, err
	}
	defer l.end()
	rep := VerifyReport{Tenant: tenant, Workflow: workflow, OK: true}
	err := l.db.View(func(txn *badger.Txn) error {
		hv, headFound, err := getValue(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		c := chain{domain: domainRecord, tenant: tenant, workflow: workflow, rep: &rep}
		prefix := recordsPrefix(tenant, workflow)
		if err := c.walk(ctx, txn, prefix); err != nil {
			return err
		}
		owner, ownerFound, err := getValue(txn, ownerKey(workflow))
		if err != nil {
			return err
		}
		if !headFound && c.seq == 0 && rep.OK {
			if !ownerFound || string(owner) != tenant {
				return fmt.Errorf("%w: %q", ErrNotFound, workflow)
			}
			rep.fail(1, "head and records missing: the owner index names this workflow")
			return nil
		}
		if !rep.OK {
			return nil
		}
		if !headFound {
			rep.fail(0, "workflow head missing")
			return nil
		}
		head, err := decodeHead(hv)
		if err != nil {
			rep.fail(0, "workflow head undecodable")
			return nil
		}
		if !c.checkHead(head) {
			return nil
		}
		if head.StateVersion > head.Seq {
			rep.fail(0, "head state version %d exceeds its %d records", head.StateVersion, head.Seq)
			return nil
		}
		if !checkStanding(&rep, head) {
			return nil
		}
		switch {
		case !ownerFound:
			rep.fail(0, "owner index missing")
		case string(owner) != tenant:
			rep.fail(0, "owner index names tenant %q", owner)
		}
		return nil
	})
	if err != nil {
		return VerifyReport{}, wrap("verify", err)
	}
	return rep, nil
}

// checkStanding checks the standing record a head names against the head, recording a
// problem in rep; it reports whether it is sound. Which record it must be is the
// writer's to say: the engine checks it against the decisions.
func checkStanding(rep *VerifyReport, h Head) bool {
	switch {
	case h.StandingUnknown:
		return true
	case h.StandingSeq > h.Seq:
		rep.fail(0, "head names record %d as the standing record, past its %d records", h.StandingSeq, h.Seq)
		return false
	case (h.StandingSeq == 0) != (h.Standing == ""):
		rep.fail(0, "head names record %d as the standing record with the tag %q", h.StandingSeq, h.Standing)
		return false
	}
	return true
}

// verifyOwners checks the owner index of the workflows of c's tenants: an entry naming
// a tenant that has no such workflow keeps the id from ever being used, and no chain's
// Verify sees it.
func verifyOwners(ctx context.Context, txn *badger.Txn, c IndexCheck, v *refCheck) error {
	if canary.SkipReferenceCheck {
		return nil
	}
	prefix := []byte(tagOwner)
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	n := 0
	for it.Seek(prefix); it.Valid(); it.Next() {
		if n++; n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		workflow, rest, ok := readComponent(it.Item().Key()[len(prefix):])
		if !ok || len(rest) != 0 {
			return fmt.Errorf("owner key: %w", errCorrupt)
		}
		owner, err := itemValue(it.Item())
		if err != nil {
			return err
		}
		if c.All || string(owner) == c.Tenant {
			_, found, err := getValue(txn, headKey(string(owner), workflow))
			if err != nil {
				return err
			}
			if !found && !hasKey(txn, recordsPrefix(string(owner), workflow)) {
				v.fail("owner", string(owner), workflow, 0, "the owner index names tenant %q for workflow %q, which that tenant does not have: the id can never be used", owner, workflow)
			}
		}
	}
	return nil
}

// chain checks records in key order.
type chain struct {
	domain, tenant, workflow string
	rep                      *VerifyReport

	seq  uint64 // seq of the last good record
	hash string // its hash
}

// walk checks every record under prefix until the first problem, which it
// records in c.rep. Errors are storage failures only.
func (c *chain) walk(ctx context.Context, txn *badger.Txn, prefix []byte) error {
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	for it.Seek(prefix); it.Valid(); it.Next() {
		if c.seq%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		item := it.Item()
		want := c.seq + 1
		seq, ok := seqFromKey(item.Key(), prefix)
		switch {
		case !ok:
			c.rep.fail(want, "malformed record key %x", item.Key())
			return nil
		case seq != want:
			c.rep.fail(want, "record %d missing (next record is %d)", want, seq)
			return nil
		}
		var problem string
		err := withItemValue(item, func(v []byte) error {
			problem = c.check(seq, v)
			return nil
		})
		if err != nil {
			return err
		}
		if problem != "" {
			c.rep.fail(seq, "%s", problem)
			return nil
		}
		c.rep.Records++
	}
	return nil
}

// check verifies one record value stored under seq and advances the chain;
// it returns the problem, or "".
func (c *chain) check(seq uint64, v []byte) string {
	r, err := decodeRecord(v)
	if err != nil {
		return "record undecodable"
	}
	return c.checkRecord(seq, &r)
}

// checkRecord verifies one record stored under seq and advances the chain; it returns
// the problem, or "".
func (c *chain) checkRecord(seq uint64, r *storedRecord) string {
	switch {
	case r.Seq != seq:
		return fmt.Sprintf("record holds seq %d", r.Seq)
	case r.PrevHash != c.hash && c.seq == 0 && !canary.SkipPrevHashCheck:
		return "first record has a prev_hash"
	case r.PrevHash != c.hash && !canary.SkipPrevHashCheck:
		return fmt.Sprintf("prev_hash is not the hash of record %d", c.seq)
	}
	if _, err := time.Parse(time.RFC3339Nano, r.Time); err != nil {
		return "record time is not RFC 3339"
	}
	want := recordHash(c.domain, r.Seq, r.Time, r.Type, r.Payload, r.PrevHash, c.tenant, c.workflow)
	if r.Hash != want {
		return fmt.Sprintf("hash mismatch: recorded %s, computed %s", r.Hash, want)
	}
	c.seq, c.hash = r.Seq, r.Hash
	return ""
}

// checkHead compares a head with the end of a walked chain, recording a
// problem in c.rep; it reports whether they agree.
func (c *chain) checkHead(h Head) bool {
	switch {
	case h.Seq > c.seq:
		if c.seq+1 == h.Seq {
			c.rep.fail(c.seq+1, "record %d missing: the head is at %d, the log ends at %d", h.Seq, h.Seq, c.seq)
		} else {
			c.rep.fail(c.seq+1, "records %d to %d missing: the head is at %d, the log ends at %d", c.seq+1, h.Seq, h.Seq, c.seq)
		}
	case h.Seq < c.seq:
		c.rep.fail(h.Seq+1, "record %d is past the head (seq %d)", h.Seq+1, h.Seq)
	case h.Hash != c.hash:
		c.rep.fail(h.Seq, "head hash does not match record %d", h.Seq)
	default:
		return true
	}
	return false
}

// VerifyIndexes checks what names the records of the chains from outside them, from one
// consistent view: the idempotency keys and the record index entries of c.Tenant (of
// every tenant with c.All). Each must name a record that is there, unaltered, with the
// hash it holds, no further than its chain's head, in a chain of its tenant; with
// c.Claims, a key's record must also answer that key with the key's digest and an index
// entry's record hold the entry's id. Verify walks a chain but cannot see a key or an id
// that names a record cut from its end with the head set back: this does. It returns one
// report per chain with a problem (Problem starts with "idempotency: " or "index: "),
// none when all is well. An error means the check could not be made. It is safe for
// concurrent use.
func (l *Badger) VerifyIndexes(ctx context.Context, c IndexCheck) ([]VerifyReport, error) {
	if err := l.begin(ctx); err != nil {
		return nil, err
	}
	defer l.end()
	v := newRefCheck(c)
	err := l.db.View(func(txn *badger.Txn) error {
		read := badgerReader(txn)
		head := func(tenant, workflow string) (Head, bool, error) {
			if workflow == "" {
				return getAuditHead(txn, tenant)
			}
			return getHead(txn, headKey(tenant, workflow))
		}
		tenants := []string{c.Tenant}
		if c.All {
			var err error
			if tenants, err = listTenants(ctx, txn); err != nil {
				return err
			}
		}
		n := 0
		for _, tenant := range tenants {
			prefix := append(tenantPrefix(tenant), tagIdem...)
			it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
			for it.Seek(prefix); it.Valid(); it.Next() {
				if n++; n%ctxCheckEvery == 0 {
					if err := ctx.Err(); err != nil {
						it.Close()
						return err
					}
				}
				key, rest, ok := readComponent(it.Item().Key()[len(prefix):])
				if !ok || len(rest) != 0 {
					it.Close()
					return fmt.Errorf("idempotency key: %w", errCorrupt)
				}
				val, err := itemValue(it.Item())
				if err != nil {
					it.Close()
					return err
				}
				e, err := decodeIdem(val)
				legacy := false
				if err != nil {
					if le, lerr := decodeLegacyIdem(val); lerr == nil {
						e, legacy = idemEntry{Digest: le.Digest, Workflow: le.Workflow}, true
					}
				}
				if c.Workflow != "" && (err != nil && !legacy || e.Workflow != c.Workflow) {
					continue // another workflow's, or for the check of the whole tenant to report
				}
				if err := v.key(tenant, key, e, err == nil, legacy, read, head); err != nil {
					it.Close()
					return err
				}
			}
			it.Close()
		}
		if err := verifyOwners(ctx, txn, c, v); err != nil {
			return err
		}
		prefix := []byte(tagIndex)
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			if n++; n%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			id, rest, ok := readComponent(it.Item().Key()[len(prefix):])
			if !ok || len(rest) != 0 {
				return fmt.Errorf("index key: %w", errCorrupt)
			}
			val, err := itemValue(it.Item())
			if err != nil {
				return err
			}
			loc, err := decodeLocation(val)
			switch {
			case err != nil && !c.All:
				continue // its tenant cannot be told: the check of every tenant reports it
			case err == nil && !c.All && loc.Tenant != c.Tenant:
				continue
			case c.Workflow != "" && (err != nil || loc.Workflow != c.Workflow):
				continue
			}
			if err := v.id(id, loc, err == nil, read, head); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrap("verify indexes", err)
	}
	return v.reports(), nil
}
