package service_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/enginetest"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/service"
)

// smallerSupportBudget is the shipped bundle with the support pack's cost budget
// lowered from 500000 to 5000 micros (CUE source and exported tables).
func smallerSupportBudget(t *testing.T) engine.Bundle {
	t.Helper()
	return enginetest.EditedBundle(t, enginetest.Edits{Contracts: map[string]enginetest.Edit{
		"support/config.cue": enginetest.Replace("cost_budget_micros:       500000\n", "cost_budget_micros:       5000\n")}})
}

// TestShadowAdminAPI serves an engine with a shadow of a smaller support budget, plays
// support scenarios, and reads the shadow as an admin: its counters, its log (whole and
// filtered), its metrics; others are refused 403. Promote makes the candidate live.
func TestShadowAdminAPI(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), LazyPolicies: true})
	require.NoError(t, err)
	b := smallerSupportBudget(t)
	cand, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	s, err := e.StartShadow(cand, engine.ShadowOptions{Log: filepath.Join(t.TempDir(), "shadow.ndjson")})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	reg.MustRegister(service.ShadowCollector(e, s))
	a := serveShadow(t, e, service.Options{Principals: principals(t), Shadow: s, Registerer: reg, Gatherer: reg})
	live := e.Decider().BundleDigest()

	files, err := filepath.Glob("../policies_test/handoff/support/scenarios/*.scenario")
	require.NoError(t, err)
	for _, f := range files[:min(len(files), 8)] {
		sc, err := scenario.Load(f)
		require.NoError(t, err)
		_ = scenario.Run(ctx, e, sc, nil) // load: whether it plays as written does not matter
	}
	var st engine.ShadowStats
	require.Eventually(t, func() bool {
		status, out := a.call("GET", "/v1/admin/shadow", adminToken, "", nil)
		require.Equal(t, http.StatusOK, status, "%s", out)
		require.NoError(t, json.Unmarshal(out, &st))
		return st.Pending == 0
	}, 60*time.Second, 20*time.Millisecond)
	assert.Equal(t, cand.BundleDigest(), st.CandidateDigest)
	assert.Equal(t, live, st.LiveDigest)
	assert.True(t, st.Running)
	require.Positive(t, st.Disagreed)

	for _, route := range []string{"GET /v1/admin/shadow", "GET /v1/admin/shadow/disagreements", "POST /v1/admin/shadow/promote"} {
		method, path, _ := bytes.Cut([]byte(route), []byte(" "))
		status, out := a.call(string(method), string(path), hostToken, "", nil)
		assert.Equal(t, http.StatusForbidden, status, "%s: %s", route, out)
	}

	lines := func(query string) []engine.ShadowDisagreement {
		status, out := a.call("GET", "/v1/admin/shadow/disagreements"+query, adminToken, "", nil)
		require.Equal(t, http.StatusOK, status, "%s", out)
		var ds []engine.ShadowDisagreement
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var d engine.ShadowDisagreement
			require.NoError(t, json.Unmarshal(sc.Bytes(), &d))
			ds = append(ds, d)
		}
		return ds
	}
	all := lines("")
	require.Len(t, all, int(st.Disagreed))
	for _, d := range all {
		assert.Equal(t, "support", d.Pack)
		assert.Equal(t, live, d.Live.BundleDigest)
		assert.Equal(t, cand.BundleDigest(), d.Candidate.BundleDigest)
	}
	assert.Len(t, lines("?pack=support&tenant="+all[0].Tenant), len(all))
	assert.Empty(t, lines("?pack=campaign"))
	assert.Empty(t, lines("?tenant=nobody"))

	resp, err := http.Get(a.srv.URL + "/metrics")
	require.NoError(t, err)
	metrics, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Contains(t, string(metrics), `handoff_shadow_decisions_total{result="disagreed"} `)
	assert.Regexp(t, `handoff_shadow_disagreements_total\{code="[^"]+",kind="[a-z]+",pack="support"\} \d+`, string(metrics))
	assert.Contains(t, string(metrics), "handoff_shadow_queue_dropped_total 0")
	assert.Contains(t, string(metrics), "handoff_shadow_queue_depth 0")

	status, out := a.call("POST", "/v1/admin/shadow/promote", adminToken, "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)
	var p struct {
		LiveDigest     string `json:"live_digest"`
		PreviousDigest string `json:"previous_digest"`
	}
	require.NoError(t, json.Unmarshal(out, &p))
	assert.Equal(t, cand.BundleDigest(), p.LiveDigest)
	assert.Equal(t, live, p.PreviousDigest)
	assert.Equal(t, cand.BundleDigest(), e.Decider().BundleDigest())
	status, out = a.call("GET", "/v1/admin/shadow", adminToken, "", nil)
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, json.Unmarshal(out, &st))
	assert.False(t, st.Running)
	assert.Equal(t, cand.BundleDigest(), st.LiveDigest)
}

// TestShadowAbsent: a server without a shadow answers its routes 404 to an admin.
func TestShadowAbsent(t *testing.T) {
	a := newAPI(t)
	for _, route := range [][2]string{{"GET", "/v1/admin/shadow"}, {"GET", "/v1/admin/shadow/disagreements"}, {"POST", "/v1/admin/shadow/promote"}} {
		status, out := a.call(route[0], route[1], adminToken, "", nil)
		assert.Equal(t, http.StatusNotFound, status, "%v: %s", route, out)
		assert.Contains(t, string(out), "--shadow-bundle")
	}
}

// serveShadow serves an engine through a handler of opts, responses checked against
// the OpenAPI document as newAPI's are.
func serveShadow(t *testing.T, e *engine.Engine, opts service.Options) *api {
	t.Helper()
	a := newAPIWith(t, engine.Options{InMemory: true}, service.Options{Principals: principals(t)})
	srv := httptest.NewServer(service.New(e, opts))
	t.Cleanup(func() {
		srv.Close()
		require.NoError(t, opts.Shadow.Close())
		require.NoError(t, e.Close())
	})
	a.srv = srv
	return a
}
