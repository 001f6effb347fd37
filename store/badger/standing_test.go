package badger

import (
	"context"
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/internal/chain"
)

// TestFormat3StoreOpens marks a store written before heads kept their standing record
// as the current format at Open, and reads its heads as unknown; read-only it opens
// as it is.
func TestFormat3StoreOpens(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	h := decide(t, l, "wf", 0, "allow")
	require.NoError(t, l.Close())
	tamper(t, dir, func(txn *badger.Txn) error {
		old := chain.EncodeHead(store.Head{Seq: h.Seq, StateVersion: h.StateVersion, Hash: h.Hash, StandingUnknown: true})
		if old[0] != 0x01 {
			return fmt.Errorf("an unknown standing record is written as format 3 wrote heads, not %x", old[0])
		}
		if err := txn.Set(headKey("acme", "wf"), old); err != nil {
			return err
		}
		return txn.Set([]byte(formatKey), []byte(formatIndexed))
	})
	ro, err := Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.NoError(t, err)
	_, got, err := ro.State(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.True(t, got.StandingUnknown)
	require.NoError(t, ro.Close())

	l = reopen(t, dir)
	assert.Equal(t, formatVersion, formatMark(t, l))
	_, got, err = l.State(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.True(t, got.StandingUnknown)
	assert.Equal(t, h.Hash, got.Hash)
}
