package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/service"
)

// TestReferencesThroughServer resolves a hand-written request's references through
// --server, against the state the server holds, and refuses --at there.
func TestReferencesThroughServer(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	s, err := scenario.Load(filepath.Join("..", "..", "policies_test", "handoff", "campaign", "scenarios", "01-happy-path.scenario"))
	require.NoError(t, err)
	// file writes step i's request (0-based) with the workflow id, after edit.
	file := func(i int, edit func(map[string]any)) string {
		var req map[string]any
		require.NoError(t, json.Unmarshal(s.Steps[i].Request, &req))
		req["workflow_id"] = "wf-1"
		if edit != nil {
			edit(req)
		}
		b, err := json.Marshal(req)
		require.NoError(t, err)
		name := filepath.Join(dir, s.Steps[i].Name+".json")
		require.NoError(t, os.WriteFile(name, b, 0o600))
		return name
	}
	for i := range 2 {
		code, _, errOut := runArgs(t, "--db", db, "submit", file(i, nil))
		require.Equal(t, exitOK, code, errOut)
	}

	token := "tok-qa"
	doc := `{"principals": [{"name": "qa", "token_sha256": "` + service.HashToken(token) + `", "tenant_id": "acme", "type": "agent", "id": "qa_agent"}]}`
	principals := filepath.Join(dir, "principals.json")
	require.NoError(t, os.WriteFile(principals, []byte(doc), 0o600))
	base := startServe(t, db, principals).base
	t.Setenv("HANDOFF_TOKEN", token)

	review := file(2, func(req map[string]any) {
		req["artifacts"] = []any{"${ref:RESEARCH_BRIEF@latest}"}
		req["expected_version"] = "${state_version}"
	})
	const resolved = "resolved ${ref:RESEARCH_BRIEF@latest} → RESEARCH_BRIEF v1 id research-brief sha256:a2ebadb10262e18da34d5b19268848d70df3abfd79416300ad5a778dae4c553e\n" +
		"resolved ${state_version} → 2\n"

	code, out, errOut := runArgs(t, "--server", base, "-o", "json", "eval", review)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, resolved, errOut)
	assert.Contains(t, out, `"outcome": "allow"`)

	code, _, errOut = runArgs(t, "--server", base, "submit", "--at", "2026-11-02T09:00:00Z", review)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--at works on the store of --store, not through --server")

	code, out, errOut = runArgs(t, "--server", base, "submit", review)
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, resolved, errOut)
	assert.Regexp(t, `(?m)^recorded   yes$`, out)
	assert.Regexp(t, `(?m)^version    3$`, out)

	// Sent again, its ${state_version} resolves to 3 now: refused before the engine
	// would record a block for the reused request_id.
	code, out, errOut = runArgs(t, "--server", base, "submit", review)
	assert.Equal(t, exitNegative, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "resolved ${state_version} → 3\n")
	assert.Contains(t, errOut, "handoffctl submit: request_id c01-03 was recorded before with other values: its placeholders resolve differently now that the workflow has moved on; nothing was submitted")
	code, out, errOut = runArgs(t, "--server", base, "log", "--tenant", "acme", "--audit")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, "(no records)\n", out)

	// The same values again are the same request: its recorded answer.
	same := file(2, func(req map[string]any) {
		req["artifacts"] = []any{"${ref:RESEARCH_BRIEF@1}"}
		req["expected_version"] = 2
	})
	code, out, errOut = runArgs(t, "--server", base, "submit", same)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^recorded   earlier \(the recorded answer to request c01-03 of \S+: nothing new was recorded\)$`, out)

	missing := file(2, func(req map[string]any) {
		req["artifacts"] = []any{"${ref:RESEARCH_BRIEF@latest}"}
		req["workflow_id"] = "wf-2"
	})
	code, out, errOut = runArgs(t, "--server", base, "submit", missing)
	assert.Equal(t, exitNegative, code)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(errOut, "handoffctl submit: placeholder ${ref:RESEARCH_BRIEF@latest}: workflow wf-2 of tenant acme: "), errOut)
	assert.True(t, strings.HasSuffix(errOut, "(tenant acme has 1 workflow: wf-1); nothing was submitted\n"), errOut)
}
