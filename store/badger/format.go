package badger

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// formatKey holds the store's format. Format 5 keeps a summary of each workflow beside
// its head and in its tenant's order of activity, or marks the workflow unsummarized; a
// store written before (format 4 or earlier) has neither, so at Open its workflows are
// marked unsummarized (markUnsummarized) before anything else, and the engine gives them
// their summaries (SetSummary). Format 4 keeps each workflow's standing record in its
// head; a head written before (format 3) reads as one whose standing record is unknown,
// which the caller fills in when it first needs it (SetStanding). Format 3 indexes
// records by id; a store written before (format 2) has no index, which UpgradeIndex
// builds. Format 2 binds every idempotency key to the record that answers it; a store
// written before (format 1, without the key) kept a copy of the answer in the key
// instead, and its keys are bound by UpgradeIdempotency. Each upgrade writes the mark
// the store has reached once it is done, so an upgrade cut short is made again at the
// next Open; the mark keeps an earlier version, which would not keep the new keys, from
// opening the store.
const (
	formatKey      = "m/format"
	formatBound    = "2" // idempotency keys bound to records, no record index
	formatIndexed  = "3" // records indexed, heads without their standing record
	formatStanding = "4" // standing records in heads, workflows without summaries
	formatVersion  = "5"
)

// checkFormat reads the store's format at Open. An empty store is marked current; a
// store with records and no mark was written by an earlier version.
func (l *Log) checkFormat() error {
	if l.readOnly {
		return l.db.View(func(txn *badger.Txn) error {
			v, found, err := getValue(txn, []byte(formatKey))
			switch {
			case err != nil:
				return err
			case found && string(v) == formatVersion:
				return nil
			case found && (string(v) == formatStanding || string(v) == formatIndexed):
				l.unmarked = true // Unsummarized walks every workflow
				return nil
			case !found && !hasKey(txn, []byte(tagTenant)):
				return nil // empty
			}
			return fmt.Errorf("%w: the store was written by an earlier version: open it read-write once to upgrade it", store.ErrReadOnly)
		})
	}
	return l.db.Update(func(txn *badger.Txn) error {
		v, found, err := getValue(txn, []byte(formatKey))
		switch {
		case err != nil:
			return err
		case found && string(v) == formatVersion:
			return nil
		case found && (string(v) == formatStanding || string(v) == formatIndexed):
			l.unmarked = true
			return nil
		case found && string(v) == formatBound:
			l.unindexed, l.unmarked = true, true
			return nil
		case found:
			return fmt.Errorf("%w: store format %q is not one this version reads (%s)", store.ErrInvalid, v, formatVersion)
		case hasKey(txn, []byte(tagTenant)):
			l.legacyIdem, l.unindexed, l.unmarked = true, true, true
			return nil
		}
		return txn.Set([]byte(formatKey), []byte(formatVersion))
	})
}

// openFormat checks the store's format at Open and marks the workflows of a store an
// earlier version wrote unsummarized, before any append: a store opened read-write is
// then at least at the format of summaries.
func (l *Log) openFormat(ctx context.Context) error {
	if err := l.checkFormat(); err != nil {
		return err
	}
	if l.readOnly || !l.unmarked {
		return nil
	}
	if err := l.markUnsummarized(ctx); err != nil {
		return err
	}
	return l.finishUpgrade(&l.unmarked)
}

// markUpgraded records the format the store has reached once an upgrade is done: none
// while its idempotency keys are unbound (format 1 has no mark), formatBound while it
// has no index, formatStanding while its workflows are not marked, else the current
// format.
func (l *Log) markUpgraded() error {
	l.mu.Lock()
	legacy, unindexed, unmarked := l.legacyIdem, l.unindexed, l.unmarked
	l.mu.Unlock()
	if legacy {
		return nil
	}
	mark := formatVersion
	switch {
	case unindexed:
		mark = formatBound
	case unmarked:
		mark = formatStanding
	}
	return l.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(formatKey), []byte(mark)) })
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
	d := chain.NewDecoder(b)
	e := legacyIdemEntry{Digest: string(d.Field()), Response: d.Field(), Workflow: string(d.Field())}
	return e, d.Done()
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
			v, err := itemValue(it.Item())
			if err != nil {
				return err
			}
			if _, err := chain.DecodeIdem(v); err == nil {
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
			sr, err := chain.DecodeRecord(v)
			if err != nil || sr.Seq != seq || store.RecordHash(store.DomainRecord, sr.Seq, sr.Time, sr.Type, sr.Payload, sr.PrevHash, k.tenant, k.entry.Workflow) != sr.Hash {
				return nil // not the record it claims to be: leave the key unbound
			}
			e := chain.IdemEntry{Digest: k.entry.Digest, Workflow: k.entry.Workflow, Seq: seq, Hash: sr.Hash}
			if err := txn.Set(idemKey(k.tenant, k.key), e.Encode()); err != nil {
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
	if err := l.finishUpgrade(&l.legacyIdem); err != nil {
		return bound, left, wrap("upgrade idempotency", err)
	}
	return bound, left, nil
}

// finishUpgrade clears legacy, the flag (guarded by l.mu) of the earlier format an upgrade
// has left behind, and marks the store upgraded; the flag is set again if the mark cannot
// be written, so that the upgrade is tried again.
func (l *Log) finishUpgrade(legacy *bool) error {
	l.mu.Lock()
	*legacy = false
	l.mu.Unlock()
	if err := l.markUpgraded(); err != nil {
		l.mu.Lock()
		*legacy = true
		l.mu.Unlock()
		return err
	}
	return nil
}

// Unindexed reports whether the store was written by an earlier version that kept no
// record index: until UpgradeIndex builds it, Find finds none of the records written
// before.
func (l *Log) Unindexed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.unindexed
}

