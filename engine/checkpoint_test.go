package engine_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

func TestCheckpointSignsAndDetects(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(t, err)
	defer e.Close()
	_, err = e.Submit(ctx, []byte(explainStart))
	require.NoError(t, err)
	heads, err := e.Heads(ctx)
	require.NoError(t, err)
	require.Len(t, heads, 1)
	assert.Equal(t, engine.ChainHead{Tenant: "acme", Workflow: "wf-explain", Seq: 1, Hash: heads[0].Hash}, heads[0])

	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	cp, err := engine.NewCheckpoint(heads, time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), priv)
	require.NoError(t, err)
	require.NoError(t, cp.Verify(pub))
	require.NoError(t, cp.Verify(nil))
	findings, err := e.CheckCheckpoint(ctx, cp)
	require.NoError(t, err)
	assert.Empty(t, findings)

	// The log grows: it still extends the checkpoint.
	_, err = e.Submit(ctx, []byte(explainCancel("req-c1", "sam.intern", "viewer")))
	require.NoError(t, err)
	findings, err = e.CheckCheckpoint(ctx, cp)
	require.NoError(t, err)
	assert.Empty(t, findings)

	// Any edit of the signed content breaks the signature.
	other, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	assert.ErrorIs(t, cp.Verify(other), engine.ErrCheckpointSignature)
	forged := *cp
	forged.Heads = []engine.ChainHead{{Tenant: "acme", Workflow: "wf-explain", Seq: 1, Hash: "sha256:00"}}
	assert.ErrorIs(t, forged.Verify(pub), engine.ErrCheckpointSignature)

	// A head the store does not hold: a rewritten chain; a head beyond it: truncated.
	for _, tc := range []struct {
		head engine.ChainHead
		kind string
	}{
		{engine.ChainHead{Tenant: "acme", Workflow: "wf-explain", Seq: 1, Hash: "sha256:00"}, "rewritten"},
		{engine.ChainHead{Tenant: "acme", Workflow: "wf-explain", Seq: 9, Hash: "sha256:00"}, "truncated"},
		{engine.ChainHead{Tenant: "acme", Workflow: "wf-gone", Seq: 1, Hash: "sha256:00"}, "missing"},
		{engine.ChainHead{Tenant: "acme", Seq: 1, Hash: "sha256:00"}, "missing"},
	} {
		cp, err := engine.NewCheckpoint([]engine.ChainHead{tc.head}, time.Now(), priv)
		require.NoError(t, err)
		findings, err := e.CheckCheckpoint(ctx, cp)
		require.NoError(t, err)
		require.Len(t, findings, 1, "%+v", tc.head)
		assert.Equal(t, tc.kind, findings[0].Kind, findings[0].Problem)
	}
}

func TestMerkleRootIsRFC6962(t *testing.T) {
	empty, err := engine.MerkleRoot(nil)
	require.NoError(t, err)
	sum := sha256.Sum256(nil)
	assert.Equal(t, "sha256:"+hex.EncodeToString(sum[:]), empty)

	heads := []engine.ChainHead{{Tenant: "a", Workflow: "w1", Seq: 1, Hash: "h1"}, {Tenant: "a", Workflow: "w2", Seq: 2, Hash: "h2"}, {Tenant: "b", Seq: 3, Hash: "h3"}}
	leaf := func(h engine.ChainHead) []byte {
		b := []byte(`{"hash":"` + h.Hash + `","seq":` + string(rune('0'+h.Seq)) + `,"tenant_id":"` + h.Tenant + `","workflow_id":"` + h.Workflow + `"}`)
		s := sha256.Sum256(append([]byte{0}, b...))
		return s[:]
	}
	node := func(l, r []byte) []byte {
		s := sha256.Sum256(append(append([]byte{1}, l...), r...))
		return s[:]
	}
	want := node(node(leaf(heads[0]), leaf(heads[1])), leaf(heads[2]))
	got, err := engine.MerkleRoot(heads)
	require.NoError(t, err)
	assert.Equal(t, "sha256:"+hex.EncodeToString(want), got)
}
