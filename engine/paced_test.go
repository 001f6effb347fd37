package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A paced Decider is whole when NewDecider returns: it decides as one compiled at once,
// and a pack that does not compile fails NewDecider, as it would unpaced.
func TestPacedDeciderIsWhole(t *testing.T) {
	ctx := context.Background()
	b := toyBundle(t, toyAllow)
	eager, err := NewDecider(ctx, DeciderOptions{Bundle: &b})
	require.NoError(t, err)
	paced, err := NewDecider(ctx, DeciderOptions{Bundle: &b, Paced: true})
	require.NoError(t, err)
	assert.Equal(t, eager.BundleDigest(), paced.BundleDigest())
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	want, _, err := eager.Decide(ctx, Input{Request: []byte(toyStart), Now: at, DecisionID: "d-1"})
	require.NoError(t, err)
	got, _, err := paced.Decide(ctx, Input{Request: []byte(toyStart), Now: at, DecisionID: "d-1"})
	require.NoError(t, err)
	assertSameJSON(t, want, got, "the same decision")

	broken := toyBundle(t, toyAllow+"\nbroken := {\n")
	_, err = NewDecider(ctx, DeciderOptions{Bundle: &broken})
	require.Error(t, err)
	_, err = NewDecider(ctx, DeciderOptions{Bundle: &broken, Paced: true})
	require.Error(t, err, "a pack that does not compile fails a paced compile too")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = NewDecider(cancelled, DeciderOptions{Bundle: &b, Paced: true})
	assert.ErrorIs(t, err, context.Canceled)
}
