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

// TestFailingTestSummary breaks the tests of a new pack on purpose: each failing test is
// summarised by the expression that failed, the decision's outcome and reasons, and the
// rule that differed, with no trace unless asked for.
func TestFailingTestSummary(t *testing.T) {
	dir := t.TempDir()
	_, err := New(dir, "review")
	require.NoError(t, err)
	file := filepath.Join(dir, "policies_test", "handoff", "review", "review_test.rego")
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	broken := strings.Replace(string(src), `codes(d) == {"OUTPUT_INCOMPLETE"}`, `codes(d) == {"MISSING_CONFIDENCE"}`, 1)
	broken = strings.Replace(broken, "d := decide(handoff(1, change(1)), writing)\n\td.outcome == \"allow\"",
		"d := decide(handoff(1, object.union(change(1), {\"summary\": \"\"})), writing)\n\td.outcome == \"allow\"", 1)
	require.NotEqual(t, string(src), broken)
	require.NoError(t, os.WriteFile(file, []byte(broken), 0o644))

	paths := []string{filepath.Join(dir, "policies"), filepath.Join(dir, "policies_test")}
	rep, err := Test(context.Background(), paths, TestOptions{})
	require.NoError(t, err)
	require.Equal(t, 2, rep.Failed)
	failed := map[string]TestResult{}
	for _, r := range rep.Tests {
		if r.Result == "fail" {
			failed[r.Name] = r
		}
	}

	named := failed["test_change_without_summary_is_refused"]
	require.NotNil(t, named.Summary)
	assert.Empty(t, named.Trace)
	assert.Equal(t, `codes(d) == {"MISSING_CONFIDENCE"}`, named.Summary.Expected)
	assert.Regexp(t, `review_test\.rego:\d+$`, named.Summary.At)
	assert.Equal(t, "block", named.Summary.Outcome)
	assert.Equal(t, []string{"OUTPUT_INCOMPLETE: the change has no summary"}, named.Summary.Reasons)
	assert.Contains(t, named.Summary.Rule, "MISSING_CONFIDENCE")
	assert.Contains(t, named.Summary.Rule, "the test names it, the decision does not have it")

	blocked := failed["test_handoff_goes_to_review"]
	require.NotNil(t, blocked.Summary)
	assert.Equal(t, `d.outcome == "allow"`, blocked.Summary.Expected)
	assert.Equal(t, "block", blocked.Summary.Outcome)
	assert.Regexp(t, `^Change without a summary \(OUTPUT_INCOMPLETE, .*review\.rego:\d+\): its reason blocks the decision$`, blocked.Summary.Rule)

	rep, err = Test(context.Background(), paths, TestOptions{Explain: "fails"})
	require.NoError(t, err)
	for _, r := range rep.Tests {
		if r.Result == "fail" {
			assert.NotEmpty(t, r.Trace, r.Name)
			assert.NotNil(t, r.Summary, r.Name)
		}
	}
}

// TestNewPackTestsSeeTheReasonRule removes the rule that gives the new pack's revise its
// reason: the pack's own unit tests fail on the core rule that a revise says why, named
// in the summary.
func TestNewPackTestsSeeTheReasonRule(t *testing.T) {
	dir := t.TempDir()
	_, err := New(dir, "review")
	require.NoError(t, err)
	file := filepath.Join(dir, "policies", "handoff", "review", "review.rego")
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	i := strings.Index(string(src), "# METADATA\n# title: Change returned")
	j := strings.Index(string(src), "# METADATA\n# title: Review cycles exhausted")
	require.True(t, i > 0 && j > i)
	require.NoError(t, os.WriteFile(file, append(src[:i:i], src[j:]...), 0o644))

	rep, err := Test(context.Background(), []string{filepath.Join(dir, "policies"), filepath.Join(dir, "policies_test")}, TestOptions{})
	require.NoError(t, err)
	require.Positive(t, rep.Failed)
	for _, r := range rep.Tests {
		if r.Name == "test_revise_returns_the_change_with_a_reason" {
			require.Equal(t, "fail", r.Result)
			require.NotNil(t, r.Summary)
			assert.Equal(t, []string{"POLICY_ERROR: the pack proposed revise without any reason: a revise names why"}, r.Summary.Reasons)
			assert.Contains(t, r.Summary.Rule, "Malformed proposal (POLICY_ERROR")
			return
		}
	}
	t.Fatal("no test_revise_returns_the_change_with_a_reason")
}
