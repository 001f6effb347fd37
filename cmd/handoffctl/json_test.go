package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONOutput holds every command to what its help promises for -o json: one JSON
// document on stdout, or JSON lines for the commands that stream; and an error as one
// JSON object on stderr.
func TestJSONOutput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	scenario := filepath.Join("..", "..", "policies_test", "handoff", "campaign", "scenarios", "01-happy-path.scenario")
	code, _, stderr := runArgs(t, "--db", db, "run", scenario)
	require.Equal(t, exitOK, code, stderr)

	code, out, stderr := runArgs(t, "--db", db, "-o", "json", "log", "--tenant", "acme", "wf-brightbrew-01")
	require.Equal(t, exitOK, code, stderr)
	var log logDocument
	require.NoError(t, json.Unmarshal([]byte(out), &log))
	require.NotEmpty(t, log.Entries)
	decision := log.Entries[len(log.Entries)-1].Decision.DecisionID
	request := filepath.Join(dir, "request.json")
	require.NoError(t, os.WriteFile(request, log.Entries[len(log.Entries)-1].Request, 0o644))
	backup := filepath.Join(dir, "backup")
	key := filepath.Join(dir, "keys", "signer")
	require.NoError(t, os.Mkdir(filepath.Dir(key), 0o755))

	one := [][]string{
		{"packs"},
		{"check"},
		{"reasons"},
		{"validate", request},
		{"eval", request},
		{"submit", request},
		{"state", "--tenant", "acme", "wf-brightbrew-01"},
		{"log", "--tenant", "acme", "--audit"},
		{"verify"},
		{"verify", "--tenant", "acme"},
		{"workflows", "--tenant", "acme"},
		{"explain", decision},
		{"replay", "--bundle", filepath.Join("..", ".."), "--all"},
		{"backup", "--out", backup},
		{"keygen", "--out", key},
		{"checkpoint", "--key", key, "--out", filepath.Join(dir, "cp.json")},
		{"verify", "--checkpoint", filepath.Join(dir, "cp.json"), "--pub", key + ".pub"},
		{"token"},
		{"version"},
	}
	for _, args := range one {
		code, out, stderr := runArgs(t, append([]string{"--db", db, "-o", "json"}, args...)...)
		require.Equal(t, exitOK, code, "handoffctl %s: %s", strings.Join(args, " "), stderr)
		assert.Equal(t, 1, jsonDocuments(t, out), "handoffctl -o json %s prints one JSON document:\n%s", strings.Join(args, " "), out)
	}
	code, out, stderr = runArgs(t, "--db", filepath.Join(dir, "restored"), "-o", "json", "restore", "--from", backup)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 1, jsonDocuments(t, out), "restore -o json:\n%s", out)

	// The streams: one object per line.
	code, out, stderr = runArgs(t, "--db", filepath.Join(dir, "db2"), "-o", "json", "run", scenario)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	assert.Equal(t, len(lines), jsonDocuments(t, out))
	for _, l := range lines {
		assert.True(t, json.Valid([]byte(l)), "a line of run -o json is one JSON object: %s", l)
	}

	// An error is one JSON object on stderr, and nothing on stdout.
	code, out, stderr = runArgs(t, "--db", db, "-o", "json", "state", "--tenant", "acme", "wf-nope")
	assert.Equal(t, exitError, code)
	assert.Empty(t, out)
	var failure failureJSON
	require.NoError(t, json.Unmarshal([]byte(stderr), &failure), stderr)
	assert.Equal(t, exitError, failure.Exit)
	assert.Contains(t, failure.Error, "workflow not found")
	assert.NotEmpty(t, failure.Hint)
}

// jsonDocuments counts the JSON documents in s, failing the test when s is not a
// sequence of them.
func jsonDocuments(t *testing.T, s string) int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	n := 0
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return n
		}
		if !assert.NoError(t, err, "not JSON:\n%s", s) {
			return n
		}
		n++
	}
}
