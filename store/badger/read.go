package badger

import (
	"bytes"
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// ctxCheckEvery is how many keys an iteration walks between checks of its
// context.
const ctxCheckEvery = 256

// Idempotent looks up an idempotency key of tenant without writing anything: the
// digest recorded with it, the record that answers it, and whether it was found. The
// record is read in the same view and checked against the hash the key was bound to;
// when it is not that record, unaltered, Idempotent fails with ErrTampered. It is safe
// for concurrent use.
func (l *Log) Idempotent(ctx context.Context, tenant, key string) (digest string, answer store.Record, found bool, err error) {
	if err := l.begin(ctx); err != nil {
		return "", store.Record{}, false, err
	}
	defer l.end()
	err = l.db.View(func(txn *badger.Txn) error {
		v, ok, err := getIdem(txn, tenant, key)
		if err != nil || !ok {
			return err
		}
		found = true
		e, err := chain.DecodeIdem(v)
		if err != nil {
			return fmt.Errorf("%w: idempotency key %q is undecodable", store.ErrTampered, key)
		}
		digest = e.Digest
		answer, err = boundRecord(txn, tenant, key, e)
		return err
	})
	if err != nil {
		return "", store.Record{}, false, wrap("idempotent", err)
	}
	return digest, answer, found, nil
}

// State returns the snapshot and head of a workflow of tenant, read
// together. The snapshot is nil if no append set one. It fails with
// ErrNotFound if tenant has no such workflow. It is safe for concurrent
// use.
func (l *Log) State(ctx context.Context, tenant, workflow string) (snapshot []byte, head store.Head, err error) {
	if err := l.begin(ctx); err != nil {
		return nil, store.Head{}, err
	}
	defer l.end()
	err = l.db.View(func(txn *badger.Txn) error {
		var found bool
		head, found, err = getHead(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
		}
		snapshot, _, err = getValue(txn, snapshotKey(tenant, workflow))
		return err
	})
	if err != nil {
		return nil, store.Head{}, wrap("state", err)
	}
	return snapshot, head, nil
}

// Owner returns the tenant that created workflow. It is the only read not
// scoped by tenant: it lets a caller tell "no such workflow" from "a
// workflow of another tenant" and refuse the second. It is safe for
// concurrent use.
func (l *Log) Owner(ctx context.Context, workflow string) (tenant string, found bool, err error) {
	if err := l.begin(ctx); err != nil {
		return "", false, err
	}
	defer l.end()
	err = l.db.View(func(txn *badger.Txn) error {
		v, ok, err := getValue(txn, ownerKey(workflow))
		tenant, found = string(v), ok
		return err
	})
	if err != nil {
		return "", false, wrap("owner", err)
	}
	return tenant, found, nil
}

// Record reads record seq of a workflow of tenant, or of the tenant's audit stream when
// workflow is "", with one key read: for a caller that wants one record, where Records
// would read ahead. It fails with an error matching ErrNotFound when there is no such
// record. It is safe for concurrent use.
func (l *Log) Record(ctx context.Context, tenant, workflow string, seq uint64) (store.Record, error) {
	if err := l.begin(ctx); err != nil {
		return store.Record{}, err
	}
	defer l.end()
	var rec store.Record
	err := l.db.View(func(txn *badger.Txn) error {
		var err error
		rec, err = chain.ReadRecord(badgerReader(txn), tenant, workflow, seq)
		return err
	})
	if err != nil {
		return store.Record{}, wrap("record", err)
	}
	return rec, nil
}

// Records calls fn with the records of a workflow of tenant in seq order,
// starting at fromSeq (0 and 1 both mean the first record), from one
// consistent view of the log. An error from fn stops the walk and is
// returned as is. It fails with ErrNotFound if tenant has no such workflow.
// It is safe for concurrent use.
func (l *Log) Records(ctx context.Context, tenant, workflow string, fromSeq uint64, fn func(store.Record) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		_, found, err := getValue(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		prefix := recordsPrefix(tenant, workflow)
		n, err := walkRecords(ctx, txn, prefix, max(fromSeq, 1), fn)
		if err == nil && n == 0 && !found && !hasKey(txn, prefix) {
			return fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
		}
		return err
	})
	return unwrapCallback("records", err)
}

// walkRecords calls fn for each record under prefix from seq from on and
// returns how many it visited.
func walkRecords(ctx context.Context, txn *badger.Txn, prefix []byte, from uint64, fn func(store.Record) error) (int, error) {
	it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	n := 0
	for it.Seek(appendSeq(bytes.Clone(prefix), from)); it.Valid(); it.Next() {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		item := it.Item()
		if _, ok := seqFromKey(item.Key(), prefix); !ok {
			return n, fmt.Errorf("record key: %w", chain.ErrCorrupt)
		}
		var sr chain.Record
		err := withItemValue(item, func(v []byte) error {
			var err error
			sr, err = chain.DecodeRecord(v)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("record: %w", err)
		}
		if err := chain.Deliver(&sr, fn); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// hasKey reports whether any key starts with prefix.
func hasKey(txn *badger.Txn, prefix []byte) bool {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	it.Seek(prefix)
	return it.Valid()
}

// Workflows calls fn with every workflow of tenant and its head, in
// workflow id order, from one consistent view. An error from fn stops the
// walk and is returned as is. A workflow whose head is missing is listed
// with a zero Head (Verify reports it). It is safe for concurrent use.
func (l *Log) Workflows(ctx context.Context, tenant string, fn func(workflow string, head store.Head) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: workflowsPrefix(tenant)})
		defer it.Close()
		return walkWorkflows(ctx, txn, it, tenant, fn)
	})
	return unwrapCallback("workflows", err)
}

