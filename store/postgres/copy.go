package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// ImportChain writes a chain as it was sealed elsewhere, in one transaction.
func (p *Log) ImportChain(ctx context.Context, c store.ChainCopy) error {
	return p.importTx(ctx, func(tx pgx.Tx) error {
		rows := make([][]any, len(c.Records))
		cols := []string{"tenant", "workflow", "seq", "time", "type", "payload", "prev_hash", "hash"}
		table := "handoff_records"
		for i, rec := range c.Records {
			r := chain.Stored(rec)
			rows[i] = []any{[]byte(c.Tenant), []byte(c.Workflow), r.Seq, r.Time, []byte(r.Type), r.Payload, r.PrevHash, r.Hash}
			if c.Audit {
				rows[i] = append(rows[i][:1], rows[i][2:]...)
			}
		}
		if c.Audit {
			cols = append(cols[:1], cols[2:]...)
			table = "handoff_audit"
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		if c.Audit {
			_, err := tx.Exec(ctx, `INSERT INTO handoff_audit_heads (tenant, seq, hash) VALUES ($1, $2, $3)`, []byte(c.Tenant), c.Head.Seq, c.Head.Hash)
			return err
		}
		standingSeq, standing := standingColumns(c.Head)
		var summary, activeKey []byte
		var summarySeq *uint64
		if c.Summary != nil {
			summary, summarySeq, activeKey = summaryColumns(c.Summary.Data, c.Head.Seq, c.Summary.Active)
		}
		_, err := tx.Exec(ctx, `INSERT INTO handoff_workflows (workflow, tenant, seq, state_version, hash, snapshot, standing_seq, standing, summary, summary_seq, active_key)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			[]byte(c.Workflow), []byte(c.Tenant), c.Head.Seq, c.Head.StateVersion, c.Head.Hash, c.Snapshot, standingSeq, standing, summary, summarySeq, activeKey)
		return err
	})
}

func (p *Log) ImportKeys(ctx context.Context, tenant string, keys []store.Idempotency) error {
	return p.importTx(ctx, func(tx pgx.Tx) error {
		rows := make([][]any, len(keys))
		for i, k := range keys {
			rows[i] = []any{[]byte(tenant), []byte(k.Key), []byte(k.Digest), []byte(k.Workflow), k.Seq, k.Hash}
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"handoff_idempotency"}, []string{"tenant", "key", "digest", "workflow", "seq", "hash"}, pgx.CopyFromRows(rows))
		return err
	})
}

func (p *Log) ImportIDs(ctx context.Context, ids map[string]store.Location) error {
	return p.importTx(ctx, func(tx pgx.Tx) error {
		rows := make([][]any, 0, len(ids))
		for id, loc := range ids {
			rows = append(rows, []any{[]byte(id), []byte(loc.Tenant), []byte(loc.Workflow), loc.Seq, loc.Hash})
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"handoff_record_ids"}, []string{"id", "tenant", "workflow", "seq", "hash"}, pgx.CopyFromRows(rows))
		return err
	})
}

// importTx runs fn in a transaction of its own.
func (p *Log) importTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	if p.readOnly {
		return &store.Error{Op: "copy", Err: store.ErrReadOnly}
	}
	return pgWrap("copy", pgx.BeginFunc(ctx, p.pool, fn))
}

// IndexEntries calls fn with every entry of the record index, in id order.
func (p *Log) IndexEntries(ctx context.Context, fn func(id string, loc store.Location) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	return p.readTx(ctx, "index", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, tenant, workflow, seq, hash FROM handoff_record_ids ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var loc store.Location
			if err := rows.Scan((*bytesString)(&id), (*bytesString)(&loc.Tenant), (*bytesString)(&loc.Workflow), &loc.Seq, &loc.Hash); err != nil {
				return err
			}
			if err := fn(id, loc); err != nil {
				return chain.CallbackError{Err: err}
			}
		}
		return rows.Err()
	})
}
