package store

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

// tamperer changes a store behind its back, as someone with access to its files or its
// database would. A workflow "" names the tenant's audit stream.
type tamperer interface {
	get(tenant, workflow string, seq uint64) storedRecord
	put(tenant, workflow string, seq uint64, r storedRecord)
	del(tenant, workflow string, seq uint64)
	setHead(tenant, workflow string, h Head)
	delHead(tenant, workflow string)
	setOwner(workflow, tenant string)
	setKey(tenant, key string, e idemEntry)
	delKey(tenant, key string)
	setID(id string, loc Location)
	delID(id string)
}

// edit rewrites the record at seq with fn.
func edit(tm tamperer, tenant, workflow string, seq uint64, fn func(r *storedRecord)) {
	r := tm.get(tenant, workflow, seq)
	fn(&r)
	tm.put(tenant, workflow, seq, r)
}

// tamperWith runs fn against the store l of backend b and returns the store to read
// afterwards: a Badger store is closed, changed in its directory and opened again; a
// PostgreSQL store is changed in SQL while it stays open.
func tamperWith(t *testing.T, b backend, l Log, where string, fn func(tm tamperer)) Log {
	t.Helper()
	if b.postgres {
		conn, err := pgxConnect(where)
		require.NoError(t, err)
		defer conn.Close(context.Background())
		fn(pgTamperer{t: t, conn: conn})
		return l
	}
	require.NoError(t, l.Close())
	tamper(t, where, func(txn *badger.Txn) error {
		fn(badgerTamperer{t: t, txn: txn})
		return nil
	})
	return reopen(t, where)
}

// eachDurableBackend runs fn on a Badger store on disk and on a PostgreSQL store.
func eachDurableBackend(t *testing.T, fn func(t *testing.T, b backend, l Log, where string)) {
	for _, b := range backends {
		if b.memory || b.single {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			l, where := b.open(t)
			fn(t, b, l, where)
		})
	}
}

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

func (b badgerTamperer) get(tenant, workflow string, seq uint64) storedRecord {
	r, found, err := badgerReader(b.txn)(tenant, workflow, seq)
	require.NoError(b.t, err)
	require.True(b.t, found)
	return r
}

func (b badgerTamperer) put(tenant, workflow string, seq uint64, r storedRecord) {
	require.NoError(b.t, b.txn.Set(b.key(tenant, workflow, seq), r.encode()))
}

func (b badgerTamperer) del(tenant, workflow string, seq uint64) {
	require.NoError(b.t, b.txn.Delete(b.key(tenant, workflow, seq)))
}

func (b badgerTamperer) headKey(tenant, workflow string) []byte {
	if workflow == "" {
		return auditHeadKey(tenant)
	}
	return headKey(tenant, workflow)
}

func (b badgerTamperer) setHead(tenant, workflow string, h Head) {
	require.NoError(b.t, b.txn.Set(b.headKey(tenant, workflow), encodeHead(h)))
}

func (b badgerTamperer) delHead(tenant, workflow string) {
	require.NoError(b.t, b.txn.Delete(b.headKey(tenant, workflow)))
}

func (b badgerTamperer) setOwner(workflow, tenant string) {
	require.NoError(b.t, b.txn.Set(ownerKey(workflow), []byte(tenant)))
}

func (b badgerTamperer) setKey(tenant, key string, e idemEntry) {
	require.NoError(b.t, b.txn.Set(idemKey(tenant, key), e.encode()))
}

func (b badgerTamperer) delKey(tenant, key string) {
	require.NoError(b.t, b.txn.Delete(idemKey(tenant, key)))
}

func (b badgerTamperer) setID(id string, loc Location) {
	require.NoError(b.t, b.txn.Set(indexKey(id), loc.encode()))
}

func (b badgerTamperer) delID(id string) {
	require.NoError(b.t, b.txn.Delete(indexKey(id)))
}

// TestReadsRefuseTamperedAnswers changes the record an idempotency key and a record id
// name, and checks that neither read hands it out.
func TestReadsRefuseTamperedAnswers(t *testing.T) {
	for _, change := range []struct {
		name string
		fn   func(tm tamperer)
	}{
		{"payload rewritten", func(tm tamperer) {
			edit(tm, "acme", "wf", 2, func(r *storedRecord) { r.Payload = []byte(`{"outcome":"allow"}`) })
		}},
		{"payload and hash rewritten", func(tm tamperer) {
			edit(tm, "acme", "wf", 2, func(r *storedRecord) {
				r.Payload = []byte(`{"outcome":"allow"}`)
				sealRecord(domainRecord, "acme", "wf", r)
			})
		}},
		{"record deleted", func(tm tamperer) { tm.del("acme", "wf", 2) }},
	} {
		t.Run(change.name, func(t *testing.T) {
			eachDurableBackend(t, func(t *testing.T, b backend, l Log, where string) {
				ctx := context.Background()
				_, err := l.Append(ctx, Append{Tenant: "acme", Workflow: "wf", Create: true, BumpVersion: true, Time: t0,
					Records:        []NewRecord{rec("request", 1), {Type: "decision", Payload: []byte(`{"outcome":"block"}`), ID: "d-1"}},
					IdempotencyKey: "req-1", RequestDigest: "sha256:1"})
				require.NoError(t, err)
				l = tamperWith(t, b, l, where, change.fn)
				_, _, _, err = l.Idempotent(ctx, "acme", "req-1")
				require.ErrorIs(t, err, ErrTampered)
				_, err = l.Find(ctx, "d-1")
				require.ErrorIs(t, err, ErrTampered)
				_, err = l.Append(ctx, Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: 1, Time: t0,
					Records: []NewRecord{rec("request", 1)}, IdempotencyKey: "req-1", RequestDigest: "sha256:1"})
				require.ErrorIs(t, err, ErrTampered, "a resent request is not answered from an altered record")
			})
		})
	}
}
