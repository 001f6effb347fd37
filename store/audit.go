package store

import (
	"context"
	"errors"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Audit appends rec to the security audit stream of tenant: requests too
// broken to trust, kept apart from every workflow. The stream has its own
// seqs from 1 and its own hash chain (with workflow "" in the hash). tenant
// may be "" for requests whose tenant could not be told. t is the record
// time (the caller's clock). A record with an ID is indexed with it, as
// Append indexes; an ID already indexed fails with a *DuplicateIDError and
// nothing is written. Audit returns the record once it is durable. It is
// safe for concurrent use.
func (l *Badger) Audit(ctx context.Context, tenant string, rec NewRecord, t time.Time) (Record, error) {
	if err := l.begin(ctx); err != nil {
		return Record{}, err
	}
	defer l.end()
	if err := checkAudit(l.readOnly, tenant, rec, t); err != nil {
		return Record{}, err
	}
	for range maxConflictRetries {
		if err := ctx.Err(); err != nil {
			return Record{}, err
		}
		sr, err := l.auditTxn(tenant, rec, t)
		if errors.Is(err, badger.ErrConflict) {
			continue
		}
		if err != nil {
			return Record{}, wrap("audit", err)
		}
		r, err := sr.record()
		return r, wrap("audit", err)
	}
	return Record{}, &Error{Op: "audit", Err: errTooManyConflicts}
}

// checkAudit refuses an audit record a store must not write.
func checkAudit(readOnly bool, tenant string, rec NewRecord, t time.Time) error {
	if readOnly {
		return &Error{Op: "audit", Err: ErrReadOnly}
	}
	if len(tenant) > maxIDLen {
		return invalid("tenant id longer than %d bytes", maxIDLen)
	}
	if err := rec.validate(); err != nil {
		return err
	}
	return checkTime(t)
}

func (l *Badger) auditTxn(tenant string, rec NewRecord, t time.Time) (storedRecord, error) {
	txn := l.db.NewTransaction(true)
	defer txn.Discard()
	if err := checkIDs(txn, []NewRecord{rec}); err != nil {
		return storedRecord{}, err
	}
	hk := auditHeadKey(tenant)
	head, _, err := getHead(txn, hk)
	if err != nil {
		return storedRecord{}, err
	}
	sr := storedRecord{
		Seq:      head.Seq + 1,
		Time:     formatTime(t),
		Type:     rec.Type,
		Payload:  rec.Payload,
		PrevHash: head.Hash,
	}
	sealRecord(domainAudit, tenant, "", &sr)
	v := sr.encode()
	if err := l.checkWrites([]kv{{value: v}}); err != nil {
		return storedRecord{}, err
	}
	if err := txn.Set(auditKey(tenant, sr.Seq), v); err != nil {
		return storedRecord{}, err
	}
	if err := txn.Set(hk, encodeHead(Head{Seq: sr.Seq, Hash: sr.Hash})); err != nil {
		return storedRecord{}, err
	}
	if rec.ID != "" {
		loc := Location{Tenant: tenant, Seq: sr.Seq, Hash: sr.Hash}
		if err := txn.Set(indexKey(rec.ID), loc.encode()); err != nil {
			return storedRecord{}, err
		}
	}
	if err := txn.Commit(); err != nil {
		return storedRecord{}, err
	}
	return sr, nil
}

// AuditRecords calls fn with the audit records of tenant in seq order,
// starting at fromSeq (0 and 1 both mean the first record), from one
// consistent view. An error from fn stops the walk and is returned as is.
// An empty stream calls fn never. It is safe for concurrent use.
func (l *Badger) AuditRecords(ctx context.Context, tenant string, fromSeq uint64, fn func(Record) error) error {
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
func (l *Badger) AuditHead(ctx context.Context, tenant string) (Head, error) {
	if err := l.begin(ctx); err != nil {
		return Head{}, err
	}
	defer l.end()
	var head Head
	err := l.db.View(func(txn *badger.Txn) error {
		var err error
		head, _, err = getAuditHead(txn, tenant)
		return err
	})
	if err != nil {
		return Head{}, wrap("audit head", err)
	}
	return head, nil
}

// VerifyAudit walks the audit stream of tenant like Verify walks a
// workflow. An empty stream is OK with no records. It is safe for
// concurrent use.
func (l *Badger) VerifyAudit(ctx context.Context, tenant string) (VerifyReport, error) {
	if err := l.begin(ctx); err != nil {
		return VerifyReport{}, err
	}
	defer l.end()
	rep := VerifyReport{Tenant: tenant, OK: true}
	err := l.db.View(func(txn *badger.Txn) error {
		hv, headFound, err := getValue(txn, auditHeadKey(tenant))
		if err != nil {
			return err
		}
		c := chain{domain: domainAudit, tenant: tenant, rep: &rep}
		if err := c.walk(ctx, txn, auditPrefix(tenant)); err != nil {
			return err
		}
		switch {
		case !rep.OK:
		case !headFound && c.seq == 0:
		case !headFound:
			rep.fail(0, "audit head missing")
		default:
			head, err := decodeHead(hv)
			if err != nil {
				rep.fail(0, "audit head undecodable")
				return nil
			}
			c.checkHead(head)
		}
		return nil
	})
	if err != nil {
		return VerifyReport{}, wrap("verify audit", err)
	}
	return rep, nil
}
