package bundle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewWritesAWorkingBundle writes a pack into an empty directory: a whole bundle whose
// tables are fresh, which lints clean, whose Rego files are formatted and whose unit tests
// pass.
func TestNewWritesAWorkingBundle(t *testing.T) {
	dir := t.TempDir()
	wrote, err := New(dir, "review")
	require.NoError(t, err)
	assert.True(t, wrote.Bundle)
	for _, f := range []string{
		"contracts/cue.mod/module.cue", "contracts/core/pack.cue", "policies/handoff/core/decide.rego",
		"policies/handoff/lib/input.rego", "contracts/review/review.cue", "policies/handoff/review/review.rego",
		"policies/handoff/review/contract/data.json", "policies_test/handoff/review/review_test.rego",
		"policies_test/handoff/review/scenarios/01-happy-path.scenario",
		"policies_test/handoff/review/scenarios/02-review-cycles-exhausted.scenario",
	} {
		assert.Contains(t, wrote.Files, f)
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.True(t, IsBundleDir(dir))

	b := Dir(dir)
	require.NoError(t, CheckTables(b))
	findings, err := Lint(context.Background(), b, LintOptions{TestsDir: filepath.Join(dir, "policies_test")})
	require.NoError(t, err)
	assert.Empty(t, findings)
	for _, f := range wrote.Files {
		if strings.HasSuffix(f, ".rego") {
			src, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			formatted, err := Format(f, src)
			require.NoError(t, err)
			assert.Equal(t, string(formatted), string(src), "%s is not formatted", f)
		}
	}
	rep, err := Test(context.Background(), []string{filepath.Join(dir, "policies"), filepath.Join(dir, "policies_test")}, TestOptions{Packs: []string{"review"}})
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Failed)
	assert.GreaterOrEqual(t, rep.Passed, 8)
}

// TestNewIntoABundle adds a second pack to a bundle, writing only that pack, and refuses
// a pack the bundle has, a name that is no identifier and a reserved name.
func TestNewIntoABundle(t *testing.T) {
	dir := t.TempDir()
	_, err := New(dir, "review")
	require.NoError(t, err)

	wrote, err := New(dir, "merge_queue")
	require.NoError(t, err)
	assert.False(t, wrote.Bundle)
	for _, f := range wrote.Files {
		assert.True(t, strings.Contains(f, "/merge_queue/"), "%s is not the new pack's", f)
	}
	require.NoError(t, CheckTables(Dir(dir)))

	_, err = New(dir, "review")
	assert.ErrorContains(t, err, `already has a pack "review"`)
	for _, name := range []string{"Review", "1pack", "code-review", "review_test", "", "core", "lib", "package", "default"} {
		_, err := New(t.TempDir(), name)
		assert.Error(t, err, name)
	}
}

// TestNewOverwritesNothing writes no file at all when one of the pack's is there.
func TestNewOverwritesNothing(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "policies_test", "handoff", "review", "scenarios")
	require.NoError(t, os.MkdirAll(scen, 0o755))
	mine := filepath.Join(scen, "01-happy-path.scenario")
	require.NoError(t, os.WriteFile(mine, []byte("mine"), 0o644))

	_, err := New(dir, "review")
	require.ErrorContains(t, err, "01-happy-path.scenario exists")
	got, err := os.ReadFile(mine)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(got))
	assert.NoDirExists(t, filepath.Join(dir, "contracts"))
}
