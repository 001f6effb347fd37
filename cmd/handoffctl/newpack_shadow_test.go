package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// TestNewPackLimitShowsInShadow: the pack `new pack` writes, served with a copy whose
// review-cycle limit is one lower as its shadow, under its own scenarios played through
// the API: the shadow report shows the second return flipping, as replay does.
func TestNewPackLimitShowsInShadow(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	dir := t.TempDir()
	live, cand := filepath.Join(dir, "review"), filepath.Join(dir, "review-next")
	code, _, stderr := runArgs(t, "new", "pack", "review", "--dir", live)
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.CopyFS(cand, os.DirFS(live)))
	cue := filepath.Join(cand, "contracts", "review", "review.cue")
	src, err := os.ReadFile(cue)
	require.NoError(t, err)
	edited := strings.Replace(string(src), "max_review_cycles:      2", "max_review_cycles:      1", 1)
	require.NotEqual(t, string(src), edited)
	require.NoError(t, os.WriteFile(cue, []byte(edited), 0o644))
	code, _, stderr = runArgs(t, "--bundle", cand, "tables", "--write")
	require.Equal(t, 0, code, stderr)

	db := filepath.Join(dir, "db")
	srv := startServe(t, db, writePrincipals(t, dir, "tok-unused"), "--insecure-dev", "--bundle", live, "--shadow-bundle", cand)
	files, err := filepath.Glob(filepath.Join(live, "policies_test", "handoff", "review", "scenarios", "*.scenario"))
	require.NoError(t, err)
	require.Len(t, files, 2)
	require.Positive(t, playLoad(t, srv.base, files))
	require.Eventually(t, func() bool {
		var st engine.ShadowStats
		require.NoError(t, loadOverHTTP{base: srv.base}.call("GET", "/v1/admin/shadow", nil, &st))
		return st.Pending == 0 && st.QueueDepth == 0
	}, 60*time.Second, 20*time.Millisecond)
	require.Equal(t, 0, srv.stop())

	code, out, stderr := runArgs(t, "--db", db, "shadow", "report", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var shadow map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &shadow))
	code, out, stderr = runArgs(t, "--db", db, "--bundle", cand, "replay", "--recorded", live, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var replayed map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &replayed))

	require.Positive(t, shadow["flips"], "one review cycle fewer flips the second return: %v", shadow)
	for _, k := range []string{"changed", "flips", "transitions", "codes"} {
		assert.Equal(t, replayed[k], shadow[k], k)
	}
	assert.Contains(t, out, "REVIEW_CYCLES_EXHAUSTED")
}
