package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/service/client"
	handoffmcp "github.com/handoff-dev/handoff/service/mcp"
)

// The scenarios the MCP clients play: one workflow of each pack to its end.
var conformanceScenarios = map[string]string{
	"campaign":   "../../policies_test/handoff/campaign/scenarios/01-happy-path.scenario",
	"assessment": "../../policies_test/handoff/assessment/scenarios/eval-1-full-synthetic-pipeline.scenario",
	"support":    "../../policies_test/handoff/support/scenarios/00-full-happy-path.scenario",
	"video":      "../../policies_test/handoff/video/scenarios/01-happy-path.scenario",
}

// harness is a real service (an in-memory engine behind service.New over HTTP) whose
// principals are the actors of the scenarios, each with the token "tok-" + its key, and
// one MCP client session per principal, each to its own MCP server.
type harness struct {
	eng      *engine.Engine
	url      string
	mu       sync.Mutex
	now      time.Time // the engine's clock; zero is the real time
	sessions map[string]*sdk.ClientSession
	closers  []func() // end the sessions
}

type principal struct {
	Name   string   `json:"name"`
	Hash   string   `json:"token_sha256"`
	Tenant string   `json:"tenant_id"`
	Type   string   `json:"type"`
	ID     string   `json:"id"`
	Roles  []string `json:"roles,omitempty"`
}

// actorKey names the principal of a request's actor: tenant/type/id.
func actorKey(req map[string]any) string {
	a, _ := req["actor"].(map[string]any)
	return req["tenant_id"].(string) + "/" + a["type"].(string) + "/" + a["id"].(string)
}

// shared is the harness of every test of the package: one engine, one service.
var shared *harness

func TestMain(m *testing.M) {
	h, stop, err := newHarness()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared = h
	code := m.Run()
	stop()
	os.Exit(code)
}

func newHarness() (*harness, func(), error) {
	h := &harness{sessions: map[string]*sdk.ClientSession{}}
	eng, err := engine.Open(context.Background(), engine.Options{InMemory: true, LazyPolicies: true, Clock: h.clock})
	if err != nil {
		return nil, nil, err
	}
	h.eng = eng
	byKey := map[string]*principal{}
	for _, file := range conformanceScenarios {
		sc, err := scenario.Load(file)
		if err != nil {
			return nil, nil, err
		}
		for _, step := range sc.Steps {
			var req map[string]any
			if err := json.Unmarshal(step.Request, &req); err != nil {
				return nil, nil, err
			}
			key := actorKey(req)
			a := req["actor"].(map[string]any)
			p := byKey[key]
			if p == nil {
				p = &principal{Name: key, Hash: service.HashToken("tok-" + key), Tenant: req["tenant_id"].(string), Type: a["type"].(string), ID: a["id"].(string)}
				byKey[key] = p
			}
			roles, _ := a["roles"].([]any)
			for _, r := range roles {
				if !contains(p.Roles, r.(string)) {
					p.Roles = append(p.Roles, r.(string))
				}
			}
		}
	}
	list := make([]*principal, 0, len(byKey))
	for _, p := range byKey {
		list = append(list, p)
	}
	doc, err := json.Marshal(map[string]any{"principals": list})
	if err != nil {
		return nil, nil, err
	}
	ps, err := service.ParsePrincipals(doc)
	if err != nil {
		return nil, nil, err
	}
	srv := httptest.NewServer(service.New(eng, service.Options{Principals: ps}))
	h.url = srv.URL
	return h, func() {
		for _, stop := range h.closers {
			stop()
		}
		srv.Close()
		eng.Close()
	}, nil
}

func (h *harness) clock() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.now.IsZero() {
		return time.Now()
	}
	return h.now
}

func (h *harness) setNow(at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.now = at
}

// session returns the MCP client session of the principal key: a client of the Go SDK
// connected in memory to an MCP server bound to that principal's token.
func (h *harness) session(t *testing.T, key string) *sdk.ClientSession {
	t.Helper()
	if cs, ok := h.sessions[key]; ok {
		return cs
	}
	cs, stop := connect(t, h.url, "tok-"+key)
	h.sessions[key] = cs
	h.closers = append(h.closers, stop)
	return cs
}

// connect opens an MCP client session of the Go SDK, in memory, to an MCP server bound
// to token; stop ends it.
func connect(t *testing.T, url, token string) (cs *sdk.ClientSession, stop func()) {
	t.Helper()
	ctx := context.Background()
	srv, err := handoffmcp.New(ctx, client.New(url, token, nil))
	require.NoError(t, err)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cs, err = sdk.NewClient(&sdk.Implementation{Name: "conformance", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	return cs, func() {
		_ = cs.Close()
		_ = ss.Wait()
	}
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err, "tool %s", name)
	return res
}

// structured decodes a tool result's structured content into out.
func structured(t *testing.T, res *sdk.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out), "%s", b)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	require.NoError(t, dec.Decode(&v))
	return v
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func codes(rs []handoffmcp.Reason) []string {
	out := []string{}
	for _, r := range rs {
		if !contains(out, r.Code) {
			out = append(out, r.Code)
		}
	}
	sort.Strings(out)
	return out
}

// decisionOf returns the engine's decision a verdict carries.
func decisionOf(t *testing.T, v handoffmcp.Verdict) *engine.Decision {
	t.Helper()
	b, err := json.Marshal(v.Decision)
	require.NoError(t, err)
	var d engine.Decision
	require.NoError(t, json.Unmarshal(b, &d))
	return &d
}
