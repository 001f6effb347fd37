package service_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/testsize"
	"github.com/handoff-dev/handoff/service"
)

// scenarioTenants are the tenants the packs' scenarios send for: each has a reader
// principal whose token is readerToken(tenant).
var scenarioTenants = []string{"acme", "baimengke", "globex", "northwind"}

func readerToken(tenant string) string { return "tok-reader-" + tenant }

// scenarioPrincipals are an admin and a reader of every scenario tenant.
func scenarioPrincipals(t *testing.T) *service.Principals {
	t.Helper()
	list := []map[string]any{{"name": "auditor", "token_sha256": service.HashToken(adminToken), "tenant_id": "acme", "type": "human", "id": "auditor", "admin": true}}
	for _, tenant := range scenarioTenants {
		list = append(list, map[string]any{"name": "reader-" + tenant, "token_sha256": service.HashToken(readerToken(tenant)), "tenant_id": tenant, "type": "system", "id": "orchestrator"})
	}
	b, err := json.Marshal(map[string]any{"principals": list})
	require.NoError(t, err)
	ps, err := service.ParsePrincipals(b)
	require.NoError(t, err)
	return ps
}

// TestNextFollowsScenarios plays the scenarios of every shipped pack into the engine
// behind a server and, before every step once the workflow is started, asks the server
// what the workflow waits for at the step's time: the answer is the engine's WaitingAt
// at that time, and the template of every step it offers is the engine's Template; the
// template filled for the workflow cites its recorded versions and lists the rest.
func TestNextFollowsScenarios(t *testing.T) {
	var files []string
	for _, pack := range []string{"campaign", "video", "support", "assessment"} {
		f, err := filepath.Glob("../policies_test/handoff/" + pack + "/scenarios/*.scenario")
		require.NoError(t, err)
		require.NotEmpty(t, f, pack)
		// A sixth of each pack's with HANDOFF_FULL=1, a twelfth by default, one under the
		// race detector: the engine's TestWaitingFollowsScenarios walks every scenario
		// (with HANDOFF_FULL=1); this proves the HTTP answers are the engine's.
		stride := testsize.Pick(6, 12)
		if testsize.Race {
			stride = len(f) // one
		}
		for i := 0; i < len(f); i += stride {
			files = append(files, f[i])
		}
	}
	dc, err := engine.NewDecider(context.Background(), engine.DeciderOptions{LazyPolicies: true, EvalTimeout: time.Minute})
	require.NoError(t, err)
	for _, file := range files {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(file)))+"/"+strings.TrimSuffix(filepath.Base(file), scenario.Ext), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			sc, err := scenario.Load(file)
			require.NoError(t, err)
			a := newAPIWith(t, engine.Options{Dir: t.TempDir(), Decider: dc}, service.Options{Principals: scenarioPrincipals(t)})
			p := scenario.NewPlayer(a.e)
			var st *engine.State
			var trace string
			for i, step := range sc.Steps {
				body, err := p.Render(ctx, step.Request)
				require.NoError(t, err)
				at := step.At()
				if at.IsZero() {
					at = time.Now()
				}
				if st != nil {
					w := nextMatches(t, a, st, at, i+1)
					templatesMatch(t, a, dc, st, trace, w, i+1)
				}
				d, err := a.e.SubmitAt(ctx, body, at)
				require.NoError(t, err)
				require.Equal(t, step.Expect.Outcome, d.Outcome, "step %d (%s)", i+1, step.Name)
				p.Observe(body, d)
				if st == nil && d.Kind == "start" && d.Outcome != engine.Block {
					trace = d.TraceID
					st = &engine.State{TenantID: d.TenantID, WorkflowID: d.WorkflowID}
				}
				if st != nil {
					st, err = a.e.State(ctx, st.TenantID, st.WorkflowID)
					require.NoError(t, err)
				}
			}
		})
	}
}

// nextMatches asks the server what the workflow of st waits for at at and checks the
// answer is the engine's, decoded alike.
func nextMatches(t *testing.T, a *api, st *engine.State, at time.Time, n int) *engine.Waiting {
	t.Helper()
	path := "/v1/tenants/" + st.TenantID + "/workflows/" + st.WorkflowID + "/next?at=" + url.QueryEscape(at.Format(time.RFC3339Nano))
	status, got := a.call("GET", path, adminToken, "", nil)
	require.Equal(t, http.StatusOK, status, "step %d: %s", n, got)
	w, err := a.e.Decider().WaitingAt(context.Background(), st, at)
	require.NoError(t, err)
	want, err := json.Marshal(w)
	require.NoError(t, err)
	require.Equal(t, decoded(t, want), decoded(t, got), "step %d: next over HTTP", n)
	return w
}

