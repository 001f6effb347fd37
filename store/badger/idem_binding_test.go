package badger

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// TestIdempotencyAnswerIsBoundToItsRecord: an idempotency key answers with the record it
// was bound to, and any change to the key's entry or to that record makes the lookup and
// a repeated append fail with ErrTampered instead of answering.
func TestIdempotencyAnswerIsBoundToItsRecord(t *testing.T) {
	ctx := context.Background()
	fresh := func(t *testing.T) (*Log, store.Append, store.Head) {
		l, err := Open(ctx, store.Options{InMemory: true})
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		create(t, l, "acme", "wf-1", 2)
		a := store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, BumpVersion: true,
			Records: []store.NewRecord{rec("decision", 3)}, IdempotencyKey: "req-3", RequestDigest: "d3", Time: t0}
		h, err := l.Append(ctx, a)
		require.NoError(t, err)
		_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 2, BumpVersion: true,
			Records: []store.NewRecord{rec("decision", 4)}, IdempotencyKey: "req-4", RequestDigest: "d4", Time: t0})
		require.NoError(t, err)
		return l, a, h
	}
	entry := func(t *testing.T, l *Log) chain.IdemEntry {
		var e chain.IdemEntry
		var err error
		view(t, l, func(get func([]byte) []byte) { e, err = chain.DecodeIdem(get(idemKey("acme", "req-3"))) })
		require.NoError(t, err)
		return e
	}

	t.Run("intact", func(t *testing.T) {
		l, a, h := fresh(t)
		digest, answer, found, err := l.Idempotent(ctx, "acme", "req-3")
		require.NoError(t, err)
		require.True(t, found)
		assert.Equal(t, "d3", digest)
		assert.Equal(t, h.Hash, answer.Hash)
		_, err = l.Append(ctx, a)
		var dup *store.DuplicateError
		require.ErrorAs(t, err, &dup)
		assert.Equal(t, answer, dup.Record)
	})

	tampers := map[string]func(t *testing.T, l *Log){
		"entry names another record": func(t *testing.T, l *Log) {
			e := entry(t, l)
			e.Seq = 4
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): e.Encode()})
		},
		"entry names another workflow": func(t *testing.T, l *Log) {
			e := entry(t, l)
			e.Workflow = "wf-2"
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): e.Encode()})
		},
		"a byte of the entry's hash flipped": func(t *testing.T, l *Log) {
			e := entry(t, l)
			b := []byte(e.Hash)
			b[len(b)-1] ^= 1
			e.Hash = string(b)
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): e.Encode()})
		},
		"entry undecodable": func(t *testing.T, l *Log) {
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): {chain.ValueFormat, 1}})
		},
		"answer rewritten": func(t *testing.T, l *Log) {
			var sr chain.Record
			view(t, l, func(get func([]byte) []byte) { sr, _ = chain.DecodeRecord(get(recordKey("acme", "wf-1", 3))) })
			sr.Payload = []byte(`{"n":3,"outcome":"block"}`)
			set(t, l, map[string][]byte{string(recordKey("acme", "wf-1", 3)): sr.Encode()})
		},
		"answer rewritten and resealed": func(t *testing.T, l *Log) {
			var sr chain.Record
			view(t, l, func(get func([]byte) []byte) { sr, _ = chain.DecodeRecord(get(recordKey("acme", "wf-1", 3))) })
			sr.Payload = []byte(`{"n":3,"outcome":"block"}`)
			chain.SealRecord(store.DomainRecord, "acme", "wf-1", &sr)
			set(t, l, map[string][]byte{string(recordKey("acme", "wf-1", 3)): sr.Encode()})
		},
		"answer deleted": func(t *testing.T, l *Log) {
			set(t, l, map[string][]byte{string(recordKey("acme", "wf-1", 3)): nil})
		},
	}
	for name, tamper := range tampers {
		t.Run(name, func(t *testing.T) {
			l, a, _ := fresh(t)
			tamper(t, l)
			_, _, _, err := l.Idempotent(ctx, "acme", "req-3")
			require.ErrorIs(t, err, store.ErrTampered)
			_, err = l.Append(ctx, a)
			require.ErrorIs(t, err, store.ErrTampered)
			assert.NotErrorIs(t, err, store.ErrDuplicate)
		})
	}
}

// view reads raw values of the database.
func view(t *testing.T, l *Log, fn func(get func(key []byte) []byte)) {
	t.Helper()
	require.NoError(t, l.db.View(func(txn *badger.Txn) error {
		fn(func(key []byte) []byte {
			v, _, err := getValue(txn, key)
			require.NoError(t, err)
			return v
		})
		return nil
	}))
}
