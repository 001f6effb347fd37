package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func testTenantIsolation(t *testing.T, bs []Backend) {
	eachBackend(t, bs, func(t *testing.T, _ Backend, l store.Log) {
		ctx := context.Background()
		_, err := l.Append(ctx, store.Append{Tenant: "tenant-a", Workflow: "wf-1", Create: true, BumpVersion: true,
			Records: []store.NewRecord{Rec("start", 1)}, State: []byte(`{"secret":true}`),
			IdempotencyKey: "req-1", RequestDigest: "d", Time: T0})
		require.NoError(t, err)
		_, err = l.Audit(ctx, "tenant-a", Rec("broken", 1), T0)
		require.NoError(t, err)

		// Tenant B sees nothing of A's workflow.
		_, _, err = l.State(ctx, "tenant-b", "wf-1")
		require.ErrorIs(t, err, store.ErrNotFound)
		err = l.Records(ctx, "tenant-b", "wf-1", 0, func(store.Record) error {
			t.Error("tenant-b read a record of tenant-a")
			return nil
		})
		require.ErrorIs(t, err, store.ErrNotFound)
		_, err = l.Verify(ctx, "tenant-b", "wf-1")
		require.ErrorIs(t, err, store.ErrNotFound)
		_, err = l.Append(ctx, store.Append{Tenant: "tenant-b", Workflow: "wf-1", ExpectedVersion: 1,
			Records: []store.NewRecord{Rec("x", 1)}, Time: T0})
		require.ErrorIs(t, err, store.ErrNotFound)
		_, _, found, err := l.Idempotent(ctx, "tenant-b", "req-1")
		require.NoError(t, err)
		assert.False(t, found)
		require.NoError(t, l.Workflows(ctx, "tenant-b", func(wf string, _ store.Head) error {
			t.Errorf("tenant-b lists %q", wf)
			return nil
		}))
		require.NoError(t, l.AuditRecords(ctx, "tenant-b", 0, func(store.Record) error {
			t.Error("tenant-b read an audit record of tenant-a")
			return nil
		}))

		// B cannot take the id either; the owner index tells why.
		_, err = l.Append(ctx, store.Append{Tenant: "tenant-b", Workflow: "wf-1", Create: true,
			Records: []store.NewRecord{Rec("start", 1)}, Time: T0})
		require.ErrorIs(t, err, store.ErrExists)
		owner, found, err := l.Owner(ctx, "wf-1")
		require.NoError(t, err)
		assert.True(t, found)
		assert.Equal(t, "tenant-a", owner)
		_, found, err = l.Owner(ctx, "wf-2")
		require.NoError(t, err)
		assert.False(t, found)

		// A failed create leaves no trace of B.
		tenants, err := l.Tenants(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"tenant-a"}, tenants)

		rep, err := l.Verify(ctx, "tenant-a", "wf-1")
		require.NoError(t, err)
		assert.True(t, rep.OK, rep.Problem)
	})
}

// MustOwner returns the tenant that owns workflow, which must have one.
func MustOwner(t *testing.T, l store.Log, workflow string) string {
	t.Helper()
	owner, found, err := l.Owner(context.Background(), workflow)
	require.NoError(t, err)
	require.True(t, found, workflow)
	return owner
}
