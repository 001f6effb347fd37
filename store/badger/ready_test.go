package badger

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// TestReadyBadger: a Badger store is ready while open, unless opened read-only.
func TestReadyBadger(t *testing.T) {
	ctx := context.Background()
	l, dir := openDisk(t)
	require.NoError(t, l.Ready(ctx))
	require.NoError(t, l.Close())
	require.ErrorIs(t, l.Ready(ctx), store.ErrClosed)
	ro, err := Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.NoError(t, err)
	defer ro.Close()
	require.ErrorIs(t, ro.Ready(ctx), store.ErrReadOnly)
}
