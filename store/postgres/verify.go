package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// Verify walks the chain of a workflow of tenant from one consistent view, as Badger's
// Verify does. The workflow's row is both its head and its owner, so a head naming
// another tenant is reported as the owner's.
func (p *Log) Verify(ctx context.Context, tenant, workflow string) (store.VerifyReport, error) {
	if err := p.begin(ctx); err != nil {
		return store.VerifyReport{}, err
	}
	defer p.end()
	rep := store.VerifyReport{Tenant: tenant, Workflow: workflow, OK: true}
	err := p.readTx(ctx, "verify", func(tx pgx.Tx) error {
		var owner string
		var h pgHead
		err := tx.QueryRow(ctx, `SELECT tenant, `+headColumns+` FROM handoff_workflows WHERE workflow = $1`, []byte(workflow)).
			Scan(append([]any{(*bytesString)(&owner)}, h.targets()...)...)
		head := h.head()
		ownerFound := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		headFound := ownerFound && owner == tenant
		c := chain.Checker{Domain: store.DomainRecord, Tenant: tenant, Workflow: workflow, Rep: &rep}
		if err := walkChain(ctx, &c, tx, `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_records
			WHERE tenant = $1 AND workflow = $2 ORDER BY seq`, []byte(tenant), []byte(workflow)); err != nil {
			return err
		}
		switch {
		case !headFound && c.Seq == 0 && rep.OK:
			return chain.CallbackError{Err: fmt.Errorf("%w: %q", store.ErrNotFound, workflow)}
		case !rep.OK:
		case ownerFound && owner != tenant:
			chain.Fail(&rep, 0, "owner index names tenant %q", owner)
		case !headFound:
			chain.Fail(&rep, 0, "workflow head missing")
		case !c.CheckHead(head):
		case head.StateVersion > head.Seq:
			chain.Fail(&rep, 0, "head state version %d exceeds its %d records", head.StateVersion, head.Seq)
		default:
			chain.CheckStanding(&rep, head)
		}
		return nil
	})
	if err != nil {
		return store.VerifyReport{}, err
	}
	return rep, nil
}

// VerifyAudit walks the audit stream of tenant like Verify walks a workflow.
func (p *Log) VerifyAudit(ctx context.Context, tenant string) (store.VerifyReport, error) {
	if err := p.begin(ctx); err != nil {
		return store.VerifyReport{}, err
	}
	defer p.end()
	rep := store.VerifyReport{Tenant: tenant, OK: true}
	err := p.readTx(ctx, "verify audit", func(tx pgx.Tx) error {
		head, headFound, err := readAuditHead(ctx, tx, tenant)
		if err != nil {
			return err
		}
		c := chain.Checker{Domain: store.DomainAudit, Tenant: tenant, Rep: &rep}
		if err := walkChain(ctx, &c, tx, `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_audit
			WHERE tenant = $1 ORDER BY seq`, []byte(tenant)); err != nil {
			return err
		}
		c.CheckAuditEnd(headFound, func() (store.Head, error) { return head, nil })
		return nil
	})
	if err != nil {
		return store.VerifyReport{}, err
	}
	return rep, nil
}

// walkChain checks every record sql selects, in seq order, until the first problem,
// which it records in c.Rep. Errors are database failures only.
func walkChain(ctx context.Context, c *chain.Checker, q querier, sql string, args ...any) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r chain.Record
		if err := rows.Scan(&r.Seq, &r.Time, (*bytesString)(&r.Type), &r.Payload, &r.PrevHash, &r.Hash); err != nil {
			return err
		}
		want := c.Seq + 1
		if r.Seq != want {
			chain.Fail(c.Rep, want, "record %d missing (next record is %d)", want, r.Seq)
			return nil
		}
		if problem := c.CheckRecord(r.Seq, &r); problem != "" {
			chain.Fail(c.Rep, r.Seq, "%s", problem)
			return nil
		}
		c.Rep.Records++
	}
	return rows.Err()
}

