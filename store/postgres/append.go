package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// Append writes a atomically in one transaction and returns the workflow's new head,
// as Badger's Append does, once PostgreSQL has committed it. If ctx ends before the
// transaction begins, Append returns ctx.Err() and writes nothing; once begun it runs to
// its end, bounded by the statement timeout.
func (p *Log) Append(ctx context.Context, a store.Append) (store.Head, error) {
	if err := p.begin(ctx); err != nil {
		return store.Head{}, err
	}
	defer p.end()
	if err := chain.CheckAppend(p.readOnly, &a); err != nil {
		return store.Head{}, err
	}
	if appendSize(&a) > maxPostgresAppend {
		return store.Head{}, store.ErrTooLarge
	}
	return retryConflicts(ctx, "append", func(ctx context.Context) (store.Head, error) { return p.appendTx(ctx, &a) })
}

// retryConflicts runs fn until it does not lose to another writer. Each try after the
// first waits a little, so that writers that collided do not collide again in step.
func retryConflicts[T any](ctx context.Context, op string, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	for try := range maxPostgresRetries {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		if try > 0 {
			time.Sleep(time.Duration(rand.Int64N(int64(min(try, 20)) * int64(100*time.Microsecond))))
		}
		// Once begun, the transaction is not cut short by the caller: a commit
		// interrupted half way would leave the caller not knowing whether it happened.
		v, err := fn(context.WithoutCancel(ctx))
		if !conflict(err) {
			return v, pgWrap(op, err)
		}
	}
	return zero, &store.Error{Op: op, Err: chain.ErrTooManyConflicts}
}

// appendSize is the bytes a writes, roughly: what bounds it.
func appendSize(a *store.Append) int64 {
	n := int64(len(a.State))
	for _, r := range a.Records {
		n += int64(len(r.Payload) + len(r.Type) + len(r.ID))
	}
	return n
}

