package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
)

// backend is one way of opening a store for a test.
type backend struct {
	name     string
	memory   bool
	single   bool // NoGroupCommit
	postgres bool // a PostgreSQL store in a schema of its own
}

var backends = []backend{
	{name: "memory", memory: true},
	{name: "disk"},
	{name: "memory-single", memory: true, single: true},
	{name: "disk-single", single: true},
	{name: "postgres", postgres: true},
}

// open opens a store of backend b for t and returns it with its directory or URL.
func (b backend) open(t testing.TB) (Log, string) {
	t.Helper()
	if b.postgres {
		p := openPostgres(t)
		return p, p.url
	}
	l, dir := b.openBadger(t)
	return l, dir
}

// testPostgres is a PostgreSQL store with the URL it was opened with.
type testPostgres struct {
	*Postgres
	url string
}

// openPostgres opens a PostgreSQL store in a new schema, migrated.
func openPostgres(t testing.TB) testPostgres {
	t.Helper()
	u := pgtest.URL(t)
	_, err := Migrate(context.Background(), Options{URL: u})
	require.NoError(t, err)
	p, err := OpenPostgres(context.Background(), Options{URL: u})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return testPostgres{p, u}
}

func (b backend) openBadger(t testing.TB) (*Badger, string) {
	t.Helper()
	opts := Options{InMemory: b.memory, NoGroupCommit: b.single}
	if !b.memory {
		opts.Dir = t.TempDir()
	}
	l, err := OpenBadger(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l, opts.Dir
}

// eachBackend runs fn once per backend as a subtest.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend, l Log)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			l, _ := b.open(t)
			fn(t, b, l)
		})
	}
}

// eachBadger runs fn once per Badger backend as a subtest: for tests of what only
// Badger has (its transaction limits, its keys).
func eachBadger(t *testing.T, fn func(t *testing.T, b backend, l *Badger)) {
	for _, b := range backends {
		if b.postgres {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			l, _ := b.openBadger(t)
			fn(t, b, l)
		})
	}
}

// openDisk opens a group-committing store in a new temp dir.
func openDisk(t testing.TB) (*Badger, string) {
	t.Helper()
	return backend{name: "disk"}.openBadger(t)
}

var t0 = time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)

// rec builds a record with a small JSON payload.
func rec(typ string, n int) NewRecord {
	return NewRecord{Type: typ, Payload: fmt.Appendf(nil, `{"n":%d}`, n)}
}

// create makes a workflow with n records and state version 1.
func create(t testing.TB, l Log, tenant, workflow string, n int) Head {
	t.Helper()
	a := Append{Tenant: tenant, Workflow: workflow, Create: true, BumpVersion: true, Time: t0,
		State: []byte(`{"v":1}`)}
	for i := range n {
		a.Records = append(a.Records, rec("event", i+1))
	}
	h, err := l.Append(context.Background(), a)
	require.NoError(t, err)
	return h
}

// records collects the records of a workflow.
func records(t testing.TB, l Log, tenant, workflow string, from uint64) []Record {
	t.Helper()
	var out []Record
	require.NoError(t, l.Records(context.Background(), tenant, workflow, from, func(r Record) error {
		out = append(out, r)
		return nil
	}))
	return out
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
func rewriteRecord(txn *badger.Txn, key []byte, edit func(r *storedRecord)) error {
	item, err := txn.Get(key)
	if err != nil {
		return err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return err
	}
	r, err := decodeRecord(v)
	if err != nil {
		return err
	}
	edit(&r)
	return txn.Set(key, r.encode())
}

// reopen opens dir again after the Log on it was closed.
func reopen(t testing.TB, dir string) *Badger {
	t.Helper()
	l, err := OpenBadger(context.Background(), Options{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
