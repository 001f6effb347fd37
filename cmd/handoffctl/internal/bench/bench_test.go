package bench

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoScenarios is the repository's scenario directory.
var repoScenarios = filepath.Join("..", "..", "..", "..", "policies_test")

func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	_, err := Run(ctx, Options{ScenarioDir: filepath.Join(t.TempDir(), "policies_test")})
	assert.ErrorIs(t, err, ErrNoScenarioDir)

	_, err = Run(ctx, Options{ScenarioDir: repoScenarios, Modes: []Mode{"fast"}})
	assert.ErrorContains(t, err, `unknown mode "fast"`)

	_, err = Run(ctx, Options{ScenarioDir: repoScenarios, Concurrency: -1})
	assert.Error(t, err)

	if testing.Short() {
		t.Skip("the rest opens engines")
	}
	_, err = Run(ctx, Options{ScenarioDir: t.TempDir()})
	assert.ErrorIs(t, err, ErrNoScenarios)

	_, err = Run(ctx, Options{ScenarioDir: repoScenarios, Pack: "nope"})
	var unknown *UnknownPackError
	require.True(t, errors.As(err, &unknown), "%v", err)
	assert.Equal(t, "nope", unknown.Pack)
}

// TestRunDry plays a small load from the repository's scenarios in the modes that
// touch no disk.
func TestRunDry(t *testing.T) {
	if testing.Short() {
		t.Skip("opens engines")
	}
	rep, err := Run(context.Background(), Options{ScenarioDir: repoScenarios, Pack: "campaign", Decisions: 6,
		Concurrency: 2, Modes: []Mode{DryRun, RawOPA}})
	require.NoError(t, err)
	assert.Equal(t, []string{"campaign"}, rep.Load.Packs)
	assert.Equal(t, 6, rep.Load.Decisions)
	assert.Positive(t, rep.Load.Scenarios)
	require.Len(t, rep.Modes, 2)
	dry, raw := rep.Modes[0], rep.Modes[1]
	assert.Equal(t, "dry run", dry.Mode)
	assert.Equal(t, 6, dry.Decisions)
	assert.Zero(t, dry.Errors)
	assert.Equal(t, "raw OPA", raw.Mode)
	assert.Equal(t, 6, raw.Decisions)
	assert.Positive(t, dry.P50ms)
	assert.Contains(t, rep.Ratios, "dry_run_p50_over_raw_opa_p50")
	require.NotEmpty(t, rep.PolicyWork)
	counted := 0
	for _, w := range rep.PolicyWork {
		assert.Equal(t, "campaign", w.Pack)
		assert.NotEmpty(t, w.Kind)
		assert.Greater(t, w.ExpressionsPerDecision, 100.0, "%s %s: every decision runs the core's checks", w.Pack, w.Kind)
		counted += w.Decisions
	}
	assert.Equal(t, raw.Decisions, counted, "every evaluation is counted once")
	if readingsAvailable() {
		require.NotNil(t, dry.PeakRSSBytes)
		assert.Greater(t, *dry.PeakRSSBytes, int64(1<<20))
		require.NotNil(t, dry.CPUPerDecisionus)
		assert.Positive(t, *dry.CPUPerDecisionus)
	}
}
