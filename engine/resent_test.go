package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The recorded answer to a request decided before says it is one (Resent), on both
// paths that give it, and its JSON stays the recorded decision's byte for byte.
func TestResentDecisionsSaySo(t *testing.T) {
	e := openToy(t, toyAllow)
	ctx := context.Background()
	first := submit(t, e, toyStart)
	assert.False(t, first.Resent(), "a new decision")

	// Found by the idempotency lookup before deciding.
	again := submit(t, e, toyStart)
	assert.True(t, again.Resent())
	assertSameBytes(t, first, again)
	dry, err := e.Evaluate(ctx, []byte(toyStart))
	require.NoError(t, err)
	assert.True(t, dry.Resent(), "a dry run of a decided request answers the recorded decision")

	// Decided while the key was free, then met in the store by its twin's record (the
	// store's DuplicateError): the twin's decision is the answer.
	body := []byte(toyHandoff("r-twin", 1, ""))
	res, prior, _, err := e.decideOnStore(ctx, body, e.opts.Clock(), nil, nil, false)
	require.NoError(t, err)
	require.Nil(t, prior, "the key was free")
	twin := submit(t, e, string(body))
	require.False(t, twin.Resent())
	d := res.Decision
	d.Recorded = true
	require.NoError(t, e.record(ctx, res, d))
	assert.True(t, d.Resent())
	assertSameBytes(t, twin, d)
}

// assertSameBytes holds two decisions to the same JSON, byte for byte.
func assertSameBytes(t *testing.T, want, got *Decision) {
	t.Helper()
	a, err := json.Marshal(want)
	require.NoError(t, err)
	b, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
}
