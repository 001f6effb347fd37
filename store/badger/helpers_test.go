package badger

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
	"github.com/handoff-dev/handoff/store/storetest"
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

// The suite's helpers, under the names these tests use.
var (
	t0           = storetest.T0
	rec          = storetest.Rec
	create       = storetest.Create
	records      = storetest.Records
	mustJSON     = storetest.MustJSON
	auditRecords = storetest.AuditRecords
	chains       = storetest.Chains
	idRec        = storetest.IDRec
	payloadID    = storetest.PayloadID
	decide       = storetest.Decide
	mustOwner    = storetest.MustOwner
	answered     = storetest.Answered
	claimsOf     = storetest.ClaimsOf
)
