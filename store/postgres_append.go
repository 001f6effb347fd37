package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/handoff-dev/handoff/internal/canary"
)

// Append writes a atomically in one transaction and returns the workflow's new head,
// as Badger's Append does, once PostgreSQL has committed it. If ctx ends before the
// transaction begins, Append returns ctx.Err() and writes nothing; once begun it runs to
// its end, bounded by the statement timeout.
func (p *Postgres) Append(ctx context.Context, a Append) (Head, error) {
	if err := p.begin(ctx); err != nil {
		return Head{}, err
	}
	defer p.end()
	if p.readOnly {
		return Head{}, &Error{Op: "append", Err: ErrReadOnly}
	}
	if err := a.validate(); err != nil {
		return Head{}, err
	}
	if a.size() > maxPostgresAppend {
		return Head{}, ErrTooLarge
	}
	return retryConflicts(ctx, "append", func(ctx context.Context) (Head, error) { return p.appendTx(ctx, &a) })
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
	return zero, &Error{Op: op, Err: errors.New("too many conflicting writers")}
}

// size is the bytes a writes, roughly: what bounds it.
func (a *Append) size() int64 {
	n := int64(len(a.State))
	for _, r := range a.Records {
		n += int64(len(r.Payload) + len(r.Type) + len(r.ID))
	}
	return n
}

