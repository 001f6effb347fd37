package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

func pgxConnect(url string) (*pgx.Conn, error) { return pgx.Connect(context.Background(), url) }

// pgTamperer changes a PostgreSQL store with plain SQL, as anyone with write access to
// its database could.
type pgTamperer struct {
	t    *testing.T
	conn *pgx.Conn
}

func (p pgTamperer) exec(sql string, args ...any) {
	_, err := p.conn.Exec(context.Background(), sql, args...)
	require.NoError(p.t, err, sql)
}

func (p pgTamperer) Get(tenant, workflow string, seq uint64) chain.Record {
	r, found, err := pgReader(context.Background(), p.conn)(tenant, workflow, seq)
	require.NoError(p.t, err)
	require.True(p.t, found)
	return r
}

func (p pgTamperer) Put(tenant, workflow string, seq uint64, r chain.Record) {
	p.Del(tenant, workflow, seq)
	if workflow == "" {
		p.exec(`INSERT INTO handoff_audit (tenant, seq, time, type, payload, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			[]byte(tenant), r.Seq, r.Time, []byte(r.Type), r.Payload, r.PrevHash, r.Hash)
		return
	}
	// The seq column is the record's: a record moved to another seq shows its own.
	p.exec(`INSERT INTO handoff_records (tenant, workflow, seq, time, type, payload, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		[]byte(tenant), []byte(workflow), seq, r.Time, []byte(r.Type), r.Payload, r.PrevHash, r.Hash)
}

func (p pgTamperer) Del(tenant, workflow string, seq uint64) {
	if workflow == "" {
		p.exec(`DELETE FROM handoff_audit WHERE tenant = $1 AND seq = $2`, []byte(tenant), seq)
		return
	}
	p.exec(`DELETE FROM handoff_records WHERE tenant = $1 AND workflow = $2 AND seq = $3`, []byte(tenant), []byte(workflow), seq)
}

func (p pgTamperer) SetHead(tenant, workflow string, h store.Head) {
	if workflow == "" {
		p.exec(`UPDATE handoff_audit_heads SET seq = $2, hash = $3 WHERE tenant = $1`, []byte(tenant), h.Seq, h.Hash)
		return
	}
	standingSeq, standing := standingColumns(h)
	p.exec(`UPDATE handoff_workflows SET seq = $3, state_version = $4, hash = $5, standing_seq = $6, standing = $7 WHERE tenant = $1 AND workflow = $2`,
		[]byte(tenant), []byte(workflow), h.Seq, h.StateVersion, h.Hash, standingSeq, standing)
}

func (p pgTamperer) DelHead(tenant, workflow string) {
	if workflow == "" {
		p.exec(`DELETE FROM handoff_audit_heads WHERE tenant = $1`, []byte(tenant))
		return
	}
	p.exec(`DELETE FROM handoff_workflows WHERE tenant = $1 AND workflow = $2`, []byte(tenant), []byte(workflow))
}

func (p pgTamperer) SetOwner(workflow, tenant string) {
	p.exec(`UPDATE handoff_workflows SET tenant = $2 WHERE workflow = $1`, []byte(workflow), []byte(tenant))
}

func (p pgTamperer) SetKey(tenant, key string, e chain.IdemEntry) {
	p.DelKey(tenant, key)
	p.exec(`INSERT INTO handoff_idempotency (tenant, key, digest, workflow, seq, hash) VALUES ($1, $2, $3, $4, $5, $6)`,
		[]byte(tenant), []byte(key), []byte(e.Digest), []byte(e.Workflow), e.Seq, e.Hash)
}

func (p pgTamperer) DelKey(tenant, key string) {
	p.exec(`DELETE FROM handoff_idempotency WHERE tenant = $1 AND key = $2`, []byte(tenant), []byte(key))
}

func (p pgTamperer) SetID(id string, loc store.Location) {
	p.DelID(id)
	p.exec(`INSERT INTO handoff_record_ids (id, tenant, workflow, seq, hash) VALUES ($1, $2, $3, $4, $5)`,
		[]byte(id), []byte(loc.Tenant), []byte(loc.Workflow), loc.Seq, loc.Hash)
}

func (p pgTamperer) DelID(id string) {
	p.exec(`DELETE FROM handoff_record_ids WHERE id = $1`, []byte(id))
}
