package badger

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func TestAuditRecordsFromASeq(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	ctx := context.Background()
	for i := range 5 {
		_, err := l.Audit(ctx, "acme", rec("rejected", i), t0)
		require.NoError(t, err)
	}
	all := auditRecords(t, l, "acme")
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

func TestChainsListsAChainWhoseHeadIsGone(t *testing.T) {
	l, dir := openDisk(t)
	create(t, l, "acme", "wf-1", 2)
	_, err := l.Audit(context.Background(), "acme", rec("rejected", 1), t0)
	require.NoError(t, err)
	require.NoError(t, l.Close())
	tamper(t, dir, func(txn *badger.Txn) error {
		if err := txn.Delete(auditHeadKey("acme")); err != nil {
			return err
		}
		return txn.Delete(headKey("acme", "wf-1"))
	})
	l = reopen(t, dir)
	assert.Equal(t, []store.Chain{
		{Tenant: "acme", Audit: true},
		{Tenant: "acme", Workflow: "wf-1"},
	}, chains(t, l), "listed with a zero head, for Verify to report")
}
