package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

func testAuditStream(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	rep, err := l.VerifyAudit(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, store.VerifyReport{Tenant: "acme", OK: true}, rep, "an empty stream is intact")
	assert.Empty(t, AuditRecords(t, l, "acme"))

	var made []store.Record
	for i := range 3 {
		r, err := l.Audit(ctx, "acme", Rec("rejected", i), T0)
		require.NoError(t, err)
		made = append(made, r)
	}
	_, err = l.Audit(ctx, "other", Rec("rejected", 9), T0)
	require.NoError(t, err)
	_, err = l.Audit(ctx, "", store.NewRecord{Type: "undecodable", Payload: []byte(`{"raw":"AAEC"}`)}, T0)
	require.NoError(t, err, "requests without a tenant are audited under \"\"")

	got := AuditRecords(t, l, "acme")
	assert.Equal(t, made, got)
	prev := ""
	for i, r := range got {
		assert.Equal(t, uint64(i+1), r.Seq)
		assert.Equal(t, prev, r.PrevHash)
		assert.Equal(t, "rejected", r.Type)
		assert.True(t, r.Time.Equal(T0))
		prev = r.Hash
	}
	other := AuditRecords(t, l, "other")
	require.Len(t, other, 1)
	assert.Equal(t, uint64(1), other[0].Seq)
	assert.Empty(t, other[0].PrevHash)

	for _, tenant := range []string{"acme", "other", ""} {
		rep, err := l.VerifyAudit(ctx, tenant)
		require.NoError(t, err)
		assert.True(t, rep.OK, "%q: %s", tenant, rep.Problem)
	}
	rep, err = l.VerifyAudit(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, uint64(3), rep.Records)

	// The audit stream is not a workflow.
	require.NoError(t, l.Workflows(ctx, "acme", func(wf string, _ store.Head) error {
		t.Errorf("audit shows up as workflow %q", wf)
		return nil
	}))
	tenants, err := l.Tenants(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"", "acme", "other"}, tenants)
}

func testAuditConcurrent(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := l.Audit(ctx, "acme", Rec("rejected", i), T0)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	rep, err := l.VerifyAudit(ctx, "acme")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)
	assert.Equal(t, uint64(n), rep.Records)
}

func testVerifyAuditDetectsTampering(t *testing.T, bs []Backend) {
	tests := []struct {
		name      string
		tamper    func(tm Tamperer)
		brokenSeq uint64
		problem   string
	}{
		{
			name:      "modified payload",
			tamper:    func(tm Tamperer) { edit(tm, "acme", "", 2, func(r *chain.Record) { r.Payload = []byte(`{}`) }) },
			brokenSeq: 2, problem: "hash mismatch",
		},
		{
			name:      "deleted record",
			tamper:    func(tm Tamperer) { tm.Del("acme", "", 1) },
			brokenSeq: 1, problem: "record 1 missing",
		},
		{
			name:      "truncated tail",
			tamper:    func(tm Tamperer) { tm.Del("acme", "", 3) },
			brokenSeq: 3, problem: "record 3 missing",
		},
		{
			name: "workflow hash reused",
			tamper: func(tm Tamperer) {
				// A record sealed as a workflow record does not pass as
				// an audit record.
				edit(tm, "acme", "", 3, func(r *chain.Record) { chain.SealRecord(store.DomainRecord, "acme", "", r) })
			},
			brokenSeq: 3, problem: "hash mismatch",
		},
		{
			name:      "head deleted",
			tamper:    func(tm Tamperer) { tm.DelHead("acme", "") },
			brokenSeq: 0, problem: "audit head missing",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eachDurableBackend(t, bs, func(t *testing.T, b Backend, l store.Log, where string) {
				ctx := context.Background()
				for i := range 3 {
					_, err := l.Audit(ctx, "acme", Rec("rejected", i), T0)
					require.NoError(t, err)
				}
				l = tamperWith(t, b, l, where, tt.tamper)
				rep, err := l.VerifyAudit(ctx, "acme")
				require.NoError(t, err)
				assert.False(t, rep.OK)
				assert.Equal(t, tt.brokenSeq, rep.BrokenSeq, rep.Problem)
				assert.Contains(t, rep.Problem, tt.problem)
			})
		})
	}
}

// AuditRecords collects the audit records of tenant.
func AuditRecords(t *testing.T, l store.Log, tenant string) []store.Record {
	t.Helper()
	var out []store.Record
	require.NoError(t, l.AuditRecords(context.Background(), tenant, 0, func(r store.Record) error {
		out = append(out, r)
		return nil
	}))
	return out
}

func testAuditInvalid(t *testing.T, bs []Backend) {
	l := openFirst(t, bs)
	ctx := context.Background()
	_, err := l.Audit(ctx, "a", store.NewRecord{Type: "x", Payload: []byte("not json")}, T0)
	require.ErrorIs(t, err, store.ErrInvalid)
	_, err = l.Audit(ctx, "a", store.NewRecord{Payload: []byte(`{}`)}, T0)
	require.ErrorIs(t, err, store.ErrInvalid)
	assert.Empty(t, AuditRecords(t, l, "a"))
}

func testAuditHeadIsTheLastAuditRecord(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	head, err := l.AuditHead(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, store.Head{}, head, "an empty stream")
	for i := range 4 {
		_, err := l.Audit(ctx, "acme", Rec("rejected", i), T0)
		require.NoError(t, err)
		got := AuditRecords(t, l, "acme")
		last := got[len(got)-1]
		head, err := l.AuditHead(ctx, "acme")
		require.NoError(t, err)
		assert.Equal(t, store.Head{Seq: last.Seq, Hash: last.Hash}, head)
	}
	head, err = l.AuditHead(ctx, "other")
	require.NoError(t, err)
	assert.Equal(t, store.Head{}, head, "another tenant's stream is its own")
}

func testAuditRecordsFromASeq(t *testing.T, bs []Backend) {
	l := openFirst(t, bs)
	ctx := context.Background()
	for i := range 5 {
		_, err := l.Audit(ctx, "acme", Rec("rejected", i), T0)
		require.NoError(t, err)
	}
	all := AuditRecords(t, l, "acme")
	for _, tc := range []struct {
		from uint64
		want []store.Record
	}{
		{0, all},
		{1, all},
		{3, all[2:]},
		{5, all[4:]},
		{6, nil},
	} {
		var got []store.Record
		require.NoError(t, l.AuditRecords(ctx, "acme", tc.from, func(r store.Record) error {
			got = append(got, r)
			return nil
		}))
		assert.Equal(t, tc.want, got, "from %d", tc.from)
	}
}