// VerifyIndexes checks the idempotency keys and record index entries of c.Tenant (of
// every tenant with c.All; of c.Workflow only, when set) against the records they name, from one consistent view, as
// Badger's VerifyIndexes does: each key and each entry is read with its record and its
// chain's head in one statement.
func (p *Log) VerifyIndexes(ctx context.Context, c store.IndexCheck) ([]store.VerifyReport, error) {
	if err := p.begin(ctx); err != nil {
		return nil, err
	}
	defer p.end()
	v := chain.NewRefCheck(c)
	err := p.readTx(ctx, "verify indexes", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT i.tenant, i.key, i.digest, i.workflow, i.seq, i.hash, w.seq,
				r.seq, r.time, r.type, r.payload, r.prev_hash, r.hash
			FROM handoff_idempotency i
			LEFT JOIN handoff_workflows w ON w.workflow = i.workflow AND w.tenant = i.tenant
			LEFT JOIN handoff_records r ON r.tenant = i.tenant AND r.workflow = i.workflow AND r.seq = i.seq
			WHERE $1 OR i.tenant = $2 AND ($3 = ''::bytea OR i.workflow = $3) ORDER BY i.tenant, i.key`, c.All, []byte(c.Tenant), []byte(c.Workflow))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var tenant, key string
			var e chain.IdemEntry
			var named namedRecord
			if err := rows.Scan((*bytesString)(&tenant), (*bytesString)(&key), (*bytesString)(&e.Digest), (*bytesString)(&e.Workflow), &e.Seq, &e.Hash,
				&named.headSeq, &named.seq, &named.time, (*nullBytesString)(&named.r.Type), &named.r.Payload, (*nullString)(&named.r.PrevHash), (*nullString)(&named.r.Hash)); err != nil {
				return err
			}
			if err := v.Key(tenant, key, e, true, false, named.read, named.head); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		rows, err = tx.Query(ctx, `SELECT x.id, x.tenant, x.workflow, x.seq, x.hash,
				CASE WHEN x.workflow = ''::bytea THEN ah.seq ELSE w.seq END,
				COALESCE(r.seq, a.seq), COALESCE(r.time, a.time), COALESCE(r.type, a.type), COALESCE(r.payload, a.payload),
				COALESCE(r.prev_hash, a.prev_hash), COALESCE(r.hash, a.hash)
			FROM handoff_record_ids x
			LEFT JOIN handoff_workflows w ON x.workflow <> ''::bytea AND w.workflow = x.workflow AND w.tenant = x.tenant
			LEFT JOIN handoff_audit_heads ah ON x.workflow = ''::bytea AND ah.tenant = x.tenant
			LEFT JOIN handoff_records r ON x.workflow <> ''::bytea AND r.tenant = x.tenant AND r.workflow = x.workflow AND r.seq = x.seq
			LEFT JOIN handoff_audit a ON x.workflow = ''::bytea AND a.tenant = x.tenant AND a.seq = x.seq
			WHERE $1 OR x.tenant = $2 AND ($3 = ''::bytea OR x.workflow = $3) ORDER BY x.id`, c.All, []byte(c.Tenant), []byte(c.Workflow))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var loc store.Location
			var named namedRecord
			if err := rows.Scan((*bytesString)(&id), (*bytesString)(&loc.Tenant), (*bytesString)(&loc.Workflow), &loc.Seq, &loc.Hash,
				&named.headSeq, &named.seq, &named.time, (*nullBytesString)(&named.r.Type), &named.r.Payload, (*nullString)(&named.r.PrevHash), (*nullString)(&named.r.Hash)); err != nil {
				return err
			}
			if err := v.ID(id, loc, true, named.read, named.head); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return v.Reports(), nil
}

// namedRecord is a record a key or an index entry names, read with it by a join: NULL
// columns when it is not there, and the head of its chain, NULL when there is none.
type namedRecord struct {
	headSeq *uint64
	seq     *uint64
	time    *string
	r       chain.Record
}

func (n *namedRecord) read(string, string, uint64) (chain.Record, bool, error) {
	if n.seq == nil {
		return chain.Record{}, false, nil
	}
	n.r.Seq, n.r.Time = *n.seq, *n.time
	return n.r, true, nil
}

func (n *namedRecord) head(string, string) (store.Head, bool, error) {
	if n.headSeq == nil {
		return store.Head{}, false, nil
	}
	return store.Head{Seq: *n.headSeq}, true, nil
}
