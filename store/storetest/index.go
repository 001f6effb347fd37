package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

func testFindLocatesIndexedRecords(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	h1, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", Create: true, BumpVersion: true, Time: T0,
		Records: []store.NewRecord{IDRec("decision", "d-1"), Rec("note", 1), IDRec("decision", "d-2")}})
	require.NoError(t, err)
	got := Records(t, l, "acme", "wf-1", 1)
	a1, err := l.Audit(ctx, "acme", IDRec("security", "d-3"), T0)
	require.NoError(t, err)
	a2, err := l.Audit(ctx, "", IDRec("security", "d-4"), T0)
	require.NoError(t, err)
	_, err = l.Audit(ctx, "acme", Rec("security", 9), T0)
	require.NoError(t, err, "an audit record without an id")

	for _, tc := range []struct {
		id   string
		want store.Location
	}{
		{"d-1", store.Location{Tenant: "acme", Workflow: "wf-1", Seq: 1, Hash: got[0].Hash}},
		{"d-2", store.Location{Tenant: "acme", Workflow: "wf-1", Seq: 3, Hash: h1.Hash}},
		{"d-3", store.Location{Tenant: "acme", Seq: 1, Hash: a1.Hash}},
		{"d-4", store.Location{Tenant: "", Seq: 1, Hash: a2.Hash}},
	} {
		loc, err := l.Find(ctx, tc.id)
		require.NoError(t, err, tc.id)
		assert.Equal(t, tc.want, loc, tc.id)
		assert.Equal(t, tc.want.Workflow == "", loc.Audit(), tc.id)
	}
	for _, id := range []string{"d-5", "d", "d-1\x00", ""} {
		_, err := l.Find(ctx, id)
		assert.ErrorIs(t, err, store.ErrNotFound, "%q", id)
		assert.EqualError(t, err, fmt.Sprintf("store: no record with id %q", id))
	}
}

func testADuplicateIDIsRefused(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	h, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", Create: true, BumpVersion: true, Time: T0,
		Records: []store.NewRecord{IDRec("decision", "d-1")}})
	require.NoError(t, err)
	a, err := l.Audit(ctx, "acme", IDRec("security", "d-2"), T0)
	require.NoError(t, err)
	first := store.Location{Tenant: "acme", Workflow: "wf-1", Seq: 1, Hash: h.Hash}
	audited := store.Location{Tenant: "acme", Seq: 1, Hash: a.Hash}

	for _, tc := range []struct {
		name     string
		write    func() error
		id       string
		existing store.Location
	}{
		{"the same workflow", func() error {
			_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, BumpVersion: true, Time: T0,
				Records: []store.NewRecord{IDRec("decision", "d-1")}})
			return err
		}, "d-1", first},
		{"a new workflow of another tenant", func() error {
			_, err := l.Append(ctx, store.Append{Tenant: "other", Workflow: "wf-2", Create: true, Time: T0,
				Records: []store.NewRecord{IDRec("decision", "d-1")}, IdempotencyKey: "req-1", RequestDigest: "x"})
			return err
		}, "d-1", first},
		{"an audit record naming a workflow record's id", func() error {
			_, err := l.Audit(ctx, "other", IDRec("security", "d-1"), T0)
			return err
		}, "d-1", first},
		{"a workflow record naming an audit record's id", func() error {
			_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, Time: T0,
				Records: []store.NewRecord{IDRec("decision", "d-2")}})
			return err
		}, "d-2", audited},
		{"two records of one append", func() error {
			_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, Time: T0,
				Records: []store.NewRecord{IDRec("decision", "d-9"), IDRec("decision", "d-9")}})
			return err
		}, "d-9", store.Location{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.write()
			require.ErrorIs(t, err, store.ErrDuplicateID)
			var de *store.DuplicateIDError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tc.id, de.ID)
			assert.Equal(t, tc.existing, de.Existing)
			assert.Equal(t, fmt.Sprintf("store: record id already indexed: %q", tc.id), err.Error())

			// Nothing was written.
			_, head, err := l.State(ctx, "acme", "wf-1")
			require.NoError(t, err)
			assert.Equal(t, h, head)
			auditHead, err := l.AuditHead(ctx, "acme")
			require.NoError(t, err)
			assert.Equal(t, store.Head{Seq: a.Seq, Hash: a.Hash}, auditHead)
			_, _, err = l.State(ctx, "other", "wf-2")
			assert.ErrorIs(t, err, store.ErrNotFound)
			_, owned, err := l.Owner(ctx, "wf-2")
			require.NoError(t, err)
			assert.False(t, owned)
			_, _, found, err := l.Idempotent(ctx, "other", "req-1")
			require.NoError(t, err)
			assert.False(t, found)
			_, err = l.Find(ctx, "d-9")
			assert.ErrorIs(t, err, store.ErrNotFound)
			tenants, err := l.Tenants(ctx)
			require.NoError(t, err)
			assert.Equal(t, []string{"acme"}, tenants)
		})
	}
}

