package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// testStandingRecordKeptWithTheHead appends decisions that name a standing record and
// blocks that do not: the head names the last one named, whatever came after it, in
// every read that returns a head.
func testStandingRecordKeptWithTheHead(ctx context.Context, t *testing.T, b Backend, l store.Log) {
	h := Decide(t, l, "wf", 0, "allow")
	assert.Equal(t, store.Head{Seq: 1, StateVersion: 1, Hash: h.Hash, StandingSeq: 1, Standing: "allow"}, h)
	for range 3 {
		h = Decide(t, l, "wf", 1, "")
	}
	assert.Equal(t, uint64(1), h.StandingSeq, "blocks leave the standing record where it was")
	assert.Equal(t, "allow", h.Standing)
	h, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: 1, Standing: "await_human", Time: T0,
		Records: []store.NewRecord{Rec("request", 5), Rec("decision", 6)}})
	require.NoError(t, err)
	assert.Equal(t, store.Head{Seq: 6, StateVersion: 1, Hash: h.Hash, StandingSeq: 6, Standing: "await_human"}, h, "the last record of the append")

	_, got, err := l.State(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.Equal(t, h, got)
	require.NoError(t, l.Workflows(ctx, "acme", func(_ string, got store.Head) error { assert.Equal(t, h, got); return nil }))
	require.NoError(t, l.Chains(ctx, func(c store.Chain) error { assert.Equal(t, h, c.Head); return nil }))

	blocked := Decide(t, l, "only-blocks", 0, "")
	assert.Equal(t, store.Head{Seq: 1, StateVersion: 1, Hash: blocked.Hash}, blocked, "no standing record yet, and that is known")
	rep, err := l.Verify(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)
}

// testStandingRecordOfAnEarlierVersion writes a head as an earlier version did, without
// its standing record: it reads as unknown, blocks keep it unknown, and SetStanding fills
// it in once, only at the head it was computed for.
func testStandingRecordOfAnEarlierVersion(t *testing.T, bs []Backend) {
	eachDurableBackend(t, bs, func(t *testing.T, b Backend, l store.Log, where string) {
		ctx := context.Background()
		h := Decide(t, l, "wf", 0, "allow")
		last := Decide(t, l, "wf", 1, "")
		l = tamperWith(t, b, l, where, func(tm Tamperer) {
			tm.SetHead("acme", "wf", store.Head{Seq: 2, StateVersion: 1, Hash: last.Hash, StandingUnknown: true})
		})
		_, cur, err := l.State(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.True(t, cur.StandingUnknown)
		rep, err := l.Verify(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.True(t, rep.OK, rep.Problem)

		cur = Decide(t, l, "wf", 1, "")
		assert.True(t, cur.StandingUnknown, "a block keeps it unknown")
		stale := cur
		stale.Seq, stale.StandingUnknown, stale.StandingSeq, stale.Standing = 2, false, 1, "allow"
		require.NoError(t, l.SetStanding(ctx, "acme", "wf", stale))
		_, got, err := l.State(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.True(t, got.StandingUnknown, "not filled in for a head that has moved on")

		fill := cur
		fill.StandingUnknown, fill.StandingSeq, fill.Standing = false, h.StandingSeq, "allow"
		require.NoError(t, l.SetStanding(ctx, "acme", "wf", fill))
		_, got, err = l.State(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.Equal(t, fill, got)
		other := fill
		other.StandingSeq, other.Standing = 3, "fail"
		require.NoError(t, l.SetStanding(ctx, "acme", "wf", other))
		_, got, err = l.State(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.Equal(t, fill, got, "a known standing record is not replaced")

		require.ErrorIs(t, l.SetStanding(ctx, "other", "wf", fill), store.ErrNotFound)
		bad := fill
		bad.StandingSeq = 9
		require.ErrorIs(t, l.SetStanding(ctx, "acme", "wf", bad), store.ErrInvalid)
	})
}

// testVerifyChecksTheStandingRecord forges the standing record a head names.
func testVerifyChecksTheStandingRecord(t *testing.T, bs []Backend) {
	for _, tc := range []struct {
		name    string
		seq     uint64
		tag     string
		problem string
	}{
		{"past the head", 5, "allow", "head names record 5 as the standing record, past its 3 records"},
		{"a record without a tag", 2, "", `head names record 2 as the standing record with the tag ""`},
		{"a tag without a record", 0, "allow", `head names record 0 as the standing record with the tag "allow"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eachDurableBackend(t, bs, func(t *testing.T, b Backend, l store.Log, where string) {
				ctx := context.Background()
				Decide(t, l, "wf", 0, "allow")
				Decide(t, l, "wf", 1, "")
				h := Decide(t, l, "wf", 1, "")
				h.StandingSeq, h.Standing = tc.seq, tc.tag
				l = tamperWith(t, b, l, where, func(tm Tamperer) { tm.SetHead("acme", "wf", h) })
				rep, err := l.Verify(ctx, "acme", "wf")
				require.NoError(t, err)
				assert.False(t, rep.OK)
				assert.Equal(t, tc.problem, rep.Problem)
			})
		})
	}
}

// Decide appends one record to wf of acme at version v, naming it the standing record
// with tag standing unless that is "" (a block that changes nothing).
func Decide(t *testing.T, l store.Log, wf string, v uint64, standing string) store.Head {
	t.Helper()
	h, err := l.Append(context.Background(), store.Append{Tenant: "acme", Workflow: wf, Create: v == 0, ExpectedVersion: v, BumpVersion: v == 0,
		Standing: standing, Records: []store.NewRecord{Rec("decision", int(v))}, Time: T0})
	require.NoError(t, err)
	return h
}