func (p *Postgres) appendTx(ctx context.Context, a *Append) (Head, error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return Head{}, err
	}
	defer func() { _ = tx.Rollback(ctx) }()

	if a.IdempotencyKey != "" {
		var e idemEntry
		err := tx.QueryRow(ctx, `SELECT digest, workflow, seq, hash FROM handoff_idempotency WHERE tenant = $1 AND key = $2`,
			[]byte(a.Tenant), []byte(a.IdempotencyKey)).Scan((*bytesString)(&e.Digest), (*bytesString)(&e.Workflow), &e.Seq, &e.Hash)
		switch {
		case err == nil && e.Digest != a.RequestDigest:
			return Head{}, ErrIdempotencyKeyReused
		case err == nil:
			rec, err := checkBound(pgReader(ctx, tx), a.Tenant, a.IdempotencyKey, e)
			if err != nil {
				return Head{}, err
			}
			return Head{}, &DuplicateError{Record: rec}
		case !errors.Is(err, pgx.ErrNoRows):
			return Head{}, err
		}
	}

	var (
		owner string
		cur   Head
	)
	err = tx.QueryRow(ctx, `SELECT tenant, seq, state_version, hash FROM handoff_workflows WHERE workflow = $1`, []byte(a.Workflow)).
		Scan((*bytesString)(&owner), &cur.Seq, &cur.StateVersion, &cur.Hash)
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Head{}, err
	}
	switch {
	case a.Create && found:
		return Head{}, fmt.Errorf("%w: %q", ErrExists, a.Workflow)
	case !a.Create && (!found || owner != a.Tenant):
		return Head{}, fmt.Errorf("%w: %q", ErrNotFound, a.Workflow)
	}
	if err := checkVersion(a, cur); err != nil {
		return Head{}, err
	}
	if err := p.checkIDs(ctx, tx, a.Records); err != nil {
		return Head{}, err
	}

	recs, next := a.seal(cur)
	if err := insertRecords(ctx, tx, "handoff_records", a.Tenant, a.Workflow, recs); err != nil {
		return Head{}, err
	}
	if a.Create {
		_, err = tx.Exec(ctx, `INSERT INTO handoff_workflows (workflow, tenant, seq, state_version, hash, snapshot) VALUES ($1, $2, $3, $4, $5, $6)`,
			[]byte(a.Workflow), []byte(a.Tenant), next.Seq, next.StateVersion, next.Hash, a.State)
	} else {
		_, err = tx.Exec(ctx, `UPDATE handoff_workflows SET seq = $3, state_version = $4, hash = $5, snapshot = COALESCE($6, snapshot) WHERE workflow = $1 AND tenant = $2`,
			[]byte(a.Workflow), []byte(a.Tenant), next.Seq, next.StateVersion, next.Hash, a.State)
	}
	if err != nil {
		return Head{}, err
	}
	if a.IdempotencyKey != "" {
		_, err := tx.Exec(ctx, `INSERT INTO handoff_idempotency (tenant, key, digest, workflow, seq, hash) VALUES ($1, $2, $3, $4, $5, $6)`,
			[]byte(a.Tenant), []byte(a.IdempotencyKey), []byte(a.RequestDigest), []byte(a.Workflow), next.Seq, next.Hash)
		if err != nil {
			return Head{}, err
		}
	}
	for i, r := range recs {
		if id := a.Records[i].ID; id != "" {
			if err := insertID(ctx, tx, id, Location{Tenant: a.Tenant, Workflow: a.Workflow, Seq: r.Seq, Hash: r.Hash}); err != nil {
				return Head{}, err
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return Head{}, err
	}
	if p.onCommit != nil {
		p.onCommit(1)
	}
	return next, nil
}

// checkVersion refuses an append whose expected version is not the workflow's.
func checkVersion(a *Append, cur Head) error {
	if a.ExpectedVersion != cur.StateVersion && !canary.SkipVersionCheck {
		return &StaleError{Expected: a.ExpectedVersion, Actual: cur.StateVersion}
	}
	return nil
}

// checkIDs refuses records whose id is indexed already, or shared by two of them.
func (p *Postgres) checkIDs(ctx context.Context, q querier, recs []NewRecord) error {
	for i, r := range recs {
		if r.ID == "" {
			continue
		}
		for _, o := range recs[:i] {
			if o.ID == r.ID {
				return &DuplicateIDError{ID: r.ID}
			}
		}
		loc, found, err := readLocation(ctx, q, r.ID)
		if err != nil {
			return err
		}
		if found {
			return &DuplicateIDError{ID: r.ID, Existing: loc}
		}
	}
	return nil
}

// insertRecords writes sealed records to table in one statement.
func insertRecords(ctx context.Context, tx pgx.Tx, table, tenant, workflow string, recs []storedRecord) error {
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
	_, err := tx.Exec(ctx, sql.String(), args...)
	return err
}

// insertID indexes a record under id.
func insertID(ctx context.Context, tx pgx.Tx, id string, loc Location) error {
	_, err := tx.Exec(ctx, `INSERT INTO handoff_record_ids (id, tenant, workflow, seq, hash) VALUES ($1, $2, $3, $4, $5)`,
		[]byte(id), []byte(loc.Tenant), []byte(loc.Workflow), loc.Seq, loc.Hash)
	return err
}

// Audit appends rec to the audit stream of tenant, as Badger's Audit does.
func (p *Postgres) Audit(ctx context.Context, tenant string, rec NewRecord, t time.Time) (Record, error) {
	if err := p.begin(ctx); err != nil {
		return Record{}, err
	}
	defer p.end()
	if p.readOnly {
		return Record{}, &Error{Op: "audit", Err: ErrReadOnly}
	}
	if len(tenant) > maxIDLen {
		return Record{}, invalid("tenant id longer than %d bytes", maxIDLen)
	}
	if err := rec.validate(); err != nil {
		return Record{}, err
	}
	if err := checkTime(t); err != nil {
		return Record{}, err
	}
	if int64(len(rec.Payload)) > maxPostgresAppend {
		return Record{}, ErrTooLarge
	}
	return retryConflicts(ctx, "audit", func(ctx context.Context) (Record, error) { return p.auditTx(ctx, tenant, rec, t) })
}

func (p *Postgres) auditTx(ctx context.Context, tenant string, rec NewRecord, t time.Time) (Record, error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return Record{}, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := p.checkIDs(ctx, tx, []NewRecord{rec}); err != nil {
		return Record{}, err
	}
	var head Head
	err = tx.QueryRow(ctx, `SELECT seq, hash FROM handoff_audit_heads WHERE tenant = $1`, []byte(tenant)).Scan(&head.Seq, &head.Hash)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Record{}, err
	}
	sr := storedRecord{Seq: head.Seq + 1, Time: formatTime(t), Type: rec.Type, Payload: rec.Payload, PrevHash: head.Hash}
	sealRecord(domainAudit, tenant, "", &sr)
	if err := insertRecords(ctx, tx, "handoff_audit", tenant, "", []storedRecord{sr}); err != nil {
		return Record{}, err
	}
	_, err = tx.Exec(ctx, `INSERT INTO handoff_audit_heads (tenant, seq, hash) VALUES ($1, $2, $3)
		ON CONFLICT (tenant) DO UPDATE SET seq = excluded.seq, hash = excluded.hash`, []byte(tenant), sr.Seq, sr.Hash)
	if err != nil {
		return Record{}, err
	}
	if rec.ID != "" {
		if err := insertID(ctx, tx, rec.ID, Location{Tenant: tenant, Seq: sr.Seq, Hash: sr.Hash}); err != nil {
			return Record{}, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return Record{}, err
	}
	r, err := sr.record()
	return r, err
}
