package store

import (
	"context"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyDetectsTampering writes a five-record chain, changes the
// Badger directory behind the store's back and checks that Verify names
// the first broken record.
func TestVerifyDetectsTampering(t *testing.T) {
	const tenant, workflow = "acme", "wf-1"
	tests := []struct {
		name      string
		tamper    func(txn *badger.Txn) error
		brokenSeq uint64
		problem   string // substring
		records   uint64
	}{
		{
			name: "modified payload",
			tamper: func(txn *badger.Txn) error {
				return rewriteRecord(txn, recordKey(tenant, workflow, 3), func(r *storedRecord) {
					r.Payload = []byte(`{"n":999}`)
				})
			},
			brokenSeq: 3, problem: "hash mismatch", records: 2,
		},
		{
			name: "modified type",
			tamper: func(txn *badger.Txn) error {
				return rewriteRecord(txn, recordKey(tenant, workflow, 1), func(r *storedRecord) { r.Type = "allow" })
			},
			brokenSeq: 1, problem: "hash mismatch", records: 0,
		},
		{
			name: "modified time",
			tamper: func(txn *badger.Txn) error {
				return rewriteRecord(txn, recordKey(tenant, workflow, 2), func(r *storedRecord) {
					r.Time = "2020-01-01T00:00:00Z"
				})
			},
			brokenSeq: 2, problem: "hash mismatch", records: 1,
		},
		{
			name: "modified hash",
			tamper: func(txn *badger.Txn) error {
				return rewriteRecord(txn, recordKey(tenant, workflow, 4), func(r *storedRecord) {
					r.Hash = "sha256:" + strings.Repeat("0", 64)
				})
			},
			brokenSeq: 4, problem: "hash mismatch", records: 3,
		},
		{
			name: "payload changed and hash recomputed",
			tamper: func(txn *badger.Txn) error {
				return rewriteRecord(txn, recordKey(tenant, workflow, 2), func(r *storedRecord) {
					r.Payload = []byte(`{"n":999}`)
					sealRecord(domainRecord, tenant, workflow, r)
				})
			},
			brokenSeq: 3, problem: "prev_hash is not the hash of record 2", records: 2,
		},
		{
			name: "deleted record",
			tamper: func(txn *badger.Txn) error {
				return txn.Delete(recordKey(tenant, workflow, 2))
			},
			brokenSeq: 2, problem: "record 2 missing (next record is 3)", records: 1,
		},
		{
			name: "truncated tail",
			tamper: func(txn *badger.Txn) error {
				if err := txn.Delete(recordKey(tenant, workflow, 5)); err != nil {
					return err
				}
				return txn.Delete(recordKey(tenant, workflow, 4))
			},
			brokenSeq: 4, problem: "records 4 to 5 missing", records: 3,
		},
		{
			name: "last record deleted",
			tamper: func(txn *badger.Txn) error {
				return txn.Delete(recordKey(tenant, workflow, 5))
			},
			brokenSeq: 5, problem: "record 5 missing", records: 4,
		},
		{
			name: "truncated tail with the head rolled back",
			tamper: func(txn *badger.Txn) error {
				// A forger who also rewinds the head to record 4 leaves
				// record 5 past the head.
				item, err := txn.Get(recordKey(tenant, workflow, 4))
				if err != nil {
					return err
				}
				v, _ := item.ValueCopy(nil)
				r, _ := decodeRecord(v)
				return txn.Set(headKey(tenant, workflow), encodeHead(Head{Seq: 4, StateVersion: 1, Hash: r.Hash}))
			},
			brokenSeq: 5, problem: "record 5 is past the head", records: 5,
		},
		{
			name: "record copied from another workflow",
			tamper: func(txn *badger.Txn) error {
				item, err := txn.Get(recordKey(tenant, "wf-other", 3))
				if err != nil {
					return err
				}
				v, _ := item.ValueCopy(nil)
				return txn.Set(recordKey(tenant, workflow, 3), v)
			},
			brokenSeq: 3, problem: "prev_hash", records: 2,
		},
		{
			name: "record stored under another seq",
			tamper: func(txn *badger.Txn) error {
				item, err := txn.Get(recordKey(tenant, workflow, 2))
				if err != nil {
					return err
				}
				v, _ := item.ValueCopy(nil)
				return txn.Set(recordKey(tenant, workflow, 3), v)
			},
			brokenSeq: 3, problem: "record holds seq 2", records: 2,
		},
		{
			name: "undecodable record",
			tamper: func(txn *badger.Txn) error {
				return txn.Set(recordKey(tenant, workflow, 2), []byte("garbage"))
			},
			brokenSeq: 2, problem: "record undecodable", records: 1,
		},
		{
			name: "head hash changed",
			tamper: func(txn *badger.Txn) error {
				return txn.Set(headKey(tenant, workflow), encodeHead(Head{Seq: 5, StateVersion: 1, Hash: "sha256:00"}))
			},
			brokenSeq: 5, problem: "head hash does not match record 5", records: 5,
		},
		{
			name: "head deleted",
			tamper: func(txn *badger.Txn) error {
				return txn.Delete(headKey(tenant, workflow))
			},
			brokenSeq: 0, problem: "workflow head missing", records: 5,
		},
		{
			name: "workflow deleted",
			tamper: func(txn *badger.Txn) error {
				for seq := uint64(1); seq <= 5; seq++ {
					if err := txn.Delete(recordKey(tenant, workflow, seq)); err != nil {
						return err
					}
				}
				if err := txn.Delete(snapshotKey(tenant, workflow)); err != nil {
					return err
				}
				return txn.Delete(headKey(tenant, workflow))
			},
			brokenSeq: 1, problem: "head and records missing", records: 0,
		},
		{
			name: "owner index moved",
			tamper: func(txn *badger.Txn) error {
				return txn.Set(ownerKey(workflow), []byte("intruder"))
			},
			brokenSeq: 0, problem: `owner index names tenant "intruder"`, records: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			l, dir := openDisk(t)
			for _, wf := range []string{workflow, "wf-other"} {
				create(t, l, tenant, wf, 5)
			}
			rep, err := l.Verify(ctx, tenant, workflow)
			require.NoError(t, err)
			require.Equal(t, VerifyReport{Tenant: tenant, Workflow: workflow, Records: 5, OK: true}, rep)
			require.NoError(t, l.Close())

			tamper(t, dir, tt.tamper)

			l = reopen(t, dir)
			rep, err = l.Verify(ctx, tenant, workflow)
			require.NoError(t, err)
			assert.False(t, rep.OK, "tampering not detected")
			assert.Equal(t, tt.brokenSeq, rep.BrokenSeq, rep.Problem)
			assert.Contains(t, rep.Problem, tt.problem)
			assert.Equal(t, tt.records, rep.Records)

			rep, err = l.Verify(ctx, tenant, "wf-other")
			require.NoError(t, err)
			if tt.name != "record copied from another workflow" {
				assert.True(t, rep.OK, "the other workflow is intact: %s", rep.Problem)
			}
		})
	}
}

func TestVerifyNotFound(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	_, err := l.Verify(context.Background(), "acme", "nope")
	require.ErrorIs(t, err, ErrNotFound)
}

func TestVerifyLongChain(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	ctx := context.Background()
	create(t, l, "acme", "wf", 300)
	for v := uint64(1); v <= 100; v++ {
		// A logged block, then a state change at the same version.
		_, err := l.Append(ctx, Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: v,
			Records: []NewRecord{rec("a", int(v)), rec("b", int(v))}, Time: t0})
		require.NoError(t, err)
		_, err = l.Append(ctx, Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: v, BumpVersion: true,
			Records: []NewRecord{rec("c", int(v))}, Time: t0})
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