// testConcurrentAppendsOfOneID races writers that carry the same id to different
// chains: exactly one is indexed, the others are refused and write nothing.
func testConcurrentAppendsOfOneID(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			var err error
			if i%4 == 0 {
				_, err = l.Audit(ctx, "acme", IDRec("security", "d-1"), T0)
			} else {
				_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: fmt.Sprintf("wf-%d", i), Create: true, Time: T0,
					Records: []store.NewRecord{IDRec("decision", "d-1")}})
			}
			errs <- err
		}()
	}
	won := 0
	for range n {
		if err := <-errs; err == nil {
			won++
		} else {
			require.ErrorIs(t, err, store.ErrDuplicateID)
		}
	}
	assert.Equal(t, 1, won)
	loc, err := l.Find(ctx, "d-1")
	require.NoError(t, err)
	assert.Len(t, Chains(t, l), 1, "the losers created nothing")
	assert.Equal(t, uint64(1), loc.Seq)
}

// testVerifyIndexes cuts the last record of a chain and sets its head back one step,
// which leaves a chain that verifies: the idempotency key and the record id of the cut
// record still name it, and VerifyIndexes says so. It also rebinds keys and ids to
// other records, on both backends. The check of the broken workflow alone finds the same;
// the check of another workflow finds nothing.
func testVerifyIndexes(t *testing.T, bs []Backend) {
	cut := func(rs []store.Record) func(tm Tamperer) {
		return func(tm Tamperer) {
			tm.Del("acme", "wf", 3)
			tm.SetHead("acme", "wf", store.Head{Seq: 2, StateVersion: 2, Hash: rs[1].Hash})
		}
	}
	for _, tc := range []struct {
		name    string
		tamper  func(rs []store.Record) func(tm Tamperer)
		claims  bool   // the check reads the records' claims
		seq     uint64 // the broken seq reported
		problem string
		chain   string // the chain reported, when not wf
	}{
		{name: "last record cut, head set back", tamper: cut, seq: 3,
			problem: `idempotency: key "req-wf-3" names record 3, past the head of workflow "wf" (record 2)`},
		{name: "last record cut, head set back, key deleted", seq: 3,
			tamper: func(rs []store.Record) func(tm Tamperer) {
				return func(tm Tamperer) { cut(rs)(tm); tm.DelKey("acme", "req-wf-3") }
			},
			problem: `index: id "d-wf-3" names record 3, past the head of its chain (record 2)`},
		{name: "key bound to the record of another request", claims: true, seq: 2,
			tamper: func(rs []store.Record) func(tm Tamperer) {
				return func(tm Tamperer) {
					tm.SetKey("acme", "req-wf-3", chain.IdemEntry{Digest: "sha256:3", Workflow: "wf", Seq: 2, Hash: rs[1].Hash})
				}
			},
			problem: `idempotency: key "req-wf-3" is bound to record 2 of workflow "wf", which answers request "req-wf-2"`},
		{name: "key digest rewritten", claims: true, seq: 3,
			tamper: func(rs []store.Record) func(tm Tamperer) {
				return func(tm Tamperer) {
					tm.SetKey("acme", "req-wf-3", chain.IdemEntry{Digest: "sha256:forged", Workflow: "wf", Seq: 3, Hash: rs[2].Hash})
				}
			},
			problem: `idempotency: key "req-wf-3" holds digest sha256:forged, but record 3 of workflow "wf" answers a request with digest sha256:3`},
		{name: "key bound to a record whose hash differs", seq: 3,
			tamper: func(rs []store.Record) func(tm Tamperer) {
				return func(tm Tamperer) {
					tm.SetKey("acme", "req-wf-3", chain.IdemEntry{Digest: "sha256:3", Workflow: "wf", Seq: 3, Hash: rs[1].Hash})
				}
			},
			problem: `idempotency: key "req-wf-3" names record 3 of workflow "wf", whose hash differs`},
		{name: "key naming a workflow the tenant does not have", chain: "ghost",
			tamper: func(rs []store.Record) func(tm Tamperer) {
				return func(tm Tamperer) {
					tm.SetKey("acme", "req-ghost", chain.IdemEntry{Digest: "sha256:1", Workflow: "ghost", Seq: 1, Hash: rs[0].Hash})
				}
			},
			problem: `idempotency: key "req-ghost" names workflow "ghost", which tenant "acme" does not have`},
		{name: "id naming another record", claims: true, seq: 2,
			tamper: func(rs []store.Record) func(tm Tamperer) {
				return func(tm Tamperer) {
					tm.SetID("d-wf-3", store.Location{Tenant: "acme", Workflow: "wf", Seq: 2, Hash: rs[1].Hash})
				}
			},
			problem: `index: id "d-wf-3" names record 2, which holds id "d-wf-2"`},
		{name: "id naming a record whose hash differs", seq: 3,
			tamper: func(rs []store.Record) func(tm Tamperer) {
				return func(tm Tamperer) {
					tm.SetID("d-wf-3", store.Location{Tenant: "acme", Workflow: "wf", Seq: 3, Hash: rs[1].Hash})
				}
			},
			problem: `index: id "d-wf-3" names record 3 of workflow "wf" of tenant "acme", whose hash differs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDurableBackend(t, bs, func(t *testing.T, b Backend, l store.Log, where string) {
				ctx := context.Background()
				rs := Answered(t, l, "wf", 3)
				Answered(t, l, "other", 2)
				check := store.IndexCheck{Tenant: "acme"}
				if tc.claims {
					check.Claims = ClaimsOf
				}
				reps, err := l.VerifyIndexes(ctx, store.IndexCheck{Tenant: "acme", Claims: ClaimsOf})
				require.NoError(t, err)
				require.Empty(t, reps, "an untouched store")

				l = tamperWith(t, b, l, where, tc.tamper(rs))
				rep, err := l.Verify(ctx, "acme", "wf")
				require.NoError(t, err)
				require.True(t, rep.OK, "the chain alone still verifies: %s", rep.Problem)
				chain := tc.chain
				if chain == "" {
					chain = "wf"
				}
				want := []store.VerifyReport{{Tenant: "acme", Workflow: chain, BrokenSeq: tc.seq, Problem: tc.problem}}
				for _, c := range []store.IndexCheck{check, {All: true, Claims: check.Claims}, {Tenant: "acme", Workflow: chain, Claims: check.Claims}} {
					reps, err = l.VerifyIndexes(ctx, c)
					require.NoError(t, err)
					assert.Equal(t, want, reps, "%+v", c)
				}
				reps, err = l.VerifyIndexes(ctx, store.IndexCheck{Tenant: "acme", Workflow: "other", Claims: ClaimsOf})
				require.NoError(t, err)
				assert.Empty(t, reps, "the check of another workflow reads none of the keys and ids of this one")
				reps, err = l.VerifyIndexes(ctx, store.IndexCheck{Tenant: "someone else", Claims: ClaimsOf})
				require.NoError(t, err)
				assert.Empty(t, reps, "another tenant's check sees nothing of acme's")
			})
		})
	}
}

// ClaimsOf reads the claims Answered puts in a payload.
func ClaimsOf(payload []byte) store.Claims {
	var c struct{ Key, Digest, ID string }
	_ = json.Unmarshal(payload, &c)
	return store.Claims{Key: c.Key, Digest: c.Digest, ID: c.ID}
}

// Answered appends n records to workflow wf of acme, one append each as decisions are:
// record i answers request req-wf-i (its idempotency key, digest sha256:i) and has id
// d-wf-i. It returns the records.
func Answered(t *testing.T, l store.Log, wf string, n int) []store.Record {
	t.Helper()
	for i := 1; i <= n; i++ {
		key, id := fmt.Sprintf("req-%s-%d", wf, i), fmt.Sprintf("d-%s-%d", wf, i)
		digest := fmt.Sprintf("sha256:%d", i)
		_, err := l.Append(context.Background(), store.Append{Tenant: "acme", Workflow: wf, Create: i == 1, ExpectedVersion: uint64(i - 1), BumpVersion: true, Time: T0,
			Records:        []store.NewRecord{{Type: "decision", ID: id, Payload: fmt.Appendf(nil, `{"key":%q,"digest":%q,"id":%q}`, key, digest, id)}},
			IdempotencyKey: key, RequestDigest: digest})
		require.NoError(t, err)
	}
	return Records(t, l, "acme", wf, 1)
}

// IDRec is a record named id, whose payload carries the id too (as the engine's do).
func IDRec(typ, id string) store.NewRecord {
	return store.NewRecord{Type: typ, Payload: fmt.Appendf(nil, `{"id":%q}`, id), ID: id}
}

// PayloadID reads the id idRec puts in a payload.
func PayloadID(payload []byte) string {
	var v struct{ ID string }
	_ = json.Unmarshal(payload, &v)
	return v.ID
}
