package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// headColumns are the columns of a workflow's head in handoff_workflows, as pgHead
// scans them.
const headColumns = "seq, state_version, hash, standing_seq, standing"

// pgHead scans a workflow's head: a NULL standing_seq is a head written before heads
// kept their standing record.
type pgHead struct {
	h           store.Head
	standingSeq *uint64
	standing    nullBytesString
}

// targets are the scan targets of headColumns.
func (p *pgHead) targets() []any {
	return []any{&p.h.Seq, &p.h.StateVersion, &p.h.Hash, &p.standingSeq, &p.standing}
}

func (p *pgHead) head() store.Head {
	h := p.h
	if p.standingSeq == nil {
		h.StandingUnknown = true
	} else {
		h.StandingSeq, h.Standing = *p.standingSeq, string(p.standing)
	}
	return h
}

// standingColumns are the values of standing_seq and standing for h.
func standingColumns(h store.Head) (seq *uint64, tag []byte) {
	if h.StandingUnknown {
		return nil, nil
	}
	return &h.StandingSeq, []byte(h.Standing)
}

// bytesString scans a bytea column into a string.
type bytesString string

// Scan implements sql.Scanner.
func (s *bytesString) Scan(src any) error {
	b, ok := src.([]byte)
	if !ok {
		return fmt.Errorf("bytea column read as %T", src)
	}
	*s = bytesString(b)
	return nil
}

// pgReader reads records with q.
func pgReader(ctx context.Context, q querier) chain.Reader {
	return func(tenant, workflow string, seq uint64) (chain.Record, bool, error) {
		sql := `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_records WHERE tenant = $1 AND workflow = $2 AND seq = $3`
		args := []any{[]byte(tenant), []byte(workflow), seq}
		if workflow == "" {
			sql = `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_audit WHERE tenant = $1 AND seq = $2`
			args = []any{[]byte(tenant), seq}
		}
		var r chain.Record
		err := q.QueryRow(ctx, sql, args...).Scan(&r.Seq, &r.Time, (*bytesString)(&r.Type), &r.Payload, &r.PrevHash, &r.Hash)
		if errors.Is(err, pgx.ErrNoRows) {
			return chain.Record{}, false, nil
		}
		return r, err == nil, err
	}
}

// readLocation reads the index entry of a record id.
func readLocation(ctx context.Context, q querier, id string) (store.Location, bool, error) {
	var loc store.Location
	err := q.QueryRow(ctx, `SELECT tenant, workflow, seq, hash FROM handoff_record_ids WHERE id = $1`, []byte(id)).
		Scan((*bytesString)(&loc.Tenant), (*bytesString)(&loc.Workflow), &loc.Seq, &loc.Hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Location{}, false, nil
	}
	return loc, err == nil, err
}

// readAuditHead reads the head of the audit stream of tenant: the zero Head and false
// when the stream is empty.
func readAuditHead(ctx context.Context, q querier, tenant string) (store.Head, bool, error) {
	var h store.Head
	err := q.QueryRow(ctx, `SELECT seq, hash FROM handoff_audit_heads WHERE tenant = $1`, []byte(tenant)).Scan(&h.Seq, &h.Hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Head{}, false, nil
	}
	return h, err == nil, err
}

// Idempotent looks up an idempotency key of tenant, as Badger's Idempotent does: the
// key and the record it names are read in one statement.
func (p *Log) Idempotent(ctx context.Context, tenant, key string) (digest string, answer store.Record, found bool, err error) {
	if err := p.begin(ctx); err != nil {
		return "", store.Record{}, false, err
	}
	defer p.end()
	var (
		e    chain.IdemEntry
		r    chain.Record
		seq  *uint64
		time *string
	)
	err = p.pool.QueryRow(ctx, `SELECT i.digest, i.workflow, i.seq, i.hash, r.seq, r.time, r.type, r.payload, r.prev_hash, r.hash
		FROM handoff_idempotency i LEFT JOIN handoff_records r ON r.tenant = i.tenant AND r.workflow = i.workflow AND r.seq = i.seq
		WHERE i.tenant = $1 AND i.key = $2 LIMIT 1`, []byte(tenant), []byte(key)).
		Scan((*bytesString)(&e.Digest), (*bytesString)(&e.Workflow), &e.Seq, &e.Hash, &seq, &time, (*nullBytesString)(&r.Type), &r.Payload, (*nullString)(&r.PrevHash), (*nullString)(&r.Hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return "", store.Record{}, false, nil
	}
	if err != nil {
		return "", store.Record{}, false, pgWrap("idempotent", err)
	}
	read := func(string, string, uint64) (chain.Record, bool, error) {
		if seq == nil {
			return chain.Record{}, false, nil
		}
		r.Seq, r.Time = *seq, *time
		return r, true, nil
	}
	answer, err = chain.CheckBound(read, tenant, key, e)
	if err != nil {
		return "", store.Record{}, false, err
	}
	return e.Digest, answer, true, nil
}

// nullString scans a text column that may be NULL (a LEFT JOIN's) into a string.
type nullString string

// Scan implements sql.Scanner.
func (s *nullString) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*s = ""
	case string:
		*s = nullString(v)
	default:
		return fmt.Errorf("text column read as %T", src)
	}
	return nil
}

