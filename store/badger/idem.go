package badger

import (
	"context"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// getIdem reads the entry of idempotency key key of tenant: one point read of the exact
// key (a key is never found by a scan, which would also let "r-1" find the entry of
// "r-10").
func getIdem(txn *badger.Txn, tenant, key string) (value []byte, found bool, err error) {
	if canary.IdempotencyRangeScan {
		return scanIdem(txn, tenant, key)
	}
	return getValue(txn, idemKey(tenant, key))
}

// scanIdem is the canary_idemscan bug: the first entry whose key starts with the raw
// bytes of key.
func scanIdem(txn *badger.Txn, tenant, key string) ([]byte, bool, error) {
	prefix := append(append(tenantPrefix(tenant), tagIdem...), key...)
	it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	it.Seek(prefix)
	if !it.Valid() {
		return nil, false, nil
	}
	v, err := itemValue(it.Item())
	return v, err == nil, err
}

// boundRecord reads the record an idempotency entry names and checks that it is the
// record the entry was written with, unaltered: ErrTampered otherwise.
func boundRecord(txn *badger.Txn, tenant, key string, e chain.IdemEntry) (store.Record, error) {
	return chain.CheckBound(badgerReader(txn), tenant, key, e)
}

// badgerReader reads records in txn.
func badgerReader(txn *badger.Txn) chain.Reader {
	return func(tenant, workflow string, seq uint64) (chain.Record, bool, error) {
		key := recordKey(tenant, workflow, seq)
		if workflow == "" {
			key = auditKey(tenant, seq)
		}
		v, found, err := getValue(txn, key)
		if err != nil || !found {
			return chain.Record{}, found, err
		}
		sr, err := chain.DecodeRecord(v)
		if err != nil {
			return chain.Record{}, true, chain.ErrCorrupt
		}
		return sr, true, nil
	}
}

// IdempotencyKeys calls fn with every idempotency key of tenant, in key order, from one
// consistent view. An entry that cannot be decoded is passed with only its Key set. An
// error from fn stops the walk and is returned as is. It is safe for concurrent use.
func (l *Log) IdempotencyKeys(ctx context.Context, tenant string, fn func(store.Idempotency) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		prefix := append(tenantPrefix(tenant), tagIdem...)
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
		defer it.Close()
		n := 0
		for it.Seek(prefix); it.Valid(); it.Next() {
			if n%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			n++
			key, v, err := readEntry(it.Item(), prefix, "idempotency")
			if err != nil {
				return err
			}
			idem := store.Idempotency{Key: key}
			if e, err := chain.DecodeIdem(v); err == nil {
				idem = store.Idempotency{Key: key, Digest: e.Digest, Workflow: e.Workflow, Seq: e.Seq, Hash: e.Hash}
			} else if e, err := decodeLegacyIdem(v); err == nil {
				idem = store.Idempotency{Key: key, Digest: e.Digest, Workflow: e.Workflow, Unbound: true}
			}
			if err := fn(idem); err != nil {
				return chain.CallbackError{Err: err}
			}
		}
		return nil
	})
	return unwrapCallback("idempotency keys", err)
}
