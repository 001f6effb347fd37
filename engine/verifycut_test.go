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
	"github.com/handoff-dev/handoff/store/postgres"
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
	// setStanding names record seq, with tag, as the standing record in a head: seq,
	// version and hash are the head's.
	setStanding(tenant, workflow string, seq, version uint64, hash string, standingSeq uint64, tag string)
	forgetStanding(tenant, workflow string, seq, version uint64, hash string)
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
		_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
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

func (b badgerCutter) setStanding(tenant, workflow string, seq, version uint64, hash string, standingSeq uint64, tag string) {
	v := binary.BigEndian.AppendUint64([]byte{0x02}, seq)
	v = binary.BigEndian.AppendUint64(v, version)
	v = binary.BigEndian.AppendUint64(v, uint64(len(hash)))
	v = binary.BigEndian.AppendUint64(append(v, hash...), standingSeq)
	v = binary.BigEndian.AppendUint64(v, uint64(len(tag)))
	require.NoError(b.t, b.txn.Set([]byte(workflowKey(tenant, workflow)+"h"), append(v, tag...)))
}

func (b badgerCutter) forgetStanding(tenant, workflow string, seq, version uint64, hash string) {
	b.setHead(tenant, workflow, seq, version, hash)
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

func (p pgCutter) setStanding(tenant, workflow string, seq, version uint64, hash string, standingSeq uint64, tag string) {
	_, err := p.conn.Exec(context.Background(), `UPDATE handoff_workflows SET seq = $3, state_version = $4, hash = $5, standing_seq = $6, standing = $7 WHERE tenant = $1 AND workflow = $2`,
		[]byte(tenant), []byte(workflow), seq, version, hash, standingSeq, []byte(tag))
	require.NoError(p.t, err)
}

func (p pgCutter) forgetStanding(tenant, workflow string, seq, version uint64, hash string) {
	_, err := p.conn.Exec(context.Background(), `UPDATE handoff_workflows SET standing_seq = NULL, standing = NULL WHERE tenant = $1 AND workflow = $2`,
		[]byte(tenant), []byte(workflow))
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
			hist := startAndBlocks(t, e, 1)
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
				assert.True(t, strings.HasPrefix(rep.Problem, `idempotency: key "b-a" names record 2, past the head`), rep.Problem)
			}
			_, err = e.Submit(ctx, []byte(viewerCancel("b-a")))
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
			d, err := e.Submit(ctx, []byte(campaignStart))
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

// campaignStart starts wf-1 of acme on the campaign pack.
const campaignStart = `{"request_id": "s-1", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "brightbrew", "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}, "workflow_id": "wf-1"}`

// viewerCancel is a cancel of wf-1 by a person who may not cancel: a block that
// changes nothing.
func viewerCancel(requestID string) string {
	return `{"request_id": "` + requestID + `", "kind": "cancel", "tenant_id": "acme", "workflow_id": "wf-1", "organization_id": "acme-marketing", "trace_id": "trace-1", "actor": {"type": "human", "id": "maria", "roles": ["viewer"]}, "reason": "stop", "surplus": true}`
}

// startAndBlocks records a campaign start (allow) and n blocked cancels in wf-1 of acme
// and returns the log entries.
func startAndBlocks(t *testing.T, e *engine.Engine, n int) []engine.Entry {
	t.Helper()
	ctx := context.Background()
	_, err := e.Submit(ctx, []byte(campaignStart))
	require.NoError(t, err)
	for i := range n {
		d, err := e.Submit(ctx, []byte(viewerCancel("b-"+string(rune('a'+i)))))
		require.NoError(t, err)
		require.Equal(t, engine.Block, d.Outcome)
	}
	var hist []engine.Entry
	require.NoError(t, e.History(ctx, "acme", "wf-1", func(en engine.Entry) error { hist = append(hist, en); return nil }))
	return hist
}

// TestVerifyDetectsAForgedStandingDecision makes the head name a block, or another
// outcome, as the standing decision: the chain verifies, the fold does not agree.
func TestVerifyDetectsAForgedStandingDecision(t *testing.T) {
	ctx := context.Background()
	for _, forged := range []struct {
		name string
		seq  uint64
		tag  string
	}{{"a block", 2, "block"}, {"another outcome", 1, "await_human"}, {"none", 0, ""}} {
		for _, s := range storesUnderTest {
			t.Run(forged.name+"/"+s.name, func(t *testing.T) {
				opts, tamper := s.open(t)
				e, err := engine.Open(ctx, opts)
				require.NoError(t, err)
				hist := startAndBlocks(t, e, 2)
				require.NoError(t, e.Close())
				last := hist[len(hist)-1]
				tamper(t, func(tm cutter) {
					tm.setStanding("acme", "wf-1", last.Seq, last.Decision.StateVersion, last.Hash, forged.seq, forged.tag)
				})
				e, err = engine.Open(ctx, opts)
				require.NoError(t, err)
				defer e.Close()
				rep, err := e.Verify(ctx, "acme", "wf-1")
				require.NoError(t, err)
				assert.False(t, rep.OK)
				assert.Contains(t, rep.Problem, "as the standing decision, but the last decision that was not a block is record 1 (\"allow\")")
			})
		}
	}
}

// TestStandingOfAnEarlierVersion lists a workflow whose head an earlier version wrote,
// without its standing decision: the answer is read from the log once, then kept in the
// head.
func TestStandingOfAnEarlierVersion(t *testing.T) {
	ctx := context.Background()
	for _, s := range storesUnderTest {
		t.Run(s.name, func(t *testing.T) {
			opts, tamper := s.open(t)
			e, err := engine.Open(ctx, opts)
			require.NoError(t, err)
			hist := startAndBlocks(t, e, 3)
			require.NoError(t, e.Close())
			last := hist[len(hist)-1]
			tamper(t, func(tm cutter) { tm.forgetStanding("acme", "wf-1", last.Seq, last.Decision.StateVersion, last.Hash) })
			e, err = engine.Open(ctx, opts)
			require.NoError(t, err)
			defer e.Close()
			var heads []store.Head
			require.NoError(t, e.Workflows(ctx, "acme", func(_ string, h store.Head) error { heads = append(heads, h); return nil }))
			require.True(t, heads[0].StandingUnknown)
			rep, err := e.Verify(ctx, "acme", "wf-1")
			require.NoError(t, err)
			assert.True(t, rep.OK, "an earlier version's head is not tampering: %s", rep.Problem)

			list, err := e.ListWorkflows(ctx, "acme", engine.WorkflowFilter{})
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, engine.Allow, list[0].Standing)
			heads = nil
			require.NoError(t, e.Workflows(ctx, "acme", func(_ string, h store.Head) error { heads = append(heads, h); return nil }))
			assert.Equal(t, store.Head{Seq: last.Seq, StateVersion: last.Decision.StateVersion, Hash: last.Hash, StandingSeq: 1, Standing: "allow"}, heads[0])
			d, err := e.Standing(ctx, "acme", "wf-1")
			require.NoError(t, err)
			assert.Equal(t, hist[0].Decision.DecisionID, d.DecisionID)
			rep, err = e.Verify(ctx, "acme", "wf-1")
			require.NoError(t, err)
			assert.True(t, rep.OK, rep.Problem)
		})
	}
}
