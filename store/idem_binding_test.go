package store

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdempotencyAnswerIsBoundToItsRecord: an idempotency key answers with the record it
// was bound to, and any change to the key's entry or to that record makes the lookup and
// a repeated append fail with ErrTampered instead of answering.
func TestIdempotencyAnswerIsBoundToItsRecord(t *testing.T) {
	ctx := context.Background()
	fresh := func(t *testing.T) (*Badger, Append, Head) {
		l, err := OpenBadger(ctx, Options{InMemory: true})
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		create(t, l, "acme", "wf-1", 2)
		a := Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, BumpVersion: true,
			Records: []NewRecord{rec("decision", 3)}, IdempotencyKey: "req-3", RequestDigest: "d3", Time: t0}
		h, err := l.Append(ctx, a)
		require.NoError(t, err)
		_, err = l.Append(ctx, Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 2, BumpVersion: true,
			Records: []NewRecord{rec("decision", 4)}, IdempotencyKey: "req-4", RequestDigest: "d4", Time: t0})
		require.NoError(t, err)
		return l, a, h
	}
	entry := func(t *testing.T, l *Badger) idemEntry {
		var e idemEntry
		var err error
		view(t, l, func(get func([]byte) []byte) { e, err = decodeIdem(get(idemKey("acme", "req-3"))) })
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
		var dup *DuplicateError
		require.ErrorAs(t, err, &dup)
		assert.Equal(t, answer, dup.Record)
	})

	tampers := map[string]func(t *testing.T, l *Badger){
		"entry names another record": func(t *testing.T, l *Badger) {
			e := entry(t, l)
			e.Seq = 4
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): e.encode()})
		},
		"entry names another workflow": func(t *testing.T, l *Badger) {
			e := entry(t, l)
			e.Workflow = "wf-2"
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): e.encode()})
		},
		"a byte of the entry's hash flipped": func(t *testing.T, l *Badger) {
			e := entry(t, l)
			b := []byte(e.Hash)
			b[len(b)-1] ^= 1
			e.Hash = string(b)
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): e.encode()})
		},
		"entry undecodable": func(t *testing.T, l *Badger) {
			set(t, l, map[string][]byte{string(idemKey("acme", "req-3")): {valueFormat, 1}})
		},
		"answer rewritten": func(t *testing.T, l *Badger) {
			var sr storedRecord
			view(t, l, func(get func([]byte) []byte) { sr, _ = decodeRecord(get(recordKey("acme", "wf-1", 3))) })
			sr.Payload = []byte(`{"n":3,"outcome":"block"}`)
			set(t, l, map[string][]byte{string(recordKey("acme", "wf-1", 3)): sr.encode()})
		},
		"answer rewritten and resealed": func(t *testing.T, l *Badger) {
			var sr storedRecord
			view(t, l, func(get func([]byte) []byte) { sr, _ = decodeRecord(get(recordKey("acme", "wf-1", 3))) })
			sr.Payload = []byte(`{"n":3,"outcome":"block"}`)
			sealRecord(domainRecord, "acme", "wf-1", &sr)
			set(t, l, map[string][]byte{string(recordKey("acme", "wf-1", 3)): sr.encode()})
		},
		"answer deleted": func(t *testing.T, l *Badger) {
			set(t, l, map[string][]byte{string(recordKey("acme", "wf-1", 3)): nil})
		},
	}
	for name, tamper := range tampers {
		t.Run(name, func(t *testing.T) {
			l, a, _ := fresh(t)
			tamper(t, l)
			_, _, _, err := l.Idempotent(ctx, "acme", "req-3")
			require.ErrorIs(t, err, ErrTampered)
			_, err = l.Append(ctx, a)
			require.ErrorIs(t, err, ErrTampered)
			assert.NotErrorIs(t, err, ErrDuplicate)
		})
	}
}

func TestIdempotencyKeysListsEveryKeyOfTheTenant(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, l Log) {
		ctx := context.Background()
		h := create(t, l, "acme", "wf-1", 1)
		for i, k := range []string{"b", "a/1", "a"} {
			_, err := l.Append(ctx, Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: uint64(1 + i), BumpVersion: true,
				Records: []NewRecord{rec("decision", i)}, IdempotencyKey: k, RequestDigest: "d-" + k, Time: t0})
			require.NoError(t, err)
		}
		_, err := l.Append(ctx, Append{Tenant: "other", Workflow: "wf-9", Create: true,
			Records: []NewRecord{rec("start", 1)}, IdempotencyKey: "z", RequestDigest: "dz", Time: t0})
		require.NoError(t, err)
		var got []Idempotency
		require.NoError(t, l.IdempotencyKeys(ctx, "acme", func(i Idempotency) error {
			got = append(got, i)
			return nil
		}))
		require.Len(t, got, 3)
		assert.Equal(t, []string{"a", "a/1", "b"}, []string{got[0].Key, got[1].Key, got[2].Key})
		assert.Equal(t, Idempotency{Key: "b", Digest: "d-b", Workflow: "wf-1", Seq: h.Seq + 1, Hash: got[2].Hash}, got[2])
		var hashes []string
		require.NoError(t, l.Records(ctx, "acme", "wf-1", 0, func(r Record) error {
			hashes = append(hashes, r.Hash)
			return nil
		}))
		assert.Equal(t, hashes[h.Seq], got[2].Hash)
	})
}

// view reads raw values of the database.
func view(t *testing.T, l *Badger, fn func(get func(key []byte) []byte)) {
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