// walkWorkflows calls fn with each workflow of tenant and its head, in workflow id
// order, seeking it past the keys of each. An error from fn comes back as a
// CallbackError.
func walkWorkflows(ctx context.Context, txn *badger.Txn, it *badger.Iterator, tenant string, fn func(workflow string, head store.Head) error) error {
	prefix := workflowsPrefix(tenant)
	for it.Seek(prefix); it.ValidForPrefix(prefix); {
		if err := ctx.Err(); err != nil {
			return err
		}
		workflow, _, ok := readComponent(it.Item().Key()[len(prefix):])
		if !ok {
			return fmt.Errorf("workflow key: %w", chain.ErrCorrupt)
		}
		head, _, err := getHead(txn, headKey(tenant, workflow))
		if err != nil {
			return err
		}
		if err := fn(workflow, head); err != nil {
			return chain.CallbackError{Err: err}
		}
		it.Seek(skipPast(workflowPrefix(tenant, workflow)))
	}
	return nil
}

// Tenants returns every tenant with at least one workflow, idempotency key
// or audit record, in order. It is safe for concurrent use.
func (l *Log) Tenants(ctx context.Context) ([]string, error) {
	if err := l.begin(ctx); err != nil {
		return nil, err
	}
	defer l.end()
	var tenants []string
	err := l.db.View(func(txn *badger.Txn) error {
		var err error
		tenants, err = listTenants(ctx, txn)
		return err
	})
	if err != nil {
		return nil, wrap("tenants", err)
	}
	return tenants, nil
}

// listTenants lists the tenants with any key in txn, in order.
func listTenants(ctx context.Context, txn *badger.Txn) ([]string, error) {
	var tenants []string
	prefix := []byte(tagTenant)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	for it.Seek(prefix); it.Valid(); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tenant, _, ok := readComponent(it.Item().Key()[len(prefix):])
		if !ok {
			return nil, fmt.Errorf("tenant key: %w", chain.ErrCorrupt)
		}
		tenants = append(tenants, tenant)
		it.Seek(skipPast(tenantPrefix(tenant)))
	}
	return tenants, nil
}

// Find returns where the record with id is, from the index written with it:
// one key read, then one read of the record, which must be there with the
// hash the index holds and must hash to it (ErrTampered otherwise). An id
// no record has fails with an error matching ErrNotFound. Records appended
// without an ID, and those of a store Unindexed reports, are not found. It
// is safe for concurrent use.
func (l *Log) Find(ctx context.Context, id string) (store.Location, error) {
	if err := l.begin(ctx); err != nil {
		return store.Location{}, err
	}
	defer l.end()
	var loc store.Location
	err := l.db.View(func(txn *badger.Txn) error {
		v, found, err := getValue(txn, indexKey(id))
		if err != nil {
			return err
		}
		if !found {
			return chain.IDNotFound{ID: id}
		}
		if loc, err = chain.DecodeLocation(v); err != nil {
			return fmt.Errorf("%w: the index entry of id %q is undecodable", store.ErrTampered, id)
		}
		if problem := checkIndexed(txn, loc); problem != "" {
			return fmt.Errorf("%w: the index entry of id %q names %s", store.ErrTampered, id, problem)
		}
		return nil
	})
	if err != nil {
		return store.Location{}, wrap("find", err)
	}
	return loc, nil
}

// checkIndexed reads the record an index entry names and returns what is
// wrong with it, or "" when it is there, unaltered, with the hash the entry
// holds.
func checkIndexed(txn *badger.Txn, loc store.Location) string {
	return chain.CheckLocated(badgerReader(txn), loc)
}

// Chains calls fn with every chain of the store, from one consistent view,
// in key order: tenant by tenant, each tenant's audit stream (when it has
// one) before its workflows, which come in id order. An error from fn stops
// the walk and is returned as is. fn runs inside the view: a caller that
// reads a chain's records per chain should collect the chains first. It is
// safe for concurrent use.
func (l *Log) Chains(ctx context.Context, fn func(store.Chain) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		prefix := []byte(tagTenant)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); {
			if err := ctx.Err(); err != nil {
				return err
			}
			tenant, _, ok := readComponent(it.Item().Key()[len(prefix):])
			if !ok {
				return fmt.Errorf("tenant key: %w", chain.ErrCorrupt)
			}
			head, found, err := getAuditHead(txn, tenant)
			if err != nil {
				return err
			}
			if found || hasKey(txn, auditPrefix(tenant)) {
				if err := fn(store.Chain{Tenant: tenant, Audit: true, Head: head}); err != nil {
					return chain.CallbackError{Err: err}
				}
			}
			err = walkWorkflows(ctx, txn, it, tenant, func(workflow string, head store.Head) error {
				return fn(store.Chain{Tenant: tenant, Workflow: workflow, Head: head})
			})
			if err != nil {
				return err
			}
			it.Seek(skipPast(tenantPrefix(tenant)))
		}
		return nil
	})
	return unwrapCallback("chains", err)
}

// Size is the store's size on disk in bytes: its tables and its value log, as the
// storage engine last measured them (it does every minute). Zero for a store in memory.
func (l *Log) Size() int64 {
	lsm, vlog := l.db.Size()
	return lsm + vlog
}
