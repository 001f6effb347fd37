package main

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service"
)

// TestMCPStdio runs handoffctl mcp over stdio against a server: an MCP client of the Go
// SDK lists its tools and prompts and starts a workflow through the submit tool.
func TestMCPStdio(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer eng.Close()
	ps, err := service.ParsePrincipals([]byte(`{"principals": [{"name": "orchestrator", "token_sha256": "` +
		service.HashToken("tok-orchestrator") + `", "tenant_id": "acme", "type": "system", "id": "orchestrator"}]}`))
	require.NoError(t, err)
	srv := httptest.NewServer(service.New(eng, service.Options{Principals: ps}))
	defer srv.Close()

	code, _, errOut := runArgs(t, "mcp")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--server URL is required")
	t.Setenv("HANDOFF_TOKEN", "")
	code, _, errOut = runArgs(t, "--server", srv.URL, "mcp")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "no token")
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("tok-wrong\n"), 0o600))
	code, _, errOut = runArgs(t, "--server", srv.URL, "mcp", "--token-file", tokenFile)
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "UNAUTHENTICATED")

	require.NoError(t, os.WriteFile(tokenFile, []byte("tok-orchestrator\n"), 0o600))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--server", srv.URL, "mcp", "--token-file", tokenFile}, inR, outW, &stderr)
		outW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err, stderr.String())
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 6)
	prompts, err := cs.ListPrompts(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, prompts.Prompts, 4)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "submit", Arguments: map[string]any{"request": map[string]any{
		"request_id": "req-mcp-start", "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing", "trace_id": "trace-mcp",
		"actor": map[string]any{"type": "system", "id": "orchestrator"}, "pack": "campaign", "subject_id": "s1", "workflow_id": "wf-mcp",
		"brief": map[string]any{"client": "Brightbrew", "business_objective": "Grow trial sign-ups", "product": "Brightbrew Cold Brew"}}}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "Outcome: allow")
	st, err := eng.State(ctx, "acme", "wf-mcp")
	require.NoError(t, err)
	assert.Equal(t, "RESEARCH", st.Status)
	require.NoError(t, cs.Close())
	inW.Close()
	assert.Equal(t, exitOK, <-done, stderr.String())
	assert.False(t, strings.Contains(stderr.String(), "panic"))
}