// indexBatch bounds the index entries UpgradeIndex writes in one transaction.
const indexBatch = 256

// UpgradeIndex indexes every record of the store, workflow records and audit records,
// as Append and Audit index the records they write, then marks the store indexed. id is
// given each record's payload and returns its id ("" for none: the record is left out).
// An id already indexed for another record is not indexed again: the first record in key
// order keeps it (tenant by tenant, the audit stream first, then the workflows), and the
// others are counted in duplicates. It returns how many records were indexed. It is safe
// to call again after a failure; it must not run beside appends.
func (l *Log) UpgradeIndex(ctx context.Context, id func(payload []byte) string) (indexed, duplicates int, err error) {
	if err := l.begin(ctx); err != nil {
		return 0, 0, err
	}
	defer l.end()
	type entry struct {
		id  string
		loc store.Location
	}
	var entries []entry
	err = l.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(tagTenant)})
		defer it.Close()
		n := 0
		for it.Seek([]byte(tagTenant)); it.Valid(); it.Next() {
			if n++; n%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			loc, ok := recordLocation(it.Item().Key())
			if !ok {
				continue
			}
			var sr chain.Record
			if err := withItemValue(it.Item(), func(v []byte) error {
				var err error
				sr, err = chain.DecodeRecord(v)
				return err
			}); err != nil {
				continue // Verify reports it
			}
			if rid := id(sr.Payload); rid != "" && len(rid) <= chain.MaxIDLen {
				loc.Hash = sr.Hash
				entries = append(entries, entry{rid, loc})
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, wrap("upgrade index", err)
	}
	for len(entries) > 0 {
		batch := entries[:min(indexBatch, len(entries))]
		entries = entries[len(batch):]
		var in, dup int
		err := l.db.Update(func(txn *badger.Txn) error {
			in, dup = 0, 0
			for _, e := range batch {
				v, found, err := getValue(txn, indexKey(e.id))
				if err != nil {
					return err
				}
				if found {
					if old, err := chain.DecodeLocation(v); err != nil || old != e.loc {
						dup++
					}
					continue
				}
				if err := txn.Set(indexKey(e.id), chain.EncodeLocation(&e.loc)); err != nil {
					return err
				}
				in++
			}
			return nil
		})
		if err != nil {
			return indexed, duplicates, wrap("upgrade index", err)
		}
		indexed, duplicates = indexed+in, duplicates+dup
	}
	if err := l.finishUpgrade(&l.unindexed); err != nil {
		return indexed, duplicates, wrap("upgrade index", err)
	}
	return indexed, duplicates, nil
}

// recordLocation parses a workflow record key (t/ T w/ W e/ <seq>) or an audit record
// key (t/ T a/ <seq>) into a Location without its hash; ok is false for any other key.
func recordLocation(key []byte) (loc store.Location, ok bool) {
	tenant, rest, ok := readComponent(key[len(tagTenant):])
	if !ok {
		return store.Location{}, false
	}
	if seq, ok := seqFromKey(key, auditPrefix(tenant)); ok {
		return store.Location{Tenant: tenant, Seq: seq}, true
	}
	if len(rest) < len(tagWorkflow) || string(rest[:len(tagWorkflow)]) != tagWorkflow {
		return store.Location{}, false
	}
	workflow, _, ok := readComponent(rest[len(tagWorkflow):])
	if !ok {
		return store.Location{}, false
	}
	if seq, ok := seqFromKey(key, recordsPrefix(tenant, workflow)); ok {
		return store.Location{Tenant: tenant, Workflow: workflow, Seq: seq}, true
	}
	return store.Location{}, false
}
