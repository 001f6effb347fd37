package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/enginetest"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/testsize"
)

// writeStricterSupport writes the shipped bundle to dir with the support pack's
// cost budget lowered from 500000 to 5000 micros, in its CUE source and exported
// tables: a workflow that spends more is stopped.
func writeStricterSupport(t *testing.T, dir string) {
	t.Helper()
	enginetest.WriteBundle(t, enginetest.EditedBundle(t, enginetest.Edits{Contracts: map[string]enginetest.Edit{
		"support/config.cue": enginetest.Replace("cost_budget_micros:       500000\n", "cost_budget_micros:       5000\n")}}), dir)
	require.NoError(t, engine.CheckTables(engine.DirBundle(dir)))
}

// loadOverHTTP is a scenario.Engine on a server's API that takes any answer: a request
// refused (400, 413) ends its scenario, which is load, not a test of the packs.
type loadOverHTTP struct{ base string }

func (h loadOverHTTP) call(method, path string, body []byte, out any) error {
	req, err := http.NewRequest(method, h.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

func (h loadOverHTTP) Submit(_ context.Context, body []byte) (*engine.Decision, error) {
	var d engine.Decision
	return &d, h.call("POST", "/v1/requests", body, &d)
}

func (h loadOverHTTP) SubmitAt(context.Context, []byte, time.Time) (*engine.Decision, error) {
	return nil, errors.New("a server takes no client's clock")
}

func (h loadOverHTTP) State(_ context.Context, tenant, workflow string) (*engine.State, error) {
	var st engine.State
	return &st, h.call("GET", "/v1/tenants/"+url.PathEscape(tenant)+"/workflows/"+url.PathEscape(workflow), nil, &st)
}

// playLoad plays the scenario files through the server, each under a tenant of its
// own, and returns how many requests were decided.
func playLoad(t *testing.T, base string, files []string) int {
	t.Helper()
	api := loadOverHTTP{base: base}
	ctx := context.Background()
	decided := 0
	for i, f := range files {
		sc, err := scenario.Load(f)
		require.NoError(t, err)
		p := scenario.NewPlayer(api)
		for _, st := range sc.Steps {
			raw := st.Request
			var req map[string]any
			if json.Unmarshal(raw, &req) == nil {
				if _, ok := req["tenant_id"].(string); ok {
					req["tenant_id"] = fmt.Sprintf("t%d", i)
					raw, err = json.Marshal(req)
					require.NoError(t, err)
				}
			}
			body, err := p.Render(ctx, raw)
			if err != nil {
				break
			}
			d, err := api.Submit(ctx, body)
			if err != nil {
				break
			}
			decided++
			p.Observe(body, d)
		}
	}
	return decided
}

// TestShadowReportListsReplaysFlips is the shadow's promise: a real serve with a shadow
// bundle that changes one rule of one pack, under a load of the four packs' scenarios
// played through the API; once the shadow's queue is drained, `shadow report` lists
// exactly the changes (decisions, transitions, reasons) that `replay` with the same
// candidate reports on the same store, through the server and from the log alike.
func TestShadowReportListsReplaysFlips(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	dir := t.TempDir()
	cand := filepath.Join(dir, "candidate")
	writeStricterSupport(t, cand)
	db := filepath.Join(dir, "db")
	srv := startServe(t, db, writePrincipals(t, dir, "tok-unused"), "--insecure-dev", "--shadow-bundle", cand, "--shadow-queue", "100000")
	assert.Contains(t, srv.stdout.String(), "shadow: bundle "+cand)

	var files []string
	for _, pack := range []string{"assessment", "campaign", "support", "video"} {
		fs, err := filepath.Glob(filepath.Join("..", "..", "policies_test", "handoff", pack, "scenarios", "*.scenario"))
		require.NoError(t, err)
		if pack == "support" {
			// The pack the candidate changes: every scenario with HANDOFF_FULL=1.
			files = append(files, testsize.Sample(fs, 4)...)
			continue
		}
		// The others' decisions are load the shadow finds unchanged: a quarter of them.
		for i := 0; i < len(fs); i += 4 {
			files = append(files, fs[i])
		}
	}
	decided := playLoad(t, srv.base, files)
	t.Logf("%d scenarios, %d requests decided", len(files), decided)

	status := func() engine.ShadowStats {
		var st engine.ShadowStats
		require.NoError(t, loadOverHTTP{base: srv.base}.call("GET", "/v1/admin/shadow", nil, &st))
		return st
	}
	require.Eventually(t, func() bool { st := status(); return st.Pending == 0 && st.QueueDepth == 0 }, 60*time.Second, 20*time.Millisecond)
	st := status()
	assert.Zero(t, st.Dropped)
	assert.Zero(t, st.Errors)
	assert.True(t, st.Running)
	assert.Positive(t, st.Disagreed)

	t.Setenv("HANDOFF_TOKEN", "any: the server is --insecure-dev")
	code, out, stderr := runArgs(t, "--server", srv.base, "shadow", "report", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var viaServer map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &viaServer))
	require.Equal(t, 0, srv.stop())

	code, out, stderr = runArgs(t, "--db", db, "shadow", "report", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var fromLog map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &fromLog))
	code, out, stderr = runArgs(t, "--db", db, "--bundle", cand, "replay", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var replayed map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &replayed))

	require.Positive(t, replayed["flips"], "the smaller budget flips some decision")
	for _, k := range []string{"changed", "flips", "loosened", "transitions", "codes"} {
		assert.Equal(t, replayed[k], viaServer[k], "%s through the server", k)
		assert.Equal(t, replayed[k], fromLog[k], "%s from the log", k)
	}
	assert.Equal(t, float64(st.Disagreed), replayed["changed"])
	packs := fromLog["packs"].([]any)
	require.NotEmpty(t, packs)
	for _, p := range packs {
		assert.Equal(t, "support", p.(map[string]any)["pack"])
	}

	code, out, _ = runArgs(t, "--db", db, "shadow", "report")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "by pack and kind")
	assert.Regexp(t, `would change: \d+ change outcome`, out)
	assert.True(t, strings.Contains(out, "-") && strings.Contains(out, "+"), "reasons lost and gained: %s", out)
}

// TestShadowFlags: the shadow's flags are refused, with what to do, when they cannot be
// honoured.
func TestShadowFlags(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	code, _, stderr := runArgs(t, "--db", db, "serve", "--insecure-dev", "--addr", "127.0.0.1:0", "--shadow-log", filepath.Join(dir, "s.ndjson"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--shadow-log goes with --shadow-bundle")
	code, _, stderr = runArgs(t, "--db", db, "serve", "--insecure-dev", "--addr", "127.0.0.1:0", "--shadow-bundle", filepath.Join(dir, "nowhere"))
	assert.NotZero(t, code)
	assert.Contains(t, stderr, "has no contracts directory")
	code, _, stderr = runArgs(t, "--db", "postgres://handoff@127.0.0.1:1/none", "shadow", "report")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--from FILE")
	code, _, stderr = runArgs(t, "--db", db, "shadow", "report")
	assert.NotZero(t, code, "no log yet")
	assert.Contains(t, stderr, "--shadow-bundle DIR writes the shadow log")
	code, _, _ = runArgs(t, "--db", db, "shadow", "summary")
	assert.Equal(t, exitUsage, code)
}
