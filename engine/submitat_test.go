package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSubmitAtOverridesTheClock(t *testing.T) {
	clock := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	e := openToy(t, toyAllow, func(o *Options) { o.Clock = func() time.Time { return clock } })
	ctx := context.Background()
	d, err := e.Evaluate(ctx, []byte(toyStart))
	require.NoError(t, err)
	assert.Equal(t, "2026-11-02T09:00:00.000Z", d.DecidedAt)
	at := time.Date(2026, 11, 2, 9, 45, 30, 0, time.FixedZone("CET", 3600))
	d, err = e.SubmitAt(ctx, []byte(toyStart), at)
	require.NoError(t, err)
	assert.Equal(t, "2026-11-02T08:45:30.000Z", d.DecidedAt, "recorded in UTC")
	var now string
	require.NoError(t, e.History(ctx, "t1", "wf-1", func(en Entry) error { now = en.Now; return nil }))
	assert.Equal(t, "2026-11-02T08:45:30.000Z", now, "the policy saw the same instant")
}
