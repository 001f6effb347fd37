package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// TestHostSetsTheLimits: a host sets the decoder's limits through Options.Limits, and a
// zero field keeps its default.
func TestHostSetsTheLimits(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		limits engine.Limits
		body   string
		code   string
	}{
		{engine.Limits{MaxBytes: 64}, explainStart, "PAYLOAD_TOO_LARGE"},
		{engine.Limits{MaxDepth: 1}, explainStart, "DEPTH_EXCEEDED"},
		{engine.Limits{MaxKeys: 4}, explainStart, "SCHEMA_INVALID"},
		{engine.Limits{MaxStringBytes: 16}, explainStart, "PAYLOAD_TOO_LARGE"},
	}
	for _, c := range cases {
		e, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true, Limits: c.limits})
		require.NoError(t, err)
		d, err := e.Evaluate(ctx, []byte(c.body))
		require.NoError(t, err)
		assert.Equal(t, engine.Block, d.Outcome, "%+v", c.limits)
		require.NotEmpty(t, d.Reasons)
		assert.Equal(t, c.code, d.Reasons[0].Code, "%+v", c.limits)
		require.NoError(t, e.Close())
	}
	// The twin: the same request under the defaults, and a field's default when zero.
	e, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true, Limits: engine.Limits{MaxBytes: len(explainStart)}})
	require.NoError(t, err)
	defer e.Close()
	d, err := e.Evaluate(ctx, []byte(explainStart))
	require.NoError(t, err)
	assert.Equal(t, engine.Allow, d.Outcome, "%+v", d.Reasons)
	assert.Equal(t, 1<<20, engine.DefaultLimits.MaxBytes)
}
