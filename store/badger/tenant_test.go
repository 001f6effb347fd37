package badger

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// TestIDsCannotCollide uses ids built to collide under a naive "/" join
// or a naive escape: every pair must stay apart.
func TestIDsCannotCollide(t *testing.T) {
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
	l, _ := backend{name: "memory", memory: true}.open(t)
	ctx := context.Background()
	for i, p := range pairs {
		// Distinct workflow ids (the owner index is global); the tenants
		// and the per-tenant keys are what could collide.
		wf := p[1] + "#" + string(rune('a'+i))
		_, err := l.Append(ctx, store.Append{Tenant: p[0], Workflow: wf, Create: true,
			Records: []store.NewRecord{rec("start", i)}, IdempotencyKey: p[1], RequestDigest: p[0], Time: t0})
		require.NoError(t, err, "pair %q", p)
	}
	for i, p := range pairs {
		wf := p[1] + "#" + string(rune('a'+i))
		got := records(t, l, p[0], wf, 0)
		require.Len(t, got, 1, "pair %q", p)
		assert.JSONEq(t, string(rec("start", i).Payload), string(got[0].Payload))
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
			assert.Equal(t, p[0], mustOwner(t, l, w), "tenant %q lists %q", p[0], w)
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

func TestWorkflowsAndTenantsOrder(t *testing.T) {
	l, _ := backend{name: "memory", memory: true}.open(t)
	ctx := context.Background()
	for _, tw := range [][2]string{{"b", "w2"}, {"a", "w3"}, {"b", "w1"}, {"b", "w10"}, {"c", "x"}} {
		create(t, l, tw[0], tw[1], 2)
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
