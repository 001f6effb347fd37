package store

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// importChain writes a chain as it was sealed elsewhere: its records, head, snapshot and
// owner entry. The store is being filled by Copy: a write batch, not a transaction.
func (l *Badger) importChain(ctx context.Context, c chainCopy) error {
	return l.importWrites(ctx, func(set func(k, v []byte) error) error {
		for _, r := range c.records {
			key := recordKey(c.Tenant, c.Workflow, r.Seq)
			if c.Audit {
				key = auditKey(c.Tenant, r.Seq)
			}
			if err := set(key, r.encode()); err != nil {
				return err
			}
		}
		if c.Audit {
			return set(auditHeadKey(c.Tenant), encodeHead(Head{Seq: c.Head.Seq, Hash: c.Head.Hash}))
		}
		if err := set(headKey(c.Tenant, c.Workflow), encodeHead(c.Head)); err != nil {
			return err
		}
		if c.snapshot != nil {
			if err := set(snapshotKey(c.Tenant, c.Workflow), c.snapshot); err != nil {
				return err
			}
		}
		return set(ownerKey(c.Workflow), []byte(c.Tenant))
	})
}

func (l *Badger) importKeys(ctx context.Context, tenant string, keys []Idempotency) error {
	return l.importWrites(ctx, func(set func(k, v []byte) error) error {
		for _, k := range keys {
			e := idemEntry{Digest: k.Digest, Workflow: k.Workflow, Seq: k.Seq, Hash: k.Hash}
			if err := set(idemKey(tenant, k.Key), e.encode()); err != nil {
				return err
			}
		}
		return nil
	})
}

func (l *Badger) importIDs(ctx context.Context, ids map[string]Location) error {
	return l.importWrites(ctx, func(set func(k, v []byte) error) error {
		for id, loc := range ids {
			if err := set(indexKey(id), loc.encode()); err != nil {
				return err
			}
		}
		return nil
	})
}

// importWrites makes the writes fill makes, in a write batch synced once at its end.
func (l *Badger) importWrites(ctx context.Context, fill func(set func(k, v []byte) error) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if l.readOnly {
		return &Error{Op: "copy", Err: ErrReadOnly}
	}
	wb := l.db.NewWriteBatch()
	defer wb.Cancel()
	if err := fill(wb.Set); err != nil {
		return wrap("copy", err)
	}
	return wrap("copy", wb.Flush())
}

// indexEntries calls fn with every entry of the record index, in id order.
func (l *Badger) indexEntries(ctx context.Context, fn func(id string, loc Location) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		prefix := []byte(tagIndex)
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			id, rest, ok := readComponent(it.Item().Key()[len(prefix):])
			if !ok || len(rest) != 0 {
				return fmt.Errorf("index key: %w", errCorrupt)
			}
			v, err := itemValue(it.Item())
			if err != nil {
				return err
			}
			loc, err := decodeLocation(v)
			if err != nil {
				return fmt.Errorf("%w: the index entry of id %q is undecodable", ErrTampered, id)
			}
			if err := fn(id, loc); err != nil {
				return callbackError{err}
			}
		}
		return nil
	})
	return unwrapCallback("index", err)
}