// appendTx makes one try of an append in four round trips: the reads it checks (the
// idempotency key, the head, the record ids) in one batch, then BEGIN, the writes in one
// batch, and COMMIT. The reads need no transaction: every write they justify is guarded
// by a key, so a writer that committed in between makes a write fail and the append is
// tried again.
func (p *Log) appendTx(ctx context.Context, a *store.Append) (store.Head, error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return store.Head{}, err
	}
	defer conn.Release()

	reads := &pgx.Batch{}
	if a.IdempotencyKey != "" {
		reads.Queue(`SELECT digest, workflow, seq, hash FROM handoff_idempotency WHERE tenant = $1 AND key = $2`, []byte(a.Tenant), []byte(a.IdempotencyKey))
	}
	reads.Queue(`SELECT tenant, `+headColumns+` FROM handoff_workflows WHERE workflow = $1`, []byte(a.Workflow))
	ids := recordIDs(a.Records)
	if len(ids) > 0 {
		reads.Queue(`SELECT id, tenant, workflow, seq, hash FROM handoff_record_ids WHERE id = ANY($1)`, ids)
	}
	var (
		idem             chain.IdemEntry
		idemFound, found bool
		owner            string
		cur              store.Head
		head             pgHead
		taken            = map[string]store.Location{}
		readErr          error
	)
	br := conn.SendBatch(ctx, reads)
	if a.IdempotencyKey != "" {
		err := br.QueryRow().Scan((*bytesString)(&idem.Digest), (*bytesString)(&idem.Workflow), &idem.Seq, &idem.Hash)
		idemFound = err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			readErr = err
		}
	}
	if readErr == nil {
		err := br.QueryRow().Scan(append([]any{(*bytesString)(&owner)}, head.targets()...)...)
		found = err == nil
		if found {
			cur = head.head()
		}
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			readErr = err
		}
	}
	if readErr == nil && len(ids) > 0 {
		rows, err := br.Query()
		if err == nil {
			for rows.Next() {
				var id string
				var loc store.Location
				if err := rows.Scan((*bytesString)(&id), (*bytesString)(&loc.Tenant), (*bytesString)(&loc.Workflow), &loc.Seq, &loc.Hash); err != nil {
					break
				}
				taken[id] = loc
			}
			rows.Close()
			err = rows.Err()
		}
		readErr = err
	}
	if err := errors.Join(readErr, br.Close()); err != nil {
		return store.Head{}, err
	}

	switch {
	case idemFound && idem.Digest != a.RequestDigest:
		return store.Head{}, store.ErrIdempotencyKeyReused
	case idemFound:
		rec, err := chain.CheckBound(pgReader(ctx, conn), a.Tenant, a.IdempotencyKey, idem)
		if err != nil {
			return store.Head{}, err
		}
		return store.Head{}, &store.DuplicateError{Record: rec}
	case a.Create && found:
		return store.Head{}, fmt.Errorf("%w: %q", store.ErrExists, a.Workflow)
	case !a.Create && (!found || owner != a.Tenant):
		return store.Head{}, fmt.Errorf("%w: %q", store.ErrNotFound, a.Workflow)
	}
	if err := chain.CheckVersion(a, cur); err != nil {
		return store.Head{}, err
	}
	if err := duplicateIDs(a.Records, taken); err != nil {
		return store.Head{}, err
	}

	recs, next := chain.Seal(a, cur)
	writes := &pgx.Batch{}
	queueRecords(writes, "handoff_records", a.Tenant, a.Workflow, recs)
	standingSeq, standing := standingColumns(next)
	summary, summarySeq, activeKey := summaryColumns(a.Summary, next.Seq, a.Time)
	switch {
	case a.Create:
		writes.Queue(`INSERT INTO handoff_workflows (workflow, tenant, seq, state_version, hash, snapshot, standing_seq, standing, summary, summary_seq, active_key)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			[]byte(a.Workflow), []byte(a.Tenant), next.Seq, next.StateVersion, next.Hash, a.State, standingSeq, standing, summary, summarySeq, activeKey)
	case a.Standing != "":
		writes.Queue(`UPDATE handoff_workflows SET seq = $3, state_version = $4, hash = $5, snapshot = COALESCE($6, snapshot), standing_seq = $7, standing = $8,
			summary = $9, summary_seq = $10, active_key = $11 WHERE workflow = $1 AND tenant = $2`,
			[]byte(a.Workflow), []byte(a.Tenant), next.Seq, next.StateVersion, next.Hash, a.State, standingSeq, standing, summary, summarySeq, activeKey)
	default:
		writes.Queue(`UPDATE handoff_workflows SET seq = $3, state_version = $4, hash = $5, snapshot = COALESCE($6, snapshot),
			summary = $7, summary_seq = $8, active_key = $9 WHERE workflow = $1 AND tenant = $2`,
			[]byte(a.Workflow), []byte(a.Tenant), next.Seq, next.StateVersion, next.Hash, a.State, summary, summarySeq, activeKey)
	}
	if a.IdempotencyKey != "" {
		writes.Queue(`INSERT INTO handoff_idempotency (tenant, key, digest, workflow, seq, hash) VALUES ($1, $2, $3, $4, $5, $6)`,
			[]byte(a.Tenant), []byte(a.IdempotencyKey), []byte(a.RequestDigest), []byte(a.Workflow), next.Seq, next.Hash)
	}
	for i, r := range recs {
		if id := a.Records[i].ID; id != "" {
			queueID(writes, id, store.Location{Tenant: a.Tenant, Workflow: a.Workflow, Seq: r.Seq, Hash: r.Hash})
		}
	}
	if err := p.commitBatch(ctx, conn, writes); err != nil {
		return store.Head{}, err
	}
	if p.onCommit != nil {
		p.onCommit(1)
	}
	return next, nil
}

// commitBatch runs writes in one transaction and commits it.
func (p *Log) commitBatch(ctx context.Context, conn *pgxpool.Conn, writes *pgx.Batch) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := tx.SendBatch(ctx, writes).Close(); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// recordIDs lists the ids of recs.
func recordIDs(recs []store.NewRecord) [][]byte {
	var ids [][]byte
	for _, r := range recs {
		if r.ID != "" {
			ids = append(ids, []byte(r.ID))
		}
	}
	return ids
}

// duplicateIDs refuses records whose id is indexed already (taken), or shared by two
// of them.
func duplicateIDs(recs []store.NewRecord, taken map[string]store.Location) error {
	for i, r := range recs {
		if r.ID == "" {
			continue
		}
		for _, o := range recs[:i] {
			if o.ID == r.ID {
				return &store.DuplicateIDError{ID: r.ID}
			}
		}
		if loc, ok := taken[r.ID]; ok {
			return &store.DuplicateIDError{ID: r.ID, Existing: loc}
		}
	}
	return nil
}

// queueRecords queues the insert of sealed records into table, in one statement.
func queueRecords(b *pgx.Batch, table, tenant, workflow string, recs []chain.Record) {
	var sql strings.Builder
	args := make([]any, 0, 8*len(recs))
	if table == "handoff_audit" {
		sql.WriteString("INSERT INTO handoff_audit (tenant, seq, time, type, payload, prev_hash, hash) VALUES ")
	} else {
		sql.WriteString("INSERT INTO handoff_records (tenant, workflow, seq, time, type, payload, prev_hash, hash) VALUES ")
	}
	for i, r := range recs {
		if i > 0 {
			sql.WriteString(", ")
		}
		row := []any{[]byte(tenant), []byte(workflow), r.Seq, r.Time, []byte(r.Type), r.Payload, r.PrevHash, r.Hash}
		if table == "handoff_audit" {
			row = append(row[:1], row[2:]...)
		}
		sql.WriteByte('(')
		for j := range row {
			if j > 0 {
				sql.WriteString(", ")
			}
			fmt.Fprintf(&sql, "$%d", len(args)+j+1)
		}
		sql.WriteByte(')')
		args = append(args, row...)
	}
	b.Queue(sql.String(), args...)
}

// queueID queues the index entry of a record id.
func queueID(b *pgx.Batch, id string, loc store.Location) {
	b.Queue(`INSERT INTO handoff_record_ids (id, tenant, workflow, seq, hash) VALUES ($1, $2, $3, $4, $5)`,
		[]byte(id), []byte(loc.Tenant), []byte(loc.Workflow), loc.Seq, loc.Hash)
}

// Audit appends rec to the audit stream of tenant, as Badger's Audit does.
func (p *Log) Audit(ctx context.Context, tenant string, rec store.NewRecord, t time.Time) (store.Record, error) {
	if err := p.begin(ctx); err != nil {
		return store.Record{}, err
	}
	defer p.end()
	if err := chain.CheckAudit(p.readOnly, tenant, rec, t); err != nil {
		return store.Record{}, err
	}
	if int64(len(rec.Payload)) > maxPostgresAppend {
		return store.Record{}, store.ErrTooLarge
	}
	return retryConflicts(ctx, "audit", func(ctx context.Context) (store.Record, error) { return p.auditTx(ctx, tenant, rec, t) })
}

func (p *Log) auditTx(ctx context.Context, tenant string, rec store.NewRecord, t time.Time) (store.Record, error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return store.Record{}, err
	}
	defer conn.Release()
	if rec.ID != "" {
		loc, found, err := readLocation(ctx, conn, rec.ID)
		if err != nil {
			return store.Record{}, err
		}
		if found {
			return store.Record{}, &store.DuplicateIDError{ID: rec.ID, Existing: loc}
		}
	}
	head, _, err := readAuditHead(ctx, conn, tenant)
	if err != nil {
		return store.Record{}, err
	}
	sr := chain.Record{Seq: head.Seq + 1, Time: store.FormatTime(t), Type: rec.Type, Payload: rec.Payload, PrevHash: head.Hash}
	chain.SealRecord(store.DomainAudit, tenant, "", &sr)
	writes := &pgx.Batch{}
	queueRecords(writes, "handoff_audit", tenant, "", []chain.Record{sr})
	writes.Queue(`INSERT INTO handoff_audit_heads (tenant, seq, hash) VALUES ($1, $2, $3)
		ON CONFLICT (tenant) DO UPDATE SET seq = excluded.seq, hash = excluded.hash`, []byte(tenant), sr.Seq, sr.Hash)
	if rec.ID != "" {
		queueID(writes, rec.ID, store.Location{Tenant: tenant, Seq: sr.Seq, Hash: sr.Hash})
	}
	if err := p.commitBatch(ctx, conn, writes); err != nil {
		return store.Record{}, err
	}
	return sr.Record()
}

// SetStanding fills in the standing record of a workflow's head that an earlier version
// wrote without it, as Badger's SetStanding does: one conditional UPDATE.
func (p *Log) SetStanding(ctx context.Context, tenant, workflow string, h store.Head) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	if p.readOnly {
		return &store.Error{Op: "set standing", Err: store.ErrReadOnly}
	}
	if err := chain.CheckStandingArg(tenant, workflow, h); err != nil {
		return err
	}
	tag, err := p.pool.Exec(ctx, `UPDATE handoff_workflows SET standing_seq = $4, standing = $5
		WHERE workflow = $1 AND tenant = $2 AND seq = $3 AND standing_seq IS NULL`,
		[]byte(workflow), []byte(tenant), h.Seq, h.StandingSeq, []byte(h.Standing))
	if err != nil || tag.RowsAffected() > 0 {
		return pgWrap("set standing", err)
	}
	if owner, found, err := p.Owner(ctx, workflow); err != nil {
		return err
	} else if !found || owner != tenant {
		return fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
	}
	return nil
}
