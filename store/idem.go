package store

import (
	"context"
	"errors"
	"fmt"

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
	v, err := itemValue(it.Item())
	return v, err == nil, err
}

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

// boundRecord reads the record an idempotency entry names and checks that it is the
// record the entry was written with, unaltered: ErrTampered otherwise.
func boundRecord(txn *badger.Txn, tenant, key string, e idemEntry) (Record, error) {
	return checkBound(badgerReader(txn), tenant, key, e)
}

// checkBound reads, with read, the record an idempotency entry names and checks that it
// is the record the entry was written with, unaltered: ErrTampered otherwise.
func checkBound(read recordReader, tenant, key string, e idemEntry) (Record, error) {
	sr, found, err := read(tenant, e.Workflow, e.Seq)
	switch {
	case errors.Is(err, errCorrupt):
		return Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is undecodable", ErrTampered, key, e.Seq, e.Workflow)
	case err != nil:
		return Record{}, err
	}
	if !found {
		return Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is not there", ErrTampered, key, e.Seq, e.Workflow)
	}
	if sr.Seq != e.Seq {
		return Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is undecodable", ErrTampered, key, e.Seq, e.Workflow)
	}
	if !canary.TrustIdempotencyEntry && (sr.Hash != e.Hash || recordHash(domainRecord, sr.Seq, sr.Time, sr.Type, sr.Payload, sr.PrevHash, tenant, e.Workflow) != sr.Hash) {
		return Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, whose hash differs", ErrTampered, key, e.Seq, e.Workflow)
	}
	rec, err := sr.record()
	if err != nil {
		return Record{}, fmt.Errorf("%w: idempotency key %q names record %d of workflow %q, which is undecodable", ErrTampered, key, e.Seq, e.Workflow)
	}
	return rec, nil
}

// recordReader reads the record of a chain at seq (workflow "" names the tenant's audit
// stream); an undecodable record fails with errCorrupt.
type recordReader func(tenant, workflow string, seq uint64) (r storedRecord, found bool, err error)

// badgerReader reads records in txn.
func badgerReader(txn *badger.Txn) recordReader {
	return func(tenant, workflow string, seq uint64) (storedRecord, bool, error) {
		key := recordKey(tenant, workflow, seq)
		if workflow == "" {
			key = auditKey(tenant, seq)
		}
		v, found, err := getValue(txn, key)
		if err != nil || !found {
			return storedRecord{}, found, err
		}
		sr, err := decodeRecord(v)
		if err != nil {
			return storedRecord{}, true, errCorrupt
		}
		return sr, true, nil
	}
}

// IdempotencyKeys calls fn with every idempotency key of tenant, in key order, from one
// consistent view. An entry that cannot be decoded is passed with only its Key set. An
// error from fn stops the walk and is returned as is. It is safe for concurrent use.
func (l *Badger) IdempotencyKeys(ctx context.Context, tenant string, fn func(Idempotency) error) error {
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
			key, rest, ok := readComponent(it.Item().Key()[len(prefix):])
			if !ok || len(rest) != 0 {
				return fmt.Errorf("idempotency key: %w", errCorrupt)
			}
			v, err := itemValue(it.Item())
			if err != nil {
				return err
			}
			idem := Idempotency{Key: key}
			if e, err := decodeIdem(v); err == nil {
				idem = Idempotency{Key: key, Digest: e.Digest, Workflow: e.Workflow, Seq: e.Seq, Hash: e.Hash}
			} else if e, err := decodeLegacyIdem(v); err == nil {
				idem = Idempotency{Key: key, Digest: e.Digest, Workflow: e.Workflow, Unbound: true}
			}
			if err := fn(idem); err != nil {
				return callbackError{err}
			}
		}
		return nil
	})
	return unwrapCallback("idempotency keys", err)
}
