package store

import (
	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/internal/canary"
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
	v, err := it.Item().ValueCopy(nil)
	return v, err == nil, err
}