// nullBytesString scans a bytea column that may be NULL into a string.
type nullBytesString string

// Scan implements sql.Scanner.
func (s *nullBytesString) Scan(src any) error {
	if src == nil {
		*s = ""
		return nil
	}
	return (*bytesString)(s).Scan(src)
}

// State returns the snapshot and head of a workflow of tenant, read together.
func (p *Log) State(ctx context.Context, tenant, workflow string) (snapshot []byte, head store.Head, err error) {
	if err := p.begin(ctx); err != nil {
		return nil, store.Head{}, err
	}
	defer p.end()
	var owner string
	var h pgHead
	err = p.pool.QueryRow(ctx, `SELECT tenant, snapshot, `+headColumns+` FROM handoff_workflows WHERE workflow = $1`, []byte(workflow)).
		Scan(append([]any{(*bytesString)(&owner), &snapshot}, h.targets()...)...)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && owner != tenant) {
		return nil, store.Head{}, fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
	}
	if err != nil {
		return nil, store.Head{}, pgWrap("state", err)
	}
	return snapshot, h.head(), nil
}

// Owner returns the tenant that created workflow, as Badger's Owner does.
func (p *Log) Owner(ctx context.Context, workflow string) (tenant string, found bool, err error) {
	if err := p.begin(ctx); err != nil {
		return "", false, err
	}
	defer p.end()
	err = p.pool.QueryRow(ctx, `SELECT tenant FROM handoff_workflows WHERE workflow = $1`, []byte(workflow)).Scan((*bytesString)(&tenant))
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, pgWrap("owner", err)
	}
	return tenant, true, nil
}

// Find returns where the record with id is, checked against the hash the index holds,
// as Badger's Find does.
func (p *Log) Find(ctx context.Context, id string) (store.Location, error) {
	if err := p.begin(ctx); err != nil {
		return store.Location{}, err
	}
	defer p.end()
	var loc store.Location
	err := p.readTx(ctx, "find", func(tx pgx.Tx) error {
		var found bool
		var err error
		loc, found, err = readLocation(ctx, tx, id)
		if err != nil {
			return err
		}
		if !found {
			return chain.CallbackError{Err: chain.IDNotFound{ID: id}}
		}
		if problem := chain.CheckLocated(pgReader(ctx, tx), loc); problem != "" {
			return chain.CallbackError{Err: fmt.Errorf("%w: the index entry of id %q names %s", store.ErrTampered, id, problem)}
		}
		return nil
	})
	if err != nil {
		return store.Location{}, err
	}
	return loc, nil
}

// AuditHead returns the head of the audit stream of tenant; the zero Head when empty.
func (p *Log) AuditHead(ctx context.Context, tenant string) (store.Head, error) {
	if err := p.begin(ctx); err != nil {
		return store.Head{}, err
	}
	defer p.end()
	h, _, err := readAuditHead(ctx, p.pool, tenant)
	return h, pgWrap("audit head", err)
}

// Record reads one record of a chain, as Badger's Record does.
func (p *Log) Record(ctx context.Context, tenant, workflow string, seq uint64) (store.Record, error) {
	if err := p.begin(ctx); err != nil {
		return store.Record{}, err
	}
	defer p.end()
	rec, err := chain.ReadRecord(pgReader(ctx, p.pool), tenant, workflow, seq)
	return rec, pgWrap("record", err)
}

