package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// testVerifyDetectsTampering writes a five-record chain, changes the store behind its
// back (the Badger directory, or the PostgreSQL tables in SQL) and checks that Verify
// names the first broken record.
func testVerifyDetectsTampering(t *testing.T, bs []Backend) {
	const tenant, workflow = "acme", "wf-1"
	tests := []struct {
		name       string
		tamper     func(tm Tamperer)
		badgerOnly bool // a change only Badger's encoding allows
		brokenSeq  uint64
		problem    string // substring
		pgProblem  string // substring on PostgreSQL, when it words the problem otherwise
		records    uint64
	}{
		{
			name: "modified payload",
			tamper: func(tm Tamperer) {
				edit(tm, tenant, workflow, 3, func(r *chain.Record) { r.Payload = []byte(`{"n":999}`) })
			},
			brokenSeq: 3, problem: "hash mismatch", records: 2,
		},
		{
			name:      "modified type",
			tamper:    func(tm Tamperer) { edit(tm, tenant, workflow, 1, func(r *chain.Record) { r.Type = "allow" }) },
			brokenSeq: 1, problem: "hash mismatch", records: 0,
		},
		{
			name: "modified time",
			tamper: func(tm Tamperer) {
				edit(tm, tenant, workflow, 2, func(r *chain.Record) { r.Time = "2020-01-01T00:00:00Z" })
			},
			brokenSeq: 2, problem: "hash mismatch", records: 1,
		},
		{
			name:      "time not RFC 3339",
			tamper:    func(tm Tamperer) { edit(tm, tenant, workflow, 2, func(r *chain.Record) { r.Time = "yesterday" }) },
			brokenSeq: 2, problem: "record time is not RFC 3339", records: 1,
		},
		{
			name: "modified hash",
			tamper: func(tm Tamperer) {
				edit(tm, tenant, workflow, 4, func(r *chain.Record) { r.Hash = "sha256:" + strings.Repeat("0", 64) })
			},
			brokenSeq: 4, problem: "hash mismatch", records: 3,
		},
		{
			name: "payload changed and hash recomputed",
			tamper: func(tm Tamperer) {
				edit(tm, tenant, workflow, 2, func(r *chain.Record) {
					r.Payload = []byte(`{"n":999}`)
					chain.SealRecord(store.DomainRecord, tenant, workflow, r)
				})
			},
			brokenSeq: 3, problem: "prev_hash is not the hash of record 2", records: 2,
		},
		{
			name:      "deleted record",
			tamper:    func(tm Tamperer) { tm.Del(tenant, workflow, 2) },
			brokenSeq: 2, problem: "record 2 missing (next record is 3)", records: 1,
		},
		{
			name: "truncated tail",
			tamper: func(tm Tamperer) {
				tm.Del(tenant, workflow, 5)
				tm.Del(tenant, workflow, 4)
			},
			brokenSeq: 4, problem: "records 4 to 5 missing", records: 3,
		},
		{
			name:      "last record deleted",
			tamper:    func(tm Tamperer) { tm.Del(tenant, workflow, 5) },
			brokenSeq: 5, problem: "record 5 missing", records: 4,
		},
		{
			name: "truncated tail with the head rolled back",
			tamper: func(tm Tamperer) {
				// A forger who also rewinds the head to record 4 leaves
				// record 5 past the head.
				tm.SetHead(tenant, workflow, store.Head{Seq: 4, StateVersion: 1, Hash: tm.Get(tenant, workflow, 4).Hash})
			},
			brokenSeq: 5, problem: "record 5 is past the head", records: 5,
		},
		{
			name:      "record copied from another workflow",
			tamper:    func(tm Tamperer) { tm.Put(tenant, workflow, 3, tm.Get(tenant, "wf-other", 3)) },
			brokenSeq: 3, problem: "prev_hash", records: 2,
		},
		{
			name:      "record stored under another seq",
			tamper:    func(tm Tamperer) { tm.Put(tenant, workflow, 3, tm.Get(tenant, workflow, 2)) },
			brokenSeq: 3, problem: "record holds seq 2", pgProblem: "prev_hash is not the hash of record 2", records: 2,
		},
		{
			name:       "undecodable record",
			badgerOnly: true,
			tamper: func(tm Tamperer) {
				tm.(RawTamperer).PutRaw(tenant, workflow, 2, []byte("garbage"))
			},
			brokenSeq: 2, problem: "record undecodable", records: 1,
		},
		{
			name: "head hash changed",
			tamper: func(tm Tamperer) {
				tm.SetHead(tenant, workflow, store.Head{Seq: 5, StateVersion: 1, Hash: "sha256:00"})
			},
			brokenSeq: 5, problem: "head hash does not match record 5", records: 5,
		},
		{
			name:      "head deleted",
			tamper:    func(tm Tamperer) { tm.DelHead(tenant, workflow) },
			brokenSeq: 0, problem: "workflow head missing", records: 5,
		},
		{
			name: "head state version past its records",
			tamper: func(tm Tamperer) {
				tm.SetHead(tenant, workflow, store.Head{Seq: 5, StateVersion: 9, Hash: tm.Get(tenant, workflow, 5).Hash})
			},
			brokenSeq: 0, problem: "head state version 9 exceeds its 5 records", records: 5,
		},
		{
			name:       "workflow deleted",
			badgerOnly: true, // on PostgreSQL the owner is the head's row
			tamper: func(tm Tamperer) {
				for seq := uint64(1); seq <= 5; seq++ {
					tm.Del(tenant, workflow, seq)
				}
				tm.DelHead(tenant, workflow)
			},
			brokenSeq: 1, problem: "head and records missing", records: 0,
		},
		{
			name:      "owner index moved",
			tamper:    func(tm Tamperer) { tm.SetOwner(workflow, "intruder") },
			brokenSeq: 0, problem: `owner index names tenant "intruder"`, records: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eachDurableBackend(t, bs, func(t *testing.T, b Backend, l store.Log, where string) {
				if tt.badgerOnly && b.Postgres {
					return
				}
				ctx := context.Background()
				for _, wf := range []string{workflow, "wf-other"} {
					Create(t, l, tenant, wf, 5)
				}
				rep, err := l.Verify(ctx, tenant, workflow)
				require.NoError(t, err)
				require.Equal(t, store.VerifyReport{Tenant: tenant, Workflow: workflow, Records: 5, OK: true}, rep)

				l = tamperWith(t, b, l, where, tt.tamper)

				rep, err = l.Verify(ctx, tenant, workflow)
				require.NoError(t, err)
				assert.False(t, rep.OK, "tampering not detected")
				assert.Equal(t, tt.brokenSeq, rep.BrokenSeq, rep.Problem)
				problem := tt.problem
				if b.Postgres && tt.pgProblem != "" {
					problem = tt.pgProblem
				}
				assert.Contains(t, rep.Problem, problem)
				assert.Equal(t, tt.records, rep.Records)

				rep, err = l.Verify(ctx, tenant, "wf-other")
				require.NoError(t, err)
				assert.True(t, rep.OK, "the other workflow is intact: %s", rep.Problem)
			})
		})
	}
}

func testVerifyNotFound(t *testing.T, bs []Backend) {
	l := openFirst(t, bs)
	_, err := l.Verify(context.Background(), "acme", "nope")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func testVerifyLongChain(t *testing.T, bs []Backend) {
	l := openFirst(t, bs)
	ctx := context.Background()
	Create(t, l, "acme", "wf", 300)
	for v := uint64(1); v <= 100; v++ {
		// A logged block, then a state change at the same version.
		_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: v,
			Records: []store.NewRecord{Rec("a", int(v)), Rec("b", int(v))}, Time: T0})
		require.NoError(t, err)
		_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: v, BumpVersion: true,
			Records: []store.NewRecord{Rec("c", int(v))}, Time: T0})
		require.NoError(t, err)
	}
	rep, err := l.Verify(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)
	assert.Equal(t, uint64(300+100*3), rep.Records)
	_, head, err := l.State(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.Equal(t, uint64(101), head.StateVersion)
}
