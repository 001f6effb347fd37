package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// Tamperer changes a store behind its back, as someone with access to its files or its
// database would. A workflow "" names the tenant's audit stream. Each method fails the
// test on an error.
type Tamperer interface {
	Get(tenant, workflow string, seq uint64) chain.Record
	Put(tenant, workflow string, seq uint64, r chain.Record)
	Del(tenant, workflow string, seq uint64)
	SetHead(tenant, workflow string, h store.Head)
	DelHead(tenant, workflow string)
	SetOwner(workflow, tenant string)
	SetKey(tenant, key string, e chain.IdemEntry)
	DelKey(tenant, key string)
	SetID(id string, loc store.Location)
	DelID(id string)
}

// RawTamperer is the Tamperer of a backend that keeps each record as one encoded value
// (Badger), which can be replaced with bytes that do not decode.
type RawTamperer interface {
	Tamperer
	PutRaw(tenant, workflow string, seq uint64, v []byte)
}

// edit rewrites the record at seq with fn.
func edit(tm Tamperer, tenant, workflow string, seq uint64, fn func(r *chain.Record)) {
	r := tm.Get(tenant, workflow, seq)
	fn(&r)
	tm.Put(tenant, workflow, seq, r)
}

// eachDurableBackend runs fn on each backend of bs that can be tampered with: a Badger
// store on disk, a PostgreSQL store.
func eachDurableBackend(t *testing.T, bs []Backend, fn func(t *testing.T, b Backend, l store.Log, where string)) {
	for _, b := range bs {
		if b.Tamper == nil {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			l, where := b.Open(t)
			fn(t, b, l, where)
		})
	}
}

// tamperWith runs fn against the store l of backend b and returns the store to read
// afterwards.
func tamperWith(t *testing.T, b Backend, l store.Log, where string, fn func(tm Tamperer)) store.Log {
	t.Helper()
	return b.Tamper(t, l, where, fn)
}

// testReadsRefuseTamperedAnswers changes the record an idempotency key and a record id
// name, and checks that neither read hands it out.
func testReadsRefuseTamperedAnswers(t *testing.T, bs []Backend) {
	for _, change := range []struct {
		name string
		fn   func(tm Tamperer)
	}{
		{"payload rewritten", func(tm Tamperer) {
			edit(tm, "acme", "wf", 2, func(r *chain.Record) { r.Payload = []byte(`{"outcome":"allow"}`) })
		}},
		{"payload and hash rewritten", func(tm Tamperer) {
			edit(tm, "acme", "wf", 2, func(r *chain.Record) {
				r.Payload = []byte(`{"outcome":"allow"}`)
				chain.SealRecord(store.DomainRecord, "acme", "wf", r)
			})
		}},
		{"record deleted", func(tm Tamperer) { tm.Del("acme", "wf", 2) }},
	} {
		t.Run(change.name, func(t *testing.T) {
			eachDurableBackend(t, bs, func(t *testing.T, b Backend, l store.Log, where string) {
				ctx := context.Background()
				_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", Create: true, BumpVersion: true, Time: T0,
					Records:        []store.NewRecord{Rec("request", 1), {Type: "decision", Payload: []byte(`{"outcome":"block"}`), ID: "d-1"}},
					IdempotencyKey: "req-1", RequestDigest: "sha256:1"})
				require.NoError(t, err)
				l = tamperWith(t, b, l, where, change.fn)
				_, _, _, err = l.Idempotent(ctx, "acme", "req-1")
				require.ErrorIs(t, err, store.ErrTampered)
				_, err = l.Find(ctx, "d-1")
				require.ErrorIs(t, err, store.ErrTampered)
				_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: 1, Time: T0,
					Records: []store.NewRecord{Rec("request", 1)}, IdempotencyKey: "req-1", RequestDigest: "sha256:1"})
				require.ErrorIs(t, err, store.ErrTampered, "a resent request is not answered from an altered record")
			})
		})
	}
}
