package badger

import (
	"context"
	"errors"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// Audit appends rec to the security audit stream of tenant: requests too
// broken to trust, kept apart from every workflow. The stream has its own
// seqs from 1 and its own hash chain (with workflow "" in the hash). tenant
// may be "" for requests whose tenant could not be told. t is the record
// time (the caller's clock). A record with an ID is indexed with it, as
// Append indexes; an ID already indexed fails with a *DuplicateIDError and
// nothing is written. Audit returns the record once it is durable. It is
// safe for concurrent use.
func (l *Log) Audit(ctx context.Context, tenant string, rec store.NewRecord, t time.Time) (store.Record, error) {
	if err := l.begin(ctx); err != nil {
		return store.Record{}, err
	}
	defer l.end()
	if err := chain.CheckAudit(l.readOnly, tenant, rec, t); err != nil {
		return store.Record{}, err
	}
	for range maxConflictRetries {
		if err := ctx.Err(); err != nil {
			return store.Record{}, err
		}
		sr, err := l.auditTxn(tenant, rec, t)
		if errors.Is(err, badger.ErrConflict) {
			continue
		}
		if err != nil {
			return store.Record{}, wrap("audit", err)
		}
		r, err := sr.Record()
		return r, wrap("audit", err)
	}
	return store.Record{}, &store.Error{Op: "audit", Err: chain.ErrTooManyConflicts}
}

func (l *Log) auditTxn(tenant string, rec store.NewRecord, t time.Time) (chain.Record, error) {
	txn := l.db.NewTransaction(true)
	defer txn.Discard()
	if err := checkIDs(txn, []store.NewRecord{rec}); err != nil {
		return chain.Record{}, err
	}
	hk := auditHeadKey(tenant)
	head, _, err := getHead(txn, hk)
	if err != nil {
		return chain.Record{}, err
	}
	sr := chain.Record{
		Seq:      head.Seq + 1,
		Time:     store.FormatTime(t),
		Type:     rec.Type,
		Payload:  rec.Payload,
		PrevHash: head.Hash,
	}
	chain.SealRecord(store.DomainAudit, tenant, "", &sr)
	v := sr.Encode()
	if err := l.checkWrites([]kv{{value: v}}); err != nil {
		return chain.Record{}, err
	}
	if err := txn.Set(auditKey(tenant, sr.Seq), v); err != nil {
		return chain.Record{}, err
	}
	if err := txn.Set(hk, chain.EncodeHead(store.Head{Seq: sr.Seq, Hash: sr.Hash})); err != nil {
		return chain.Record{}, err
	}
	if rec.ID != "" {
		loc := store.Location{Tenant: tenant, Seq: sr.Seq, Hash: sr.Hash}
		if err := txn.Set(indexKey(rec.ID), chain.EncodeLocation(&loc)); err != nil {
			return chain.Record{}, err
		}
	}
	if err := txn.Commit(); err != nil {
		return chain.Record{}, err
	}
	return sr, nil
}

// AuditRecords calls fn with the audit records of tenant in seq order,
// starting at fromSeq (0 and 1 both mean the first record), from one
// consistent view. An error from fn stops the walk and is returned as is.
// An empty stream calls fn never. It is safe for concurrent use.
func (l *Log) AuditRecords(ctx context.Context, tenant string, fromSeq uint64, fn func(store.Record) error) error {
	if err := l.begin(ctx); err != nil {
		return err
	}
	defer l.end()
	err := l.db.View(func(txn *badger.Txn) error {
		_, err := walkRecords(ctx, txn, auditPrefix(tenant), max(fromSeq, 1), fn)
		return err
	})
	return unwrapCallback("audit records", err)
}

// AuditHead returns the head of the audit stream of tenant: one key read,
// no walk. An empty stream has the zero Head. It is safe for concurrent
// use.
func (l *Log) AuditHead(ctx context.Context, tenant string) (store.Head, error) {
	if err := l.begin(ctx); err != nil {
		return store.Head{}, err
	}
	defer l.end()
	var head store.Head
	err := l.db.View(func(txn *badger.Txn) error {
		var err error
		head, _, err = getAuditHead(txn, tenant)
		return err
	})
	if err != nil {
		return store.Head{}, wrap("audit head", err)
	}
	return head, nil
}

// VerifyAudit walks the audit stream of tenant like Verify walks a
// workflow. An empty stream is OK with no records. It is safe for
// concurrent use.
func (l *Log) VerifyAudit(ctx context.Context, tenant string) (store.VerifyReport, error) {
	if err := l.begin(ctx); err != nil {
		return store.VerifyReport{}, err
	}
	defer l.end()
	rep := store.VerifyReport{Tenant: tenant, OK: true}
	err := l.db.View(func(txn *badger.Txn) error {
		hv, headFound, err := getValue(txn, auditHeadKey(tenant))
		if err != nil {
			return err
		}
		c := chain.Checker{Domain: store.DomainAudit, Tenant: tenant, Rep: &rep}
		if err := walk(ctx, &c, txn, auditPrefix(tenant)); err != nil {
			return err
		}
		c.CheckAuditEnd(headFound, func() (store.Head, error) { return chain.DecodeHead(hv) })
		return nil
	})
	if err != nil {
		return store.VerifyReport{}, wrap("verify audit", err)
	}
	return rep, nil
}
