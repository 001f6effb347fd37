package reliability

import (
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// fuzzSeeds returns every request of the shipped scenario files (placeholders and all)
// and of the adversarial corpus.
func fuzzSeeds(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	fsys := os.DirFS("..")
	for _, root := range []string{"policies_test", "reliability/testdata/corpus"} {
		if _, err := fs.Stat(fsys, root); err != nil {
			continue
		}
		require.NoError(t, fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			switch path.Ext(p) {
			case ".scenario":
				var sc struct {
					Steps []struct {
						Request json.RawMessage `json:"request"`
					} `json:"steps"`
				}
				if err := json.Unmarshal(b, &sc); err != nil {
					return err
				}
				for _, st := range sc.Steps {
					out = append(out, st.Request)
				}
			case ".json":
				if root != "policies_test" {
					out = append(out, b)
				}
			}
			return nil
		}))
	}
	return out
}

var reasonCode = regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`)

var outcomes = map[engine.Outcome]bool{engine.Allow: true, engine.AwaitHuman: true, engine.Retry: true,
	engine.Revise: true, engine.Block: true, engine.Fail: true}

// FuzzEvaluate sends arbitrary bytes through the whole pipeline (decode, CUE, state,
// Rego, invariants) on an in-memory store holding a workflow of tenant acme in
// production: never a panic, never an error, always a well-formed decision, and never
// an allow that reaches acme's workflow from any other tenant.
func FuzzEvaluate(f *testing.F) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(f, err)
	f.Cleanup(func() { _ = eng.Close() })
	p := &play{f: loadFlow(f, "01-happy-path"), tenant: "acme", workflow: "wf-fuzz"}
	for range 5 {
		body, err := p.body(ctx, eng)
		require.NoError(f, err)
		d, err := p.submit(ctx, eng, body)
		require.NoError(f, err)
		require.NoError(f, p.observe(d))
	}
	seeds := fuzzSeeds(f)
	if fz := flag.Lookup("test.fuzz"); fz == nil || fz.Value.String() == "" {
		// Run as a test, a quarter of the seeds unless full(); fuzzing starts from all.
		seeds = sample(seeds, 4)
	}
	for _, s := range seeds {
		f.Add(s)
		var m map[string]any
		if json.Unmarshal(s, &m) == nil && m["kind"] != "start" {
			m["workflow_id"] = "wf-fuzz"
			b, _ := json.Marshal(m)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := eng.Evaluate(ctx, body)
		require.NoError(t, err)
		require.NotNil(t, d)
		require.True(t, outcomes[d.Outcome], "outcome %q", d.Outcome)
		for _, r := range d.Reasons {
			require.Regexp(t, reasonCode, r.Code)
		}
		if d.Outcome == engine.Block || d.Outcome == engine.Fail {
			require.NotEmpty(t, d.Reasons, "a %s without a reason", d.Outcome)
		}
		if d.Outcome != engine.Block && d.WorkflowID == "wf-fuzz" {
			require.Equal(t, "acme", d.TenantID, "another tenant got %s on acme's workflow", d.Outcome)
		}
		require.False(t, d.Recorded, "Evaluate recorded a decision")
	})
}
