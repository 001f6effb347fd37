package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
)

// TestPostgresStore plays a pack's scenarios on a PostgreSQL store through --store,
// copies it to a directory and back into another database, and checks that every copy
// verifies, lists the same workflows and replays without a change.
func TestPostgresStore(t *testing.T) {
	pg := pgtest.URL(t)
	dir := filepath.Join("..", "..", "policies_test", "handoff", "support", "scenarios")
	// A few whole workflows: allowed, blocked, retried and escalated paths.
	var scenarios []string
	for _, name := range []string{"TST-01-valid-order-status-request", "TST-04-temporary-api-timeout", "32-reviewer-failure-after-deadline"} {
		scenarios = append(scenarios, filepath.Join(dir, name+".scenario"))
	}

	code, _, stderr := runArgs(t, "--store", pg, "workflows", "--tenant", "acme")
	require.Equal(t, exitError, code, "a database without the schema is refused")
	assert.Contains(t, stderr, "handoffctl migrate")

	code, stdout, stderr := runArgs(t, "migrate", "--store", pg)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "applied migration 1 log")
	code, stdout, _ = runArgs(t, "migrate", "--store", pg)
	require.Equal(t, exitOK, code)
	assert.NotContains(t, stdout, "applied", "a second migrate applies nothing")

	t.Setenv("HANDOFF_STORE", pg)
	code, _, stderr = runArgs(t, append([]string{"--store", pg, "run"}, scenarios...)...)
	require.Equal(t, exitOK, code, stderr)
	code, stdout, stderr = runArgs(t, "verify")
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stdout, "BROKEN")
	_, want, _ := runArgs(t, "-o", "json", "workflows", "--tenant", "acme")

	copyDir := filepath.Join(t.TempDir(), "copy")
	code, stdout, stderr = runArgs(t, "-o", "json", "copy", "--from", pg, "--to", copyDir)
	require.Equal(t, exitOK, code, stderr)
	var rep struct{ Chains, Records, Keys, IDs int }
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.Positive(t, rep.Chains)
	assert.Equal(t, rep.Records, rep.IDs, "every decision record is indexed by its id")

	pg2 := pgtest.URL(t)
	code, _, stderr = runArgs(t, "migrate", "--store", pg2)
	require.Equal(t, exitOK, code, stderr)
	code, stdout, stderr = runArgs(t, "copy", "--from", copyDir, "--to", pg2)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "every chain verifies in the target")
	assert.NotContains(t, stdout, "handoff:handoff@", "the password of a URL is never printed")

	code, _, stderr = runArgs(t, "copy", "--from", copyDir, "--to", pg2)
	require.Equal(t, exitError, code, "a copy into a store that is not empty")
	assert.Contains(t, stderr, "not empty")

	for _, where := range []string{copyDir, pg2} {
		code, got, stderr := runArgs(t, "--store", where, "-o", "json", "workflows", "--tenant", "acme")
		require.Equal(t, exitOK, code, stderr)
		assert.JSONEq(t, want, got, "the workflows of %s", where)
		code, stdout, stderr = runArgs(t, "--store", where, "replay", "--all", "--bundle", filepath.Join("..", ".."))
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stdout, "no decision would change", "replay on %s", where)
		assert.True(t, strings.HasPrefix(stdout, "replayed "), stdout)
	}
}

// TestServePostgresFlags serves a PostgreSQL store with --pg-max-conns over the URL's
// pool_max_conns: the pool is the size asked for, as /metrics shows. (The store's own
// tests check that the statement timeout asked for takes effect.)
func TestServePostgresFlags(t *testing.T) {
	pg := pgtest.URL(t)
	code, _, stderr := runArgs(t, "migrate", "--store", pg)
	require.Equal(t, exitOK, code, stderr)
	principals := filepath.Join(t.TempDir(), "principals.json")
	require.NoError(t, os.WriteFile(principals, []byte(`{"principals": []}`), 0o600))
	srv := startServe(t, pg+"&pool_max_conns=2&statement_timeout=1s", principals, "--pg-max-conns", "5", "--pg-statement-timeout", "3s")
	for path, want := range map[string]string{"/metrics": "handoff_store_pool_max_conns 5\n", "/health/ready": `"status": "ready"`} {
		resp, err := http.Get(srv.base + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Contains(t, string(body), want, path)
	}
}
