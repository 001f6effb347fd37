package badger

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// Verify walks the chain of a workflow of tenant: every record's hash is
// recomputed from its contents, every prev_hash must be the hash of the
// record before, seqs must run from 1 without a gap, the head must name
// the last record, and the owner index must name tenant. The report names
// the first problem found; a workflow whose head and records are all gone
// while the owner index still names it is reported too. An error means the
// walk could not be made: the workflow does not exist (ErrNotFound) or the
// storage failed. It is safe for concurrent use.
func (l *Log) Verify(ctx context.Context, tenant, workflow string) (store.VerifyReport, error) {
	if err := l.begin(ctx); err != nil {
		return store.VerifyReport{}, err
	}
	defer l.end()
	rep := store.VerifyReport{Tenant: tenant, Workflow: workflow, OK: true}
	err := l.db.View(func(txn *badger.Txn) error {
		hv, headFound, err := getValue(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		c := chain.Checker{Domain: store.DomainRecord, Tenant: tenant, Workflow: workflow, Rep: &rep}
		prefix := recordsPrefix(tenant, workflow)
		if err := walk(ctx, &c, txn, prefix); err != nil {
			return err
		}
		owner, ownerFound, err := getValue(txn, ownerKey(workflow))
		if err != nil {
			return err
		}
		if !headFound && c.Seq == 0 && rep.OK {
			if !ownerFound || string(owner) != tenant {
				return fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
			}
			chain.Fail(&rep, 1, "head and records missing: the owner index names this workflow")
			return nil
		}
		if !rep.OK {
			return nil
		}
		if !headFound {
			chain.Fail(&rep, 0, "workflow head missing")
			return nil
		}
		head, err := chain.DecodeHead(hv)
		if err != nil {
			chain.Fail(&rep, 0, "workflow head undecodable")
			return nil
		}
		if !c.CheckHead(head) {
			return nil
		}
		if head.StateVersion > head.Seq {
			chain.Fail(&rep, 0, "head state version %d exceeds its %d records", head.StateVersion, head.Seq)
			return nil
		}
		if !chain.CheckStanding(&rep, head) {
			return nil
		}
		switch {
		case !ownerFound:
			chain.Fail(&rep, 0, "owner index missing")
		case string(owner) != tenant:
			chain.Fail(&rep, 0, "owner index names tenant %q", owner)
		}
		return nil
	})
	if err != nil {
		return store.VerifyReport{}, wrap("verify", err)
	}
	return rep, nil
}

// verifyOwners checks the owner index of the workflows of c's tenants: an entry naming
// a tenant that has no such workflow keeps the id from ever being used, and no chain's
// Verify sees it.
func verifyOwners(ctx context.Context, txn *badger.Txn, c store.IndexCheck, v *chain.RefCheck) error {
	if canary.SkipReferenceCheck {
		return nil
	}
	n := 0
	return walkEntries(ctx, txn, []byte(tagOwner), "owner", &n, func(workflow string, owner []byte) error {
		if c.All || string(owner) == c.Tenant {
			_, found, err := getValue(txn, headKey(string(owner), workflow))
			if err != nil {
				return err
			}
			if !found && !hasKey(txn, recordsPrefix(string(owner), workflow)) {
				v.Fail("owner", string(owner), workflow, 0, "the owner index names tenant %q for workflow %q, which that tenant does not have: the id can never be used", owner, workflow)
			}
		}
		return nil
	})
}

// walk checks every record under prefix until the first problem, which it
// records in c.Rep. Errors are storage failures only.
func walk(ctx context.Context, c *chain.Checker, txn *badger.Txn, prefix []byte) error {
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	for it.Seek(prefix); it.Valid(); it.Next() {
		if c.Seq%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		item := it.Item()
		want := c.Seq + 1
		seq, ok := seqFromKey(item.Key(), prefix)
		switch {
		case !ok:
			chain.Fail(c.Rep, want, "malformed record key %x", item.Key())
			return nil
		case seq != want:
			chain.Fail(c.Rep, want, "record %d missing (next record is %d)", want, seq)
			return nil
		}
		var problem string
		err := withItemValue(item, func(v []byte) error {
			problem = c.Check(seq, v)
			return nil
		})
		if err != nil {
			return err
		}
		if problem != "" {
			chain.Fail(c.Rep, seq, "%s", problem)
			return nil
		}
		c.Rep.Records++
	}
	return nil
}

// VerifyIndexes checks what names the records of the chains from outside them, from one
// consistent view: the idempotency keys, the record index entries and the summaries of
// c.Tenant (of every tenant with c.All). Each key and entry must name a record that is
// there, unaltered, with the hash it holds, no further than its chain's head, in a chain
// of its tenant; with c.Claims, a key's record must also answer that key with the key's
// digest and an index entry's record hold the entry's id. Each summary must be its
// workflow's, written at its head, and every workflow have one or be marked unsummarized.
// Verify walks a chain but cannot see a key or an id that names a record cut from its
// end with the head set back: this does. It returns one report per chain with a problem
// (Problem starts with "idempotency: ", "index: " or "summary: "), none when all is well.
// An error means the check could not be made. It is safe for concurrent use.
func (l *Log) VerifyIndexes(ctx context.Context, c store.IndexCheck) ([]store.VerifyReport, error) {
	if err := l.begin(ctx); err != nil {
		return nil, err
	}
	defer l.end()
	v := chain.NewRefCheck(c)
	err := l.db.View(func(txn *badger.Txn) error {
		read := badgerReader(txn)
		head := func(tenant, workflow string) (store.Head, bool, error) {
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
			err := walkEntries(ctx, txn, append(tenantPrefix(tenant), tagIdem...), "idempotency", &n, func(key string, val []byte) error {
				e, err := chain.DecodeIdem(val)
				legacy := false
				if err != nil {
					if le, lerr := decodeLegacyIdem(val); lerr == nil {
						e, legacy = chain.IdemEntry{Digest: le.Digest, Workflow: le.Workflow}, true
					}
				}
				if c.Workflow != "" && (err != nil && !legacy || e.Workflow != c.Workflow) {
					return nil // another workflow's, or for the check of the whole tenant to report
				}
				return v.Key(tenant, key, e, err == nil, legacy, read, head)
			})
			if err != nil {
				return err
			}
		}
		if err := verifyOwners(ctx, txn, c, v); err != nil {
			return err
		}
		err := walkEntries(ctx, txn, []byte(tagIndex), "index", &n, func(id string, val []byte) error {
			loc, err := chain.DecodeLocation(val)
			switch {
			case err != nil && !c.All:
				return nil // its tenant cannot be told: the check of every tenant reports it
			case err == nil && !c.All && loc.Tenant != c.Tenant:
				return nil
			case c.Workflow != "" && (err != nil || loc.Workflow != c.Workflow):
				return nil
			}
			return v.ID(id, loc, err == nil, read, head)
		})
		if err != nil {
			return err
		}
		// Last: a chain with a problem of its keys or ids is reported for that.
		for _, tenant := range tenants {
			if err := l.verifySummaries(ctx, txn, tenant, c, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, wrap("verify indexes", err)
	}
	return v.Reports(), nil
}
