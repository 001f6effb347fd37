package badger

import (
	"bytes"
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// FuzzVerify replaces one record value, the head or the owner entry of a good chain
// with arbitrary bytes: Verify never panics or errs, and reports the chain intact only
// when what it holds is unchanged (a head may differ only in its state version, which
// the chain does not cover; Verify bounds it by the record count).
func FuzzVerify(f *testing.F) {
	const n = 5
	ctx := context.Background()
	l, err := Open(ctx, store.Options{InMemory: true})
	require.NoError(f, err)
	f.Cleanup(func() { _ = l.Close() })
	create(f, l, "t1", "wf", n)
	orig := map[string][]byte{}
	keys := [][]byte{headKey("t1", "wf"), ownerKey("wf")}
	for seq := uint64(1); seq <= n; seq++ {
		keys = append(keys, recordKey("t1", "wf", seq))
	}
	require.NoError(f, l.db.View(func(txn *badger.Txn) error {
		for _, k := range keys {
			v, _, err := getValue(txn, k)
			if err != nil {
				return err
			}
			orig[string(k)] = v
		}
		return nil
	}))
	for i, k := range keys {
		v := orig[string(k)]
		f.Add(uint8(i), v)
		if len(v) > 10 {
			flipped := bytes.Clone(v)
			flipped[len(v)/2] ^= 1
			f.Add(uint8(i), flipped)
		}
	}
	f.Add(uint8(0), chain.EncodeHead(store.Head{Seq: n, StateVersion: 1}))
	f.Fuzz(func(t *testing.T, which uint8, v []byte) {
		k := keys[int(which)%len(keys)]
		set := func(val []byte) {
			require.NoError(t, l.db.Update(func(txn *badger.Txn) error { return txn.Set(k, val) }))
		}
		if len(v) == 0 {
			v = []byte{0}
		}
		set(v)
		defer set(orig[string(k)])
		rep, err := l.Verify(ctx, "t1", "wf")
		if err != nil {
			// Only a gone workflow is an error: the owner entry renamed and nothing else.
			require.ErrorIs(t, err, store.ErrNotFound)
			return
		}
		if !rep.OK || bytes.Equal(v, orig[string(k)]) {
			return
		}
		if bytes.Equal(k, keys[0]) {
			h, err := chain.DecodeHead(v)
			require.NoError(t, err, "an undecodable head verified")
			was, _ := chain.DecodeHead(orig[string(k)])
			require.Equal(t, was.Seq, h.Seq, "a head naming another seq verified")
			require.Equal(t, was.Hash, h.Hash, "a head naming another hash verified")
			return
		}
		t.Fatalf("key %x changed to %x and the chain still verifies", k, v)
	})
}
