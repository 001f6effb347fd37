package badger

import (
	"context"
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

func TestFindRefusesAnIndexEntryThatNamesAnotherRecord(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(txn *badger.Txn) error
		want   string
	}{
		{"record rewritten", func(txn *badger.Txn) error {
			return rewriteRecord(txn, recordKey("acme", "wf-1", 1), func(r *chain.Record) { r.Payload = []byte(`{"id":"d-x"}`) })
		}, `names record 1 of workflow "wf-1" of tenant "acme", whose hash differs`},
		{"record deleted", func(txn *badger.Txn) error {
			return txn.Delete(recordKey("acme", "wf-1", 1))
		}, "which is not there"},
		{"entry moved", func(txn *badger.Txn) error {
			loc := store.Location{Tenant: "acme", Workflow: "wf-1", Seq: 2, Hash: "sha256:00"}
			return txn.Set(indexKey("d-1"), chain.EncodeLocation(&loc))
		}, "whose hash differs"},
		{"entry undecodable", func(txn *badger.Txn) error {
			return txn.Set(indexKey("d-1"), []byte{0x01, 0x02})
		}, "undecodable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, dir := openDisk(t)
			_, err := l.Append(context.Background(), store.Append{Tenant: "acme", Workflow: "wf-1", Create: true, Time: t0,
				Records: []store.NewRecord{idRec("decision", "d-1"), idRec("decision", "d-2")}})
			require.NoError(t, err)
			require.NoError(t, l.Close())
			tamper(t, dir, tc.tamper)
			l = reopen(t, dir)
			_, err = l.Find(context.Background(), "d-1")
			require.ErrorIs(t, err, store.ErrTampered)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// unindexedStore writes a store of the given format as an earlier version did: records
// whose payloads carry ids, no index, and for format 1 no format mark and idempotency
// keys holding copies of their answers. It returns the directory and the location of
// every id.
func unindexedStore(t *testing.T, format string) (string, map[string]store.Location) {
	t.Helper()
	ctx := context.Background()
	l, dir := openDisk(t)
	want := map[string]store.Location{}
	for _, w := range []struct{ tenant, workflow string }{{"acme", "wf-1"}, {"acme", "wf-2"}, {"beta", "wf-3"}} {
		a := store.Append{Tenant: w.tenant, Workflow: w.workflow, Create: true, BumpVersion: true, Time: t0}
		for i := range 3 {
			a.Records = append(a.Records, idRec("decision", fmt.Sprintf("%s-%d", w.workflow, i+1)))
		}
		a.Records = append(a.Records, rec("note", 1)) // a record with no id
		_, err := l.Append(ctx, a)
		require.NoError(t, err)
		for i, r := range records(t, l, w.tenant, w.workflow, 1)[:3] {
			want[fmt.Sprintf("%s-%d", w.workflow, i+1)] = store.Location{Tenant: w.tenant, Workflow: w.workflow, Seq: r.Seq, Hash: r.Hash}
		}
	}
	for i, tenant := range []string{"acme", ""} {
		r, err := l.Audit(ctx, tenant, idRec("security", fmt.Sprintf("audit-%d", i)), t0)
		require.NoError(t, err)
		want[fmt.Sprintf("audit-%d", i)] = store.Location{Tenant: tenant, Seq: r.Seq, Hash: r.Hash}
	}
	// The earlier version: no index, the mark of its format.
	kvs := map[string][]byte{formatKey: []byte(format)}
	for id := range want {
		kvs[string(indexKey(id))] = nil
	}
	if format == "" {
		kvs[formatKey] = nil
		kvs[string(idemKey("acme", "req-1"))] = legacyEntry("d1", `{"n":1}`, "wf-1")
	}
	set(t, l, kvs)
	require.NoError(t, l.Close())
	return dir, want
}

func formatMark(t *testing.T, l *Log) string {
	t.Helper()
	var mark string
	require.NoError(t, l.db.View(func(txn *badger.Txn) error {
		v, found, err := getValue(txn, []byte(formatKey))
		mark = string(v)
		if !found {
			mark = "(none)"
		}
		return err
	}))
	return mark
}

func TestUpgradeIndexesTheRecordsOfAnEarlierFormat(t *testing.T) {
	ctx := context.Background()
	bindIdem := func(t *testing.T, l *Log) {
		_, _, err := l.UpgradeIdempotency(ctx, func(string, string, string, []byte) (uint64, error) { return 1, nil })
		require.NoError(t, err)
	}
	index := func(t *testing.T, l *Log) {
		n, dups, err := l.UpgradeIndex(ctx, payloadID)
		require.NoError(t, err)
		assert.Contains(t, []int{11, 0}, n, "9 workflow records and 2 audit records carry ids; none is new on a second run")
		assert.Zero(t, dups)
	}
	for _, tc := range []struct {
		name    string
		format  string // "" for format 1, which has no mark
		legacy  bool
		first   func(*testing.T, *Log)
		midMark string // the mark after the first upgrade
		reindex bool   // the index is built again after a reopen
	}{
		{"format 2 needs the index only", "2", false, index, formatVersion, false},
		{"format 1 needs both, keys first", "", true, bindIdem, "2", true},
		{"format 1 needs both, index first", "", true, index, "(none)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, want := unindexedStore(t, tc.format)
			l := reopen(t, dir)
			assert.True(t, l.Unindexed())
			assert.Equal(t, tc.legacy, l.LegacyIdempotency())
			_, err := l.Find(ctx, "wf-1-1")
			require.ErrorIs(t, err, store.ErrNotFound, "nothing is indexed before the upgrade")

			tc.first(t, l)
			assert.Equal(t, tc.midMark, formatMark(t, l))
			// Cut short here, the store is upgraded at the next Open as the engine does:
			// the keys if they are unbound, the index if it is missing.
			require.NoError(t, l.Close())
			l = reopen(t, dir)
			assert.Equal(t, tc.reindex, l.Unindexed())
			if l.LegacyIdempotency() {
				bindIdem(t, l)
			}
			if l.Unindexed() {
				index(t, l)
			}
			assert.False(t, l.Unindexed())
			assert.False(t, l.LegacyIdempotency())
			assert.Equal(t, formatVersion, formatMark(t, l))

			for id, loc := range want {
				got, err := l.Find(ctx, id)
				require.NoError(t, err, id)
				assert.Equal(t, loc, got, id)
			}
			// Appends index as before, and refuse the ids the upgrade indexed.
			_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, Time: t0,
				Records: []store.NewRecord{idRec("decision", "wf-2-1")}})
			require.ErrorIs(t, err, store.ErrDuplicateID)
			require.NoError(t, l.Close())

			l = reopen(t, dir)
			assert.False(t, l.Unindexed(), "the upgrade is done once")
			assert.False(t, l.LegacyIdempotency())
		})
	}
}

func TestUpgradeIndexKeepsTheFirstOfTwoRecordsWithOneID(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", Create: true, Time: t0,
		Records: []store.NewRecord{idRec("decision", "d-1"), idRec("decision", "d-2")}})
	require.NoError(t, err)
	_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-2", Create: true, Time: t0,
		Records: []store.NewRecord{{Type: "decision", Payload: []byte(`{"id":"d-1"}`)}}})
	require.NoError(t, err)
	set(t, l, map[string][]byte{formatKey: []byte(formatBound), string(indexKey("d-1")): nil, string(indexKey("d-2")): nil})
	require.NoError(t, l.Close())

	l = reopen(t, dir)
	require.True(t, l.Unindexed())
	n, dups, err := l.UpgradeIndex(ctx, payloadID)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, 1, dups)
	loc, err := l.Find(ctx, "d-1")
	require.NoError(t, err)
	assert.Equal(t, "wf-1", loc.Workflow, "the first in key order keeps the id")
}
