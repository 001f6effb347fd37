package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Verify walks the chain of a workflow of tenant from one consistent view, as Badger's
// Verify does. The workflow's row is both its head and its owner, so a head naming
// another tenant is reported as the owner's.
func (p *Postgres) Verify(ctx context.Context, tenant, workflow string) (VerifyReport, error) {
	if err := p.begin(ctx); err != nil {
		return VerifyReport{}, err
	}
	defer p.end()
	rep := VerifyReport{Tenant: tenant, Workflow: workflow, OK: true}
	err := p.readTx(ctx, "verify", func(tx pgx.Tx) error {
		var owner string
		var head Head
		err := tx.QueryRow(ctx, `SELECT tenant, seq, state_version, hash FROM handoff_workflows WHERE workflow = $1`, []byte(workflow)).
			Scan((*bytesString)(&owner), &head.Seq, &head.StateVersion, &head.Hash)
		ownerFound := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		headFound := ownerFound && owner == tenant
		c := chain{domain: domainRecord, tenant: tenant, workflow: workflow, rep: &rep}
		if err := c.walkRows(ctx, tx, `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_records
			WHERE tenant = $1 AND workflow = $2 ORDER BY seq`, []byte(tenant), []byte(workflow)); err != nil {
			return err
		}
		switch {
		case !headFound && c.seq == 0 && rep.OK:
			return callbackError{fmt.Errorf("%w: %q", ErrNotFound, workflow)}
		case !rep.OK:
		case ownerFound && owner != tenant:
			rep.fail(0, "owner index names tenant %q", owner)
		case !headFound:
			rep.fail(0, "workflow head missing")
		case !c.checkHead(head):
		case head.StateVersion > head.Seq:
			rep.fail(0, "head state version %d exceeds its %d records", head.StateVersion, head.Seq)
		}
		return nil
	})
	if err != nil {
		return VerifyReport{}, err
	}
	return rep, nil
}

// VerifyAudit walks the audit stream of tenant like Verify walks a workflow.
func (p *Postgres) VerifyAudit(ctx context.Context, tenant string) (VerifyReport, error) {
	if err := p.begin(ctx); err != nil {
		return VerifyReport{}, err
	}
	defer p.end()
	rep := VerifyReport{Tenant: tenant, OK: true}
	err := p.readTx(ctx, "verify audit", func(tx pgx.Tx) error {
		var head Head
		err := tx.QueryRow(ctx, `SELECT seq, hash FROM handoff_audit_heads WHERE tenant = $1`, []byte(tenant)).Scan(&head.Seq, &head.Hash)
		headFound := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		c := chain{domain: domainAudit, tenant: tenant, rep: &rep}
		if err := c.walkRows(ctx, tx, `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_audit
			WHERE tenant = $1 ORDER BY seq`, []byte(tenant)); err != nil {
			return err
		}
		switch {
		case !rep.OK:
		case !headFound && c.seq == 0:
		case !headFound:
			rep.fail(0, "audit head missing")
		default:
			c.checkHead(head)
		}
		return nil
	})
	if err != nil {
		return VerifyReport{}, err
	}
	return rep, nil
}

// walkRows checks every record sql selects, in seq order, until the first problem,
// which it records in c.rep. Errors are database failures only.
func (c *chain) walkRows(ctx context.Context, q querier, sql string, args ...any) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r storedRecord
		if err := rows.Scan(&r.Seq, &r.Time, (*bytesString)(&r.Type), &r.Payload, &r.PrevHash, &r.Hash); err != nil {
			return err
		}
		want := c.seq + 1
		if r.Seq != want {
			c.rep.fail(want, "record %d missing (next record is %d)", want, r.Seq)
			return nil
		}
		if problem := c.checkRecord(r.Seq, &r); problem != "" {
			c.rep.fail(r.Seq, "%s", problem)
			return nil
		}
		c.rep.Records++
	}
	return rows.Err()
}