// Records calls fn with the records of a workflow of tenant in seq order from fromSeq,
// from one consistent view, as Badger's Records does.
func (p *Log) Records(ctx context.Context, tenant, workflow string, fromSeq uint64, fn func(store.Record) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	return p.readTx(ctx, "records", func(tx pgx.Tx) error {
		n, err := walkRows(ctx, tx, fn, `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_records
			WHERE tenant = $1 AND workflow = $2 AND seq >= $3 ORDER BY seq`, []byte(tenant), []byte(workflow), max(fromSeq, 1))
		if err != nil || n > 0 {
			return err
		}
		var exists bool
		err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM handoff_workflows WHERE workflow = $2 AND tenant = $1)
			OR EXISTS (SELECT 1 FROM handoff_records WHERE tenant = $1 AND workflow = $2)`, []byte(tenant), []byte(workflow)).Scan(&exists)
		if err == nil && !exists {
			return chain.CallbackError{Err: fmt.Errorf("%w: %q", store.ErrNotFound, workflow)}
		}
		return err
	})
}

// AuditRecords calls fn with the audit records of tenant in seq order from fromSeq.
func (p *Log) AuditRecords(ctx context.Context, tenant string, fromSeq uint64, fn func(store.Record) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	return p.readTx(ctx, "audit records", func(tx pgx.Tx) error {
		_, err := walkRows(ctx, tx, fn, `SELECT seq, time, type, payload, prev_hash, hash FROM handoff_audit
			WHERE tenant = $1 AND seq >= $2 ORDER BY seq`, []byte(tenant), max(fromSeq, 1))
		return err
	})
}

// walkRows calls fn with each record sql selects and returns how many it visited. An
// error from fn comes back as a callbackError.
func walkRows(ctx context.Context, q querier, fn func(store.Record) error, sql string, args ...any) (int, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var sr chain.Record
		if err := rows.Scan(&sr.Seq, &sr.Time, (*bytesString)(&sr.Type), &sr.Payload, &sr.PrevHash, &sr.Hash); err != nil {
			return n, err
		}
		if err := chain.Deliver(&sr, fn); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// Workflows calls fn with every workflow of tenant and its head, in workflow id order.
func (p *Log) Workflows(ctx context.Context, tenant string, fn func(workflow string, head store.Head) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	return p.readTx(ctx, "workflows", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT workflow, `+headColumns+` FROM handoff_workflows WHERE tenant = $1 ORDER BY workflow`, []byte(tenant))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var w string
			var h pgHead
			if err := rows.Scan(append([]any{(*bytesString)(&w)}, h.targets()...)...); err != nil {
				return err
			}
			if err := fn(w, h.head()); err != nil {
				return chain.CallbackError{Err: err}
			}
		}
		return rows.Err()
	})
}

// IdempotencyKeys calls fn with every idempotency key of tenant, in key order.
func (p *Log) IdempotencyKeys(ctx context.Context, tenant string, fn func(store.Idempotency) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	return p.readTx(ctx, "idempotency keys", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT key, digest, workflow, seq, hash FROM handoff_idempotency WHERE tenant = $1 ORDER BY key`, []byte(tenant))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k store.Idempotency
			if err := rows.Scan((*bytesString)(&k.Key), (*bytesString)(&k.Digest), (*bytesString)(&k.Workflow), &k.Seq, &k.Hash); err != nil {
				return err
			}
			if err := fn(k); err != nil {
				return chain.CallbackError{Err: err}
			}
		}
		return rows.Err()
	})
}

// Tenants returns every tenant with at least one workflow, idempotency key or audit
// record, in order.
func (p *Log) Tenants(ctx context.Context) ([]string, error) {
	if err := p.begin(ctx); err != nil {
		return nil, err
	}
	defer p.end()
	var tenants []string
	err := p.readTx(ctx, "tenants", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT tenant FROM handoff_workflows UNION SELECT tenant FROM handoff_records
			UNION SELECT tenant FROM handoff_idempotency UNION SELECT tenant FROM handoff_audit_heads
			UNION SELECT tenant FROM handoff_audit ORDER BY 1`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t string
			if err := rows.Scan((*bytesString)(&t)); err != nil {
				return err
			}
			tenants = append(tenants, t)
		}
		return rows.Err()
	})
	return tenants, err
}

// Chains calls fn with every chain of the store, from one consistent view, tenant by
// tenant: the audit stream first, then the workflows in id order. A chain whose head
// row is gone while its records remain is listed with a zero Head.
func (p *Log) Chains(ctx context.Context, fn func(store.Chain) error) error {
	if err := p.begin(ctx); err != nil {
		return err
	}
	defer p.end()
	return p.readTx(ctx, "chains", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			SELECT tenant, ''::bytea AS workflow, true AS audit, seq, 0::bigint, hash, 0::bigint, ''::bytea FROM handoff_audit_heads
			UNION ALL
			SELECT DISTINCT a.tenant, ''::bytea, true, 0::bigint, 0::bigint, '', 0::bigint, ''::bytea FROM handoff_audit a
				WHERE NOT EXISTS (SELECT 1 FROM handoff_audit_heads h WHERE h.tenant = a.tenant)
			UNION ALL
			SELECT tenant, workflow, false, `+headColumns+` FROM handoff_workflows
			UNION ALL
			SELECT DISTINCT r.tenant, r.workflow, false, 0::bigint, 0::bigint, '', 0::bigint, ''::bytea FROM handoff_records r
				WHERE NOT EXISTS (SELECT 1 FROM handoff_workflows w WHERE w.workflow = r.workflow AND w.tenant = r.tenant)
			ORDER BY 1, 3 DESC, 2`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c store.Chain
			var h pgHead
			if err := rows.Scan(append([]any{(*bytesString)(&c.Tenant), (*bytesString)(&c.Workflow), &c.Audit}, h.targets()...)...); err != nil {
				return err
			}
			c.Head = h.head()
			if err := fn(c); err != nil {
				return chain.CallbackError{Err: err}
			}
		}
		return rows.Err()
	})
}
