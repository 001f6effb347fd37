package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func testTenantIsolation(ctx context.Context, t *testing.T, _ Backend, l store.Log) {
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
}

// MustOwner returns the tenant that owns workflow, which must have one.
func MustOwner(t *testing.T, l store.Log, workflow string) string {
	t.Helper()
	owner, found, err := l.Owner(context.Background(), workflow)
	require.NoError(t, err)
	require.True(t, found, workflow)
	return owner
}

// testIDsCannotCollide uses ids built to collide under a naive "/" join
// or a naive escape: every pair must stay apart.
func testIDsCannotCollide(t *testing.T, bs []Backend) {
	pairs := [][2]string{
		{"a/b", "c"},
		{"a", "b/c"},
		{"a", "b"},
		{"a\x00", "b"},
		{"a", "\x00b"},
		{"a\x00\x01", "b"},
		{"a", "\x01b"},
		{"a\x00\xff", "b"},
		{"a\xff", "b"},
		{"a/w/b", "c"},
		{"a", "w/b/c"},
	}
	l := openFirst(t, bs)
	ctx := context.Background()
	for i, p := range pairs {
		// Distinct workflow ids (the owner index is global); the tenants
		// and the per-tenant keys are what could collide.
		wf := p[1] + "#" + string(rune('a'+i))
		_, err := l.Append(ctx, store.Append{Tenant: p[0], Workflow: wf, Create: true,
			Records: []store.NewRecord{Rec("start", i)}, IdempotencyKey: p[1], RequestDigest: p[0], Time: T0})
		require.NoError(t, err, "pair %q", p)
	}
	for i, p := range pairs {
		wf := p[1] + "#" + string(rune('a'+i))
		got := Records(t, l, p[0], wf, 0)
		require.Len(t, got, 1, "pair %q", p)
		assert.JSONEq(t, string(Rec("start", i).Payload), string(got[0].Payload))
		digest, _, found, err := l.Idempotent(ctx, p[0], p[1])
		require.NoError(t, err)
		assert.True(t, found)
		assert.Equal(t, p[0], digest)
		var listed []string
		require.NoError(t, l.Workflows(ctx, p[0], func(w string, _ store.Head) error {
			listed = append(listed, w)
			return nil
		}))
		assert.Contains(t, listed, wf)
		for _, w := range listed {
			assert.Equal(t, p[0], MustOwner(t, l, w), "tenant %q lists %q", p[0], w)
		}
	}
	tenants, err := l.Tenants(ctx)
	require.NoError(t, err)
	want := map[string]bool{}
	for _, p := range pairs {
		want[p[0]] = true
	}
	assert.Len(t, tenants, len(want))
	for _, tn := range tenants {
		assert.True(t, want[tn], "unexpected tenant %q", tn)
	}
}

func testWorkflowsAndTenantsOrder(t *testing.T, bs []Backend) {
	l := openFirst(t, bs)
	ctx := context.Background()
	for _, tw := range [][2]string{{"b", "w2"}, {"a", "w3"}, {"b", "w1"}, {"b", "w10"}, {"c", "x"}} {
		Create(t, l, tw[0], tw[1], 2)
	}
	var wfs []string
	require.NoError(t, l.Workflows(ctx, "b", func(w string, h store.Head) error {
		wfs = append(wfs, w)
		assert.Equal(t, uint64(2), h.Seq)
		return nil
	}))
	assert.Equal(t, []string{"w1", "w10", "w2"}, wfs)
	tenants, err := l.Tenants(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, tenants)
}
