package badger

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

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
