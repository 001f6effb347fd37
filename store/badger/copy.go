package badger

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// ImportChain writes a chain as it was sealed elsewhere: its records, head, snapshot,
// summary and owner entry. The store is being filled by Copy: a write batch, not a transaction.
func (l *Log) ImportChain(ctx context.Context, c store.ChainCopy) error {
	return l.importWrites(ctx, func(set func(k, v []byte) error) error {
		for _, rec := range c.Records {
			r := chain.Stored(rec)
			key := recordKey(c.Tenant, c.Workflow, r.Seq)
			if c.Audit {
				key = auditKey(c.Tenant, r.Seq)
			}
			if err := set(key, r.Encode()); err != nil {
				return err
			}
		}
		if c.Audit {
			return set(auditHeadKey(c.Tenant), chain.EncodeHead(store.Head{Seq: c.Head.Seq, Hash: c.Head.Hash}))
		}
		if err := set(headKey(c.Tenant, c.Workflow), chain.EncodeHead(c.Head)); err != nil {
			return err
		}
		if c.Snapshot != nil {
			if err := set(snapshotKey(c.Tenant, c.Workflow), c.Snapshot); err != nil {
				return err
			}
		}
		if c.Summary == nil {
			if err := set(unsummarizedKey(c.Tenant, c.Workflow), []byte{}); err != nil {
				return err
			}
		} else {
			active := store.ActiveKey(c.Summary.Active)
			if err := set(summaryKey(c.Tenant, c.Workflow), active); err != nil {
				return err
			}
			if err := set(activeKey(c.Tenant, active, c.Workflow), encodeSummary(c.Head.Seq, c.Summary.Data)); err != nil {
				return err
			}
		}
		return set(ownerKey(c.Workflow), []byte(c.Tenant))
	})
}

func (l *Log) ImportKeys(ctx context.Context, tenant string, keys []store.Idempotency) error {
	return l.importWrites(ctx, func(set func(k, v []byte) error) error {
		for _, k := range keys {
			e := chain.IdemEntry{Digest: k.Digest, Workflow: k.Workflow, Seq: k.Seq, Hash: k.Hash}
			if err := set(idemKey(tenant, k.Key), e.Encode()); err != nil {
				return err
			}
		}
		return nil
	})
}

func (l *Log) ImportIDs(ctx context.Context, ids map[string]store.Location) error {
	return l.importWrites(ctx, func(set func(k, v []byte) error) error {
		for id, loc := range ids {
			if err := set(indexKey(id), chain.EncodeLocation(&loc)); err != nil {
				return err
			}
		}
		return nil
	})
}

// importWrites makes the writes fill makes, in a write batch synced once at its end.
func (l *Log) importWrites(ctx context.Context, fill func(set func(k, v []byte) error) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	if l.readOnly {
		return &store.Error{Op: "copy", Err: store.ErrReadOnly}
	}
	wb := l.db.NewWriteBatch()
	defer wb.Cancel()
	if err := fill(wb.Set); err != nil {
		return wrap("copy", err)
	}
	return wrap("copy", wb.Flush())
}

// IndexEntries calls fn with every entry of the record index, in id order.
func (l *Log) IndexEntries(ctx context.Context, fn func(id string, loc store.Location) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		prefix := []byte(tagIndex)
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, Prefix: prefix})
		defer it.Close()
		for it.Seek(prefix); it.Valid(); it.Next() {
			id, v, err := readEntry(it.Item(), prefix, "index")
			if err != nil {
				return err
			}
			loc, err := chain.DecodeLocation(v)
			if err != nil {
				return fmt.Errorf("%w: the index entry of id %q is undecodable", store.ErrTampered, id)
			}
			if err := fn(id, loc); err != nil {
				return chain.CallbackError{Err: err}
			}
		}
		return nil
	})
	return unwrapCallback("index", err)
}
