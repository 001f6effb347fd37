package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/service"
)

// cmdScenarioHead writes the first N steps of a scenario file: scenario-head SRC N DST,
// so that a script can stop a workflow at any step of a pack's scenario.
func cmdScenarioHead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: scenario-head SRC N DST")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var s map[string]json.RawMessage
	ts.Check(json.Unmarshal(data, &s))
	var steps []json.RawMessage
	ts.Check(json.Unmarshal(s["steps"], &steps))
	if n < 1 || n > len(steps) {
		ts.Fatalf("%s has %d steps, not %d", args[0], len(steps), n)
	}
	s["steps"], err = json.Marshal(steps[:n])
	ts.Check(err)
	out, err := json.Marshal(s)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}

// TestNextThroughServer reads a workflow's state through a server (--server) and says
// what it waits for as it does on the store itself.
func TestNextThroughServer(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	defer eng.Close()
	sc, err := scenario.Load("../../policies_test/handoff/campaign/scenarios/01-happy-path.scenario")
	require.NoError(t, err)
	p := scenario.NewPlayer(eng)
	var st *engine.State
	for _, step := range sc.Steps[:8] {
		body, err := p.Render(ctx, step.Request)
		require.NoError(t, err)
		d, err := eng.Submit(ctx, body)
		require.NoError(t, err)
		p.Observe(body, d)
		st, err = eng.State(ctx, d.TenantID, d.WorkflowID)
		require.NoError(t, err)
	}
	require.Equal(t, "HUMAN_APPROVAL", st.Status)
	ps, err := service.ParsePrincipals([]byte(`{"principals": [{"name": "auditor", "token_sha256": "` +
		service.HashToken("tok-auditor") + `", "tenant_id": "acme", "type": "human", "id": "auditor", "admin": true}]}`))
	require.NoError(t, err)
	srv := httptest.NewServer(service.New(eng, service.Options{Principals: ps}))
	defer srv.Close()
	t.Setenv("HANDOFF_TOKEN", "tok-auditor")

	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--server", srv.URL, "next", "--tenant", "acme", st.WorkflowID}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, exitOK, code, stderr.String())
	w, err := eng.Decider().Waiting(st)
	require.NoError(t, err)
	var want bytes.Buffer
	printWaiting(&want, w)
	assert.Equal(t, want.String(), stdout.String())
	assert.Contains(t, stdout.String(), "${ref:QA_REPORT@2}")
}
