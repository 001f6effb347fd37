package badger_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
)

// A store opened read-only reads as the writer left it, refuses every write with
// ErrReadOnly, may be opened by several readers at once, and not while a writer holds it.
func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := badger.Open(ctx, store.Options{Dir: dir})
	require.NoError(t, err)
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	_, err = w.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", Create: true, BumpVersion: true,
		Records: []store.NewRecord{{Type: "decision", Payload: []byte(`{"n":1}`)}}, State: []byte(`{"v":1}`), Time: now})
	require.NoError(t, err)

	_, err = badger.Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.ErrorIs(t, err, store.ErrLocked, "a writer holds it")
	require.NoError(t, w.Close())

	r1, err := badger.Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.NoError(t, err)
	defer r1.Close()
	r2, err := badger.Open(ctx, store.Options{Dir: dir, ReadOnly: true})
	require.NoError(t, err, "readers share the store")
	defer r2.Close()
	for _, r := range []store.Log{r1, r2} {
		snap, head, err := r.State(ctx, "acme", "wf-1")
		require.NoError(t, err)
		assert.Equal(t, `{"v":1}`, string(snap))
		assert.Equal(t, uint64(1), head.StateVersion)
		rep, err := r.Verify(ctx, "acme", "wf-1")
		require.NoError(t, err)
		assert.True(t, rep.OK)
	}
	_, err = r1.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-1", ExpectedVersion: 1, BumpVersion: true,
		Records: []store.NewRecord{{Type: "decision", Payload: []byte(`{"n":2}`)}}, Time: now})
	assert.ErrorIs(t, err, store.ErrReadOnly)
	_, err = r1.Audit(ctx, "acme", store.NewRecord{Type: "security", Payload: []byte(`{}`)}, now)
	assert.ErrorIs(t, err, store.ErrReadOnly)
	_, err = badger.Open(ctx, store.Options{Dir: dir})
	assert.ErrorIs(t, err, store.ErrLocked, "no writer while readers hold it")
}
