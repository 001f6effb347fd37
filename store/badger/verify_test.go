package badger

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func TestVerifyNotFound(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	_, err := l.Verify(context.Background(), "acme", "nope")
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestVerifyLongChain(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	ctx := context.Background()
	create(t, l, "acme", "wf", 300)
	for v := uint64(1); v <= 100; v++ {
		// A logged block, then a state change at the same version.
		_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: v,
			Records: []store.NewRecord{rec("a", int(v)), rec("b", int(v))}, Time: t0})
		require.NoError(t, err)
		_, err = l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: v, BumpVersion: true,
			Records: []store.NewRecord{rec("c", int(v))}, Time: t0})
		require.NoError(t, err)
	}
	rep, err := l.Verify(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.True(t, rep.OK, rep.Problem)
	assert.Equal(t, uint64(300+100*3), rep.Records)
	_, head, err := l.State(ctx, "acme", "wf")
	require.NoError(t, err)
	assert.Equal(t, uint64(101), head.StateVersion)
}
