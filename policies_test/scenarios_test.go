package policiestest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// TestScenarios plays every scenario file of every pack end to end, each on its own
// Badger store in a temporary directory, then verifies every chain it wrote and replays
// the log against the bundle it was recorded with: every recorded decision must come out
// byte for byte the same, with the same validation. A record whose request the log holds
// redacted is reported as skipped, never replayed. Every reason of every decision must
// carry the title of a rule of its pack or of core that carries its code.
func TestScenarios(t *testing.T) {
	files, err := scenario.Files(os.DirFS("."))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no scenario files found")
	// One compiled bundle for every scenario, each on a store of its own. A pack's
	// policies are compiled when its first scenario needs them; the deadline is long: on
	// a loaded machine a slow decision is not a policy's fault.
	dc, err := engine.NewDecider(context.Background(), engine.DeciderOptions{LazyPolicies: true, EvalTimeout: time.Minute})
	require.NoError(t, err)
	titles := ruleTitles(dc.Reasons())
	packs := map[string]int{}
	for _, f := range files {
		packs[strings.Split(f, "/")[1]]++
		t.Run(strings.TrimSuffix(filepath.Base(f), scenario.Ext), func(t *testing.T) {
			// Scenarios wait mostly on fsync: several at once keep both cores busy.
			t.Parallel()
			sc, err := scenario.Load(f)
			require.NoError(t, err)
			ctx := context.Background()
			eng, err := engine.Open(ctx, engine.Options{Dir: t.TempDir(), Decider: dc})
			require.NoError(t, err)
			defer eng.Close()
			require.NoError(t, scenario.Run(ctx, eng, sc, func(r scenario.Result) {
				for _, problem := range titleProblems(titles, r.Decision) {
					t.Errorf("step %d (%s): %s", r.Step, r.Name, problem)
				}
			}))
			reports, err := eng.VerifyAll(ctx)
			require.NoError(t, err)
			for _, rep := range reports {
				require.True(t, rep.OK, "chain %s/%s broken at %d: %s", rep.Tenant, rep.Workflow, rep.BrokenSeq, rep.Problem)
			}
			requireReplayIdentical(t, eng)
		})
	}
	for _, p := range dc.Packs() {
		require.NotZero(t, packs[p.Name], "pack %s ships no scenario", p.Name)
	}
}

// requireReplayIdentical replays everything eng recorded against its own bundle.
func requireReplayIdentical(t *testing.T, eng *engine.Engine) {
	t.Helper()
	n := 0
	err := eng.Replay(context.Background(), nil, engine.ReplayOptions{}, func(r engine.ReplayResult) error {
		if r.Skipped != "" {
			// A request the log holds redacted is reported, never re-decided.
			require.Equal(t, "redacted", r.Skipped, "record %d", r.Seq)
			require.NotNil(t, r.Redaction, "record %d", r.Seq)
			require.Nil(t, r.Replayed, "record %d", r.Seq)
			require.Equal(t, engine.Block, r.Recorded.Outcome, "record %d", r.Seq)
			return nil
		}
		n++
		require.True(t, r.Identical, "record %s/%s #%d: replayed %+v\nrecorded %+v", r.Tenant, r.Workflow, r.Seq, r.Replayed, r.Recorded)
		require.Empty(t, r.Changed, "record %d", r.Seq)
		require.False(t, r.ValidationChanged, "record %d: validation changed", r.Seq)
		return nil
	})
	require.NoError(t, err)
	require.NotZero(t, n, "nothing replayed")
}

// TestScenarioWorkflowsAreDistinct: no two scenario files start the same workflow, so that
// `handoffctl run --db DIR` can play a whole pack's directory into one store.
func TestScenarioWorkflowsAreDistinct(t *testing.T) {
	files, err := scenario.Files(os.DirFS("."))
	require.NoError(t, err)
	started := map[string]string{}
	for _, f := range files {
		sc, err := scenario.Load(f)
		require.NoError(t, err)
		for _, st := range sc.Steps {
			var req struct {
				Kind     string `json:"kind"`
				Tenant   string `json:"tenant_id"`
				Workflow string `json:"workflow_id"`
			}
			if json.Unmarshal(st.Request, &req) != nil || req.Kind != "start" || req.Workflow == "" {
				continue
			}
			key := req.Tenant + "/" + req.Workflow
			if other, ok := started[key]; ok && other != f {
				t.Errorf("%s and %s both start workflow %s", other, f, key)
			}
			started[key] = f
		}
	}
}

// ruleTitles maps package, code and title of every rule carrying a reason code to true.
func ruleTitles(reasons []engine.ReasonInfo) map[[3]string]bool {
	out := map[[3]string]bool{}
	for _, r := range reasons {
		out[[3]string{r.Package, r.Code, r.Title}] = true
	}
	return out
}

// titleProblems says which reasons of d do not carry the title of a rule that produces
// their code in d's pack or in core: a reason titled after another pack's rule, after a
// rule of another code, or not titled at all.
func titleProblems(titles map[[3]string]bool, d *engine.Decision) []string {
	var out []string
	for _, r := range d.Reasons {
		switch {
		case r.Title == "":
			out = append(out, fmt.Sprintf("reason %s has no title", r.Code))
		case titles[[3]string{"handoff.core", r.Code, r.Title}]:
		case d.Pack != "" && titles[[3]string{"handoff." + d.Pack, r.Code, r.Title}]:
		default:
			out = append(out, fmt.Sprintf("reason %s is titled %q, which is no rule of handoff.core or handoff.%s with that code", r.Code, r.Title, d.Pack))
		}
	}
	return out
}

// TestTitleProblems: the title check of TestScenarios refuses a reason titled after
// another pack's rule, after a rule of another code, or without a title.
func TestTitleProblems(t *testing.T) {
	titles := ruleTitles([]engine.ReasonInfo{
		{Package: "handoff.core", Code: "LOOP_DETECTED", Title: "Loop detected"},
		{Package: "handoff.video", Code: "REVIEW_DEFECT", Title: "Defect found by the reviewer"},
		{Package: "handoff.campaign", Code: "SUBJECTIVE_DEFECT", Title: "Defect without a contract violation"},
	})
	ok := &engine.Decision{Pack: "video", Reasons: []engine.Reason{
		{Code: "LOOP_DETECTED", Title: "Loop detected"},
		{Code: "REVIEW_DEFECT", Title: "Defect found by the reviewer"},
	}}
	assert.Empty(t, titleProblems(titles, ok))
	bad := &engine.Decision{Pack: "video", Reasons: []engine.Reason{
		{Code: "SUBJECTIVE_DEFECT", Title: "Defect without a contract violation"},
		{Code: "LOOP_DETECTED", Title: "Defect found by the reviewer"},
		{Code: "REVIEW_DEFECT"},
	}}
	assert.Equal(t, []string{
		`reason SUBJECTIVE_DEFECT is titled "Defect without a contract violation", which is no rule of handoff.core or handoff.video with that code`,
		`reason LOOP_DETECTED is titled "Defect found by the reviewer", which is no rule of handoff.core or handoff.video with that code`,
		"reason REVIEW_DEFECT has no title",
	}, titleProblems(titles, bad))
}