// templatesMatch asks the server the template of every step w offers, plain and filled
// for the workflow of st.
func templatesMatch(t *testing.T, a *api, dc *engine.Decider, st *engine.State, trace string, w *engine.Waiting, n int) {
	t.Helper()
	for _, party := range w.Parties {
		for _, s := range party.Requests {
			var opts engine.TemplateOptions
			q := url.Values{}
			if s.Kind == "handoff" {
				// The options the engine put the step to the policy with.
				opts = engine.TemplateOptions{Target: s.Target, Source: party.ID, Output: s.Output}
				if s.Source != "" {
					opts.Source = s.Source
				}
				q.Set("target", opts.Target)
				q.Set("source", opts.Source)
				q.Set("output", opts.Output)
			}
			path := "/v1/packs/" + st.Pack + "/templates/" + s.Kind + "?" + q.Encode()
			status, got := a.call("GET", path, adminToken, "", nil)
			tpl, err := dc.Template(st.Pack, s.Kind, opts)
			if err != nil {
				assert.Contains(t, []int{http.StatusBadRequest, http.StatusNotFound}, status, "step %d: %s: %s", n, path, got)
				continue
			}
			require.Equal(t, http.StatusOK, status, "step %d: %s: %s", n, path, got)
			require.Equal(t, decoded(t, tpl.JSON()), decoded(t, got), "step %d: %s", n, path)

			q.Set("workflow_id", st.WorkflowID)
			path = "/v1/packs/" + st.Pack + "/templates/" + s.Kind + "?" + q.Encode()
			status, got = a.call("GET", path, readerToken(st.TenantID), "", nil)
			require.Equal(t, http.StatusOK, status, "step %d: %s: %s", n, path, got)
			filledFor(t, st, trace, got, n)
		}
	}
}

// filledFor checks a template filled for the workflow of st: its envelope is the
// workflow's, every reference it holds is a recorded version, and every placeholder
// left names a version not recorded and is listed once.
func filledFor(t *testing.T, st *engine.State, trace string, body []byte, n int) {
	t.Helper()
	var f scenario.FilledTemplate
	require.NoError(t, json.Unmarshal(body, &f))
	assert.Equal(t, st.TenantID, f.Request["tenant_id"], "step %d", n)
	assert.Equal(t, st.WorkflowID, f.Request["workflow_id"], "step %d", n)
	assert.Equal(t, trace, f.Request["trace_id"], "step %d", n)
	left := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := refOf(x); ok {
				h := st.Artifacts[ref.Type]
				require.NotNil(t, h, "step %d: a reference to %s, not recorded", n, ref.Type)
				rec := h.Versions[strconv.Itoa(ref.Version)]
				require.NotNil(t, rec, "step %d: %s v%d is not recorded", n, ref.Type, ref.Version)
				assert.Equal(t, rec.Ref, ref, "step %d", n)
				return
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			if typ, ok := strings.CutPrefix(x, "${ref:"); ok {
				typ, _, _ = strings.Cut(typ, "@")
				assert.True(t, st.Artifacts[typ] == nil || len(st.Artifacts[typ].Versions) == 0 || !strings.HasSuffix(x, "@latest}"),
					"step %d: %s left though %s is recorded", n, x, typ)
				left[x] = true
			}
		}
	}
	walk(f.Request)
	assert.ElementsMatch(t, keys(left), f.Unresolved, "step %d: the placeholders left are listed", n)
}

// refOf reads an artifact reference: an object of exactly id, type, version and hash.
func refOf(m map[string]any) (engine.ArtifactRef, bool) {
	if len(m) != 4 || m["id"] == nil || m["type"] == nil || m["version"] == nil || m["hash"] == nil {
		return engine.ArtifactRef{}, false
	}
	b, _ := json.Marshal(m)
	var ref engine.ArtifactRef
	return ref, json.Unmarshal(b, &ref) == nil
}

func keys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

// decoded is a JSON document decoded: two documents that say the same compare equal.
func decoded(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v), "%s", b)
	return v
}
