package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	handoffmcp "github.com/handoff-dev/handoff/service/mcp"
)

// bearer adds a token to every request of the MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTP: over streamable HTTP a session is opened only with a token of the service's
// principals, acts for that principal, and refuses a request of another token.
func TestHTTP(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(handoffmcp.NewHTTPHandler(shared.url, handoffmcp.HTTPOptions{}))
	defer srv.Close()
	open := func(token string) (*sdk.ClientSession, error) {
		tr := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1, DisableStandaloneSSE: true}
		return sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, nil).Connect(ctx, tr, nil)
	}
	for _, token := range []string{"", "tok-unknown"} {
		_, err := open(token)
		require.Error(t, err, "token %q", token)
		assert.Contains(t, err.Error(), "Unauthorized", "token %q", token)
	}

	cs, err := open("tok-acme/system/orchestrator")
	require.NoError(t, err)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 6)
	// The session's principal is the token's: a request of another actor is refused.
	res := call(t, cs, "validate", map[string]any{"request": map[string]any{"request_id": "req-http", "kind": "start", "tenant_id": "acme",
		"actor": map[string]any{"type": "agent", "id": "research_agent"}, "pack": "campaign"}})
	var v handoffmcp.Verdict
	structured(t, res, &v)
	assert.Contains(t, codes(v.Reasons), "IDENTITY_MISMATCH")

	// Another principal's token on this session is refused by the transport.
	req, err := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer tok-acme/agent/research_agent")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}
