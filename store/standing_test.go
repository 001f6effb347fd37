package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decide appends one record to wf of acme at version v, naming it the standing record
// with tag standing unless that is "" (a block that changes nothing).
func decide(t *testing.T, l Log, wf string, v uint64, standing string) Head {
	t.Helper()
	h, err := l.Append(context.Background(), Append{Tenant: "acme", Workflow: wf, Create: v == 0, ExpectedVersion: v, BumpVersion: v == 0,
		Standing: standing, Records: []NewRecord{rec("decision", int(v))}, Time: t0})
	require.NoError(t, err)
	return h
}

// TestStandingRecordKeptWithTheHead appends decisions that name a standing record and
// blocks that do not: the head names the last one named, whatever came after it, in
// every read that returns a head.
func TestStandingRecordKeptWithTheHead(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend, l Log) {
		ctx := context.Background()
		h := decide(t, l, "wf", 0, "allow")
		assert.Equal(t, Head{Seq: 1, StateVersion: 1, Hash: h.Hash, StandingSeq: 1, Standing: "allow"}, h)
		for range 3 {
			h = decide(t, l, "wf", 1, "")
		}
		assert.Equal(t, uint64(1), h.StandingSeq, "blocks leave the standing record where it was")
		assert.Equal(t, "allow", h.Standing)
		h, err := l.Append(ctx, Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: 1, Standing: "await_human", Time: t0,
			Records: []NewRecord{rec("request", 5), rec("decision", 6)}})
		require.NoError(t, err)
		assert.Equal(t, Head{Seq: 6, StateVersion: 1, Hash: h.Hash, StandingSeq: 6, Standing: "await_human"}, h, "the last record of the append")

		_, got, err := l.State(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.Equal(t, h, got)
		require.NoError(t, l.Workflows(ctx, "acme", func(_ string, got Head) error { assert.Equal(t, h, got); return nil }))
		require.NoError(t, l.Chains(ctx, func(c Chain) error { assert.Equal(t, h, c.Head); return nil }))

		blocked := decide(t, l, "only-blocks", 0, "")
		assert.Equal(t, Head{Seq: 1, StateVersion: 1, Hash: blocked.Hash}, blocked, "no standing record yet, and that is known")
		rep, err := l.Verify(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.True(t, rep.OK, rep.Problem)
	})
}

// TestStandingRecordOfAnEarlierVersion writes a head as an earlier version did, without
// its standing record: it reads as unknown, blocks keep it unknown, and SetStanding fills
// it in once, only at the head it was computed for.
func TestStandingRecordOfAnEarlierVersion(t *testing.T) {
	eachDurableBackend(t, func(t *testing.T, b backend, l Log, where string) {
		ctx := context.Background()
		h := decide(t, l, "wf", 0, "allow")
		last := decide(t, l, "wf", 1, "")
		l = tamperWith(t, b, l, where, func(tm tamperer) {
			tm.setHead("acme", "wf", Head{Seq: 2, StateVersion: 1, Hash: last.Hash, StandingUnknown: true})
		})
		_, cur, err := l.State(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.True(t, cur.StandingUnknown)
		rep, err := l.Verify(ctx, "acme", "wf")
		require.NoError(t, err)
		assert.True(t, rep.OK, rep.Problem)

		cur = decide(t, l, "wf", 1, "")
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

		require.ErrorIs(t, l.SetStanding(ctx, "other", "wf", fill), ErrNotFound)
		bad := fill
		bad.StandingSeq = 9
		require.ErrorIs(t, l.SetStanding(ctx, "acme", "wf", bad), ErrInvalid)
	})
}

// TestVerifyChecksTheStandingRecord forges the standing record a head names.
func TestVerifyChecksTheStandingRecord(t *testing.T) {
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
			eachDurableBackend(t, func(t *testing.T, b backend, l Log, where string) {
				ctx := context.Background()
				decide(t, l, "wf", 0, "allow")
				decide(t, l, "wf", 1, "")
				h := decide(t, l, "wf", 1, "")
				h.StandingSeq, h.Standing = tc.seq, tc.tag
				l = tamperWith(t, b, l, where, func(tm tamperer) { tm.setHead("acme", "wf", h) })
				rep, err := l.Verify(ctx, "acme", "wf")
				require.NoError(t, err)
				assert.False(t, rep.OK)
				assert.Equal(t, tc.problem, rep.Problem)
			})
		})
	}
}

// TestFormat3StoreOpens marks a store written before heads kept their standing record
// as the current format at Open, and reads its heads as unknown; read-only it opens
// as it is.
func TestFormat3StoreOpens(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	h := decide(t, l, "wf", 0, "allow")
	require.NoError(t, l.Close())
	tamper(t, dir, func(txn *badger.Txn) error {
		old := encodeHead(Head{Seq: h.Seq, StateVersion: h.StateVersion, Hash: h.Hash, StandingUnknown: true})
		if old[0] != 0x01 {
			return fmt.Errorf("an unknown standing record is written as format 3 wrote heads, not %x", old[0])
		}
		if err := txn.Set(headKey("acme", "wf"), old); err != nil {
			return err
		}
		return txn.Set([]byte(formatKey), []byte(formatIndexed))
	})
	ro, err := OpenBadger(ctx, Options{Dir: dir, ReadOnly: true})
	require.NoError(t, err)
	_, got, err := ro.State(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.True(t, got.StandingUnknown)
	require.NoError(t, ro.Close())

	l = reopen(t, dir)
	assert.Equal(t, formatVersion, formatMark(t, l))
	_, got, err = l.State(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.True(t, got.StandingUnknown)
	assert.Equal(t, h.Hash, got.Hash)
}
