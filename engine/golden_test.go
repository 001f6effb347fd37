package engine

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden decision files")

// TestGoldenDecisions plays each testdata/golden/*.txtar archive on the shipped packs:
// every *.request.json in name order, and compares the last decision with decision.json.
// Fields that differ on every run (ids, times, the bundle digest) are left out. The
// policies are compiled lazily, as handoffctl compiles them.
func TestGoldenDecisions(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			require.NoError(t, err)
			var requests []txtar.File
			for _, f := range ar.Files {
				if strings.HasSuffix(f.Name, ".request.json") {
					requests = append(requests, f)
				}
			}
			sort.Slice(requests, func(i, j int) bool { return requests[i].Name < requests[j].Name })
			require.NotEmpty(t, requests, "no *.request.json in %s", file)

			clock := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
			e, err := Open(context.Background(), Options{InMemory: true, LazyPolicies: true, Clock: func() time.Time { return clock }})
			require.NoError(t, err)
			defer e.Close()
			var last *Decision
			for _, r := range requests {
				last, err = e.Submit(context.Background(), r.Data)
				require.NoError(t, err, r.Name)
			}
			got := stableDecision(t, last)
			if *update {
				ar.Files = append(requests, txtar.File{Name: "decision.json", Data: got})
				require.NoError(t, os.WriteFile(file, txtar.Format(ar), 0o644))
				return
			}
			var want []byte
			for _, f := range ar.Files {
				if f.Name == "decision.json" {
					want = f.Data
				}
			}
			require.NotNil(t, want, "%s has no decision.json: run go test ./engine -run TestGoldenDecisions -update", file)
			require.JSONEq(t, string(want), string(got))
		})
	}
}

// stableDecision is the decision without the fields that change on every run.
func stableDecision(t *testing.T, d *Decision) []byte {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	delete(m, "decision_id")
	m["policy"].(map[string]any)["bundle_digest"] = "sha256:…"
	out, err := json.MarshalIndent(m, "", "  ")
	require.NoError(t, err)
	return append(out, '\n')
}
