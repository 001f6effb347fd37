package engine_test

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
)

// storeUnderTest is a store the engine tests open on either backend, and change behind
// the engine's back as someone with access to its files or its database would.
type storeUnderTest struct {
	name string
	open func(t *testing.T) (engine.Options, func(t *testing.T, fn func(tm cutter)))
}

// cutter makes the two edits of a cut chain: a record deleted, the head rewritten.
type cutter interface {
	delRecord(tenant, workflow string, seq uint64)
	setHead(tenant, workflow string, seq, version uint64, hash string)
	delID(id string)
}

var storesUnderTest = []storeUnderTest{
	{"badger", func(t *testing.T) (engine.Options, func(*testing.T, func(cutter))) {
		dir := t.TempDir()
		return engine.Options{Dir: dir, LazyPolicies: true}, func(t *testing.T, fn func(cutter)) {
			db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
			require.NoError(t, err)
			defer db.Close()
			require.NoError(t, db.Update(func(txn *badger.Txn) error {
				fn(badgerCutter{t, txn})
				return nil
			}))
		}
	}},
	{"postgres", func(t *testing.T) (engine.Options, func(*testing.T, func(cutter))) {
		u := pgtest.URL(t)
		_, err := store.Migrate(context.Background(), store.Options{URL: u})
		require.NoError(t, err)
		return engine.Options{StoreURL: u, LazyPolicies: true}, func(t *testing.T, fn func(cutter)) {
			conn, err := pgx.Connect(context.Background(), u)
			require.NoError(t, err)
			defer conn.Close(context.Background())
			fn(pgCutter{t, conn})
		}
	}},
}

type badgerCutter struct {
	t   *testing.T
	txn *badger.Txn
}

func workflowKey(tenant, workflow string) string {
	return "t/" + tenant + "\x00\x01w/" + workflow + "\x00\x01"
}

func (b badgerCutter) delRecord(tenant, workflow string, seq uint64) {
	k := binary.BigEndian.AppendUint64([]byte(workflowKey(tenant, workflow)+"e/"), seq)
	require.NoError(b.t, b.txn.Delete(k))
}

// setHead writes the head as the earliest format does (store/record.go): seq, state
// version and hash.
func (b badgerCutter) setHead(tenant, workflow string, seq, version uint64, hash string) {
	v := binary.BigEndian.AppendUint64([]byte{0x01}, seq)
	v = binary.BigEndian.AppendUint64(v, version)
	v = binary.BigEndian.AppendUint64(v, uint64(len(hash)))
	require.NoError(b.t, b.txn.Set([]byte(workflowKey(tenant, workflow)+"h"), append(v, hash...)))
}

func (b badgerCutter) delID(id string) {
	require.NoError(b.t, b.txn.Delete([]byte("x/"+id+"\x00\x01")))
}

type pgCutter struct {
	t    *testing.T
	conn *pgx.Conn
}

func (p pgCutter) delRecord(tenant, workflow string, seq uint64) {
	_, err := p.conn.Exec(context.Background(), `DELETE FROM handoff_records WHERE tenant = $1 AND workflow = $2 AND seq = $3`, []byte(tenant), []byte(workflow), seq)
	require.NoError(p.t, err)
}

func (p pgCutter) setHead(tenant, workflow string, seq, version uint64, hash string) {
	_, err := p.conn.Exec(context.Background(), `UPDATE handoff_workflows SET seq = $3, state_version = $4, hash = $5 WHERE tenant = $1 AND workflow = $2`,
		[]byte(tenant), []byte(workflow), seq, version, hash)
	require.NoError(p.t, err)
}

func (p pgCutter) delID(id string) {
	_, err := p.conn.Exec(context.Background(), `DELETE FROM handoff_record_ids WHERE id = $1`, []byte(id))
	require.NoError(p.t, err)
}

// TestVerifyDetectsACutChain deletes the last record of a workflow, a block that changed
// nothing, and sets the head back one step: the chain, the snapshot and the fold all
// agree, but the idempotency key and the decision id of the deleted request still name
// the missing record. Verify reports it, through every entry point, on both backends.
func TestVerifyDetectsACutChain(t *testing.T) {
	ctx := context.Background()
	for _, s := range storesUnderTest {
		t.Run(s.name, func(t *testing.T) {
			opts, tamper := s.open(t)
			e, err := engine.Open(ctx, opts)
			require.NoError(t, err)
			start := `{"request_id": "s-1", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-1"}`
			blocked := `{"request_id": "b-1", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-1", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`
			_, err = e.Submit(ctx, []byte(start))
			require.NoError(t, err)
			d, err := e.Submit(ctx, []byte(blocked))
			require.NoError(t, err)
			require.Equal(t, engine.Block, d.Outcome)
			var hist []engine.Entry
			require.NoError(t, e.History(ctx, "acme", "wf-1", func(en engine.Entry) error { hist = append(hist, en); return nil }))
			require.Len(t, hist, 2)
			rep, err := e.Verify(ctx, "acme", "wf-1")
			require.NoError(t, err)
			require.True(t, rep.OK, rep.Problem)
			require.NoError(t, e.Close())

			tamper(t, func(tm cutter) {
				tm.delRecord("acme", "wf-1", 2)
				tm.setHead("acme", "wf-1", 1, hist[0].Decision.StateVersion, hist[0].Hash)
			})

			e, err = engine.Open(ctx, opts)
			require.NoError(t, err)
			defer e.Close()
			one, err := e.Verify(ctx, "acme", "wf-1")
			require.NoError(t, err)
			tenant, err := e.VerifyTenant(ctx, "acme")
			require.NoError(t, err)
			all, err := e.VerifyAll(ctx)
			require.NoError(t, err)
			for _, reps := range [][]store.VerifyReport{{one}, tenant, all} {
				rep := brokenReport(t, reps, "wf-1")
				assert.Equal(t, uint64(2), rep.BrokenSeq)
				assert.True(t, strings.HasPrefix(rep.Problem, `idempotency: key "b-1" names record 2, past the head`), rep.Problem)
			}
			_, err = e.Submit(ctx, []byte(blocked))
			require.ErrorIs(t, err, store.ErrTampered, "the engine itself notices on resend")
		})
	}
}

// TestVerifyDetectsAnUnindexedDecision deletes the record index entry of a decision:
// Explain would not find it, and verify says so.
func TestVerifyDetectsAnUnindexedDecision(t *testing.T) {
	ctx := context.Background()
	for _, s := range storesUnderTest {
		t.Run(s.name, func(t *testing.T) {
			opts, tamper := s.open(t)
			e, err := engine.Open(ctx, opts)
			require.NoError(t, err)
			d, err := e.Submit(ctx, []byte(`{"request_id": "s-1", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-1"}`))
			require.NoError(t, err)
			require.NoError(t, e.Close())
			tamper(t, func(tm cutter) { tm.delID(d.DecisionID) })
			e, err = engine.Open(ctx, opts)
			require.NoError(t, err)
			defer e.Close()
			_, err = e.Decision(ctx, d.DecisionID)
			require.ErrorIs(t, err, engine.ErrDecisionNotFound)
			rep, err := e.Verify(ctx, "acme", "wf-1")
			require.NoError(t, err)
			assert.False(t, rep.OK)
			assert.Equal(t, "index: decision "+d.DecisionID+" of record 1 is not in the record index", rep.Problem)
		})
	}
}
