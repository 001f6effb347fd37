package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A warmed pack decides as a cold one does, a pack the bundle does not have is ignored,
// and a pack whose policy does not compile fails its request as it would unwarmed.
func TestWarmedPacksDecideAsColdOnes(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	cold := openToy(t, toyAllow, func(o *Options) { o.LazyPolicies = true })
	warmed := openToy(t, toyAllow, func(o *Options) { o.LazyPolicies, o.Warm = true, []string{"toy", "no-such-pack"} })
	want, err := cold.EvaluateAt(ctx, []byte(toyStart), at)
	require.NoError(t, err)
	got, err := warmed.EvaluateAt(ctx, []byte(toyStart), at)
	require.NoError(t, err)
	want.DecisionID, got.DecisionID = "", ""
	assertSameJSON(t, want, got, "warming changes no decision")

	broken := openToy(t, "package handoff.toy\n\ndecision := x if x := 1 +\n", func(o *Options) { o.LazyPolicies, o.Warm = true, []string{"toy"} })
	d, err := broken.EvaluateAt(ctx, []byte(toyStart), at)
	require.NoError(t, err)
	require.Equal(t, "POLICY_ERROR", d.Reasons[0].Code, "a warmed pack that does not compile still fails closed")
}
