package badger

import (
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
	"github.com/handoff-dev/handoff/store/storetest"
)

// TestConformance runs the store.Log suite on every way of opening a Badger store.
func TestConformance(t *testing.T) {
	var bs []storetest.Backend
	for _, b := range backends {
		sb := storetest.Backend{Name: b.name, Open: b.open}
		if !b.memory && !b.single {
			sb.Tamper = tamperBadger
		}
		bs = append(bs, sb)
	}
	storetest.Run(t, bs...)
}

// tamperBadger closes l, runs fn on its directory dir in one update and opens it again.
func tamperBadger(t *testing.T, l store.Log, dir string, fn func(storetest.Tamperer)) store.Log {
	t.Helper()
	require.NoError(t, l.Close())
	tamper(t, dir, func(txn *badger.Txn) error {
		fn(badgerTamperer{t: t, txn: txn})
		return nil
	})
	return reopen(t, dir)
}

// badgerTamperer changes a store's keys in a transaction of its directory.
type badgerTamperer struct {
	t   *testing.T
	txn *badger.Txn
}

func (b badgerTamperer) key(tenant, workflow string, seq uint64) []byte {
	if workflow == "" {
		return auditKey(tenant, seq)
	}
	return recordKey(tenant, workflow, seq)
}

func (b badgerTamperer) Get(tenant, workflow string, seq uint64) chain.Record {
	r, found, err := badgerReader(b.txn)(tenant, workflow, seq)
	require.NoError(b.t, err)
	require.True(b.t, found)
	return r
}

func (b badgerTamperer) Put(tenant, workflow string, seq uint64, r chain.Record) {
	require.NoError(b.t, b.txn.Set(b.key(tenant, workflow, seq), r.Encode()))
}

func (b badgerTamperer) Del(tenant, workflow string, seq uint64) {
	require.NoError(b.t, b.txn.Delete(b.key(tenant, workflow, seq)))
}

func (b badgerTamperer) headKey(tenant, workflow string) []byte {
	if workflow == "" {
		return auditHeadKey(tenant)
	}
	return headKey(tenant, workflow)
}

func (b badgerTamperer) SetHead(tenant, workflow string, h store.Head) {
	require.NoError(b.t, b.txn.Set(b.headKey(tenant, workflow), chain.EncodeHead(h)))
}

func (b badgerTamperer) DelHead(tenant, workflow string) {
	require.NoError(b.t, b.txn.Delete(b.headKey(tenant, workflow)))
}

func (b badgerTamperer) SetOwner(workflow, tenant string) {
	require.NoError(b.t, b.txn.Set(ownerKey(workflow), []byte(tenant)))
}

func (b badgerTamperer) SetKey(tenant, key string, e chain.IdemEntry) {
	require.NoError(b.t, b.txn.Set(idemKey(tenant, key), e.Encode()))
}

func (b badgerTamperer) DelKey(tenant, key string) {
	require.NoError(b.t, b.txn.Delete(idemKey(tenant, key)))
}

func (b badgerTamperer) SetID(id string, loc store.Location) {
	require.NoError(b.t, b.txn.Set(indexKey(id), chain.EncodeLocation(&loc)))
}

func (b badgerTamperer) DelID(id string) {
	require.NoError(b.t, b.txn.Delete(indexKey(id)))
}

func (b badgerTamperer) PutRaw(tenant, workflow string, seq uint64, v []byte) {
	require.NoError(b.t, b.txn.Set(b.key(tenant, workflow, seq), v))
}
