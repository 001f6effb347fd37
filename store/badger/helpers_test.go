package badger

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// backend is one way of opening a store for a test.
type backend struct {
	name   string
	memory bool
	single bool // NoGroupCommit
}

var backends = []backend{
	{name: "memory", memory: true},
	{name: "disk"},
	{name: "memory-single", memory: true, single: true},
	{name: "disk-single", single: true},
}

// open opens a store of backend b for t and returns it with its directory ("" in memory).
func (b backend) open(t testing.TB) (store.Log, string) {
	t.Helper()
	return b.openBadger(t)
}

func (b backend) openBadger(t testing.TB) (*Log, string) {
	t.Helper()
	opts := store.Options{InMemory: b.memory, NoGroupCommit: b.single}
	if !b.memory {
		opts.Dir = t.TempDir()
	}
	l, err := Open(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l, opts.Dir
}

// eachBadger runs fn once per Badger backend as a subtest: for tests of what only
// Badger has (its transaction limits, its keys).
func eachBadger(t *testing.T, fn func(t *testing.T, b backend, l *Log)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			l, _ := b.openBadger(t)
			fn(t, b, l)
		})
	}
}

// openDisk opens a group-committing store in a new temp dir.
func openDisk(t testing.TB) (*Log, string) {
	t.Helper()
	return backend{name: "disk"}.openBadger(t)
}

// tamper opens the Badger directory dir directly and runs fn in one update.
// The Log on dir must be closed first.
func tamper(t testing.TB, dir string, fn func(txn *badger.Txn) error) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	require.NoError(t, db.Update(fn))
	require.NoError(t, db.Close())
}

// rewriteRecord decodes the stored record at key, lets edit change it and
// stores it back.
func rewriteRecord(txn *badger.Txn, key []byte, edit func(r *chain.Record)) error {
	item, err := txn.Get(key)
	if err != nil {
		return err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return err
	}
	r, err := chain.DecodeRecord(v)
	if err != nil {
		return err
	}
	edit(&r)
	return txn.Set(key, r.Encode())
}

// reopen opens dir again after the Log on it was closed.
func reopen(t testing.TB, dir string) *Log {
	t.Helper()
	l, err := Open(context.Background(), store.Options{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

var t0 = time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)

// rec builds a record with a small JSON payload.
func rec(typ string, n int) store.NewRecord {
	return store.NewRecord{Type: typ, Payload: fmt.Appendf(nil, `{"n":%d}`, n)}
}

// create makes a workflow with n records and state version 1.
func create(t testing.TB, l store.Log, tenant, workflow string, n int) store.Head {
	t.Helper()
	a := store.Append{Tenant: tenant, Workflow: workflow, Create: true, BumpVersion: true, Time: t0,
		State: []byte(`{"v":1}`)}
	for i := range n {
		a.Records = append(a.Records, rec("event", i+1))
	}
	h, err := l.Append(context.Background(), a)
	require.NoError(t, err)
	return h
}

// records collects the records of a workflow.
func records(t testing.TB, l store.Log, tenant, workflow string, from uint64) []store.Record {
	t.Helper()
	var out []store.Record
	require.NoError(t, l.Records(context.Background(), tenant, workflow, from, func(r store.Record) error {
		out = append(out, r)
		return nil
	}))
	return out
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func auditRecords(t *testing.T, l store.Log, tenant string) []store.Record {
	t.Helper()
	var out []store.Record
	require.NoError(t, l.AuditRecords(context.Background(), tenant, 0, func(r store.Record) error {
		out = append(out, r)
		return nil
	}))
	return out
}

func chains(t *testing.T, l store.Log) []store.Chain {
	t.Helper()
	var out []store.Chain
	require.NoError(t, l.Chains(context.Background(), func(c store.Chain) error {
		out = append(out, c)
		return nil
	}))
	return out
}

// idRec is a record named id, whose payload carries the id too (as the engine's do).
func idRec(typ, id string) store.NewRecord {
	return store.NewRecord{Type: typ, Payload: fmt.Appendf(nil, `{"id":%q}`, id), ID: id}
}

// payloadID reads the id idRec puts in a payload.
func payloadID(payload []byte) string {
	var v struct{ ID string }
	_ = json.Unmarshal(payload, &v)
	return v.ID
}

// decide appends one record to wf of acme at version v, naming it the standing record
// with tag standing unless that is "" (a block that changes nothing).
func decide(t *testing.T, l store.Log, wf string, v uint64, standing string) store.Head {
	t.Helper()
	h, err := l.Append(context.Background(), store.Append{Tenant: "acme", Workflow: wf, Create: v == 0, ExpectedVersion: v, BumpVersion: v == 0,
		Standing: standing, Records: []store.NewRecord{rec("decision", int(v))}, Time: t0})
	require.NoError(t, err)
	return h
}

func mustOwner(t *testing.T, l store.Log, workflow string) string {
	t.Helper()
	owner, found, err := l.Owner(context.Background(), workflow)
	require.NoError(t, err)
	require.True(t, found, workflow)
	return owner
}
