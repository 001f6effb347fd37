package store

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// formatKey holds the store's format. Format 2 binds every idempotency key to the
// record that answers it; a store written before (format 1, without the key) kept a copy
// of the answer in the key instead, and its keys are bound by UpgradeIdempotency.
const (
	formatKey     = "m/format"
	formatVersion = "2"
)

// checkFormat reads the store's format at Open. An empty store is marked current; a
// store with records and no mark was written by an earlier version.
func (l *Log) checkFormat() error {
	return l.db.Update(func(txn *badger.Txn) error {
		v, found, err := getValue(txn, []byte(formatKey))
		switch {
		case err != nil:
			return err
		case found && string(v) == formatVersion:
			return nil
		case found:
			return fmt.Errorf("%w: store format %q is not one this version reads (%s)", ErrInvalid, v, formatVersion)
		case hasKey(txn, []byte(tagTenant)):
			l.legacyIdem = true
			return nil
		}
		return txn.Set([]byte(formatKey), []byte(formatVersion))
	})
}

// LegacyIdempotency reports whether the store was written by an earlier version whose
// idempotency keys held a copy of their answer: until UpgradeIdempotency binds them,
// reading one fails with ErrTampered.
func (l *Log) LegacyIdempotency() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.legacyIdem
}

// legacyIdemEntry is an idempotency key as an earlier version wrote it.
type legacyIdemEntry struct {
	Digest   string
	Response []byte
	Workflow string
}

func decodeLegacyIdem(b []byte) (legacyIdemEntry, error) {
	d := newDecoder(b)
	e := legacyIdemEntry{Digest: string(d.field()), Response: d.field(), Workflow: string(d.field())}
	return e, d.done()
}

// UpgradeIdempotency binds every idempotency key an earlier version wrote to the record
// that answers it, then marks the store current. answer is given each such key with its
// tenant, workflow and the answer the key held, and returns the seq of the record of
// that workflow the answer is (0 when none is: the key is left unbound, reading it fails
// with ErrTampered, and Verify reports it). The record is checked against its hash as the
// key is bound. It returns how many keys were bound and how many were left. It is safe
// to call again after a failure; it must not run beside appends.
func (l *Log) UpgradeIdempotency(ctx context.Context, answer func(tenant, workflow, key string, response []byte) (seq uint64, err error)) (bound, left int, err error) {
	if err := l.begin(ctx); err != nil {
		return 0, 0, err
	}
	defer l.end()
	type legacy struct {
		tenant, key string
		entry       legacyIdemEntry
	}
	var keys []legacy
	err = l.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: []byte(tagTenant)})
		defer it.Close()
		for it.Seek([]byte(tagTenant)); it.Valid(); it.Next() {
			k := it.Item().Key()
			tenant, rest, ok := readComponent(k[len(tagTenant):])
			if !ok || len(rest) < len(tagIdem) || string(rest[:len(tagIdem)]) != tagIdem {
				continue
			}
			key, tail, ok := readComponent(rest[len(tagIdem):])
			if !ok || len(tail) != 0 {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if _, err := decodeIdem(v); err == nil {
				continue // bound already
			}
			if e, err := decodeLegacyIdem(v); err == nil {
				keys = append(keys, legacy{tenant, key, e})
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, wrap("upgrade idempotency", err)
	}
	for _, k := range keys {
		seq, err := answer(k.tenant, k.entry.Workflow, k.key, k.entry.Response)
		if err != nil {
			return bound, left, err
		}
		if seq == 0 {
			continue
		}
		err = l.db.Update(func(txn *badger.Txn) error {
			v, found, err := getValue(txn, recordKey(k.tenant, k.entry.Workflow, seq))
			if err != nil || !found {
				return err
			}
			sr, err := decodeRecord(v)
			if err != nil || sr.Seq != seq || recordHash(domainRecord, sr.Seq, sr.Time, sr.Type, sr.Payload, sr.PrevHash, k.tenant, k.entry.Workflow) != sr.Hash {
				return nil // not the record it claims to be: leave the key unbound
			}
			e := idemEntry{Digest: k.entry.Digest, Workflow: k.entry.Workflow, Seq: seq, Hash: sr.Hash}
			if err := txn.Set(idemKey(k.tenant, k.key), e.encode()); err != nil {
				return err
			}
			bound++
			return nil
		})
		if err != nil {
			return bound, left, wrap("upgrade idempotency", err)
		}
	}
	left = len(keys) - bound
	if err := l.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(formatKey), []byte(formatVersion)) }); err != nil {
		return bound, left, wrap("upgrade idempotency", err)
	}
	l.mu.Lock()
	l.legacyIdem = false
	l.mu.Unlock()
	return bound, left, nil
}
