package service_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// BenchmarkSubmitShadow measures live decisions/s (campaign starts, each on a new
// workflow, in-process on a Badger store, GOMAXPROCS times 4 callers) with no shadow and
// with a shadow whose candidate changes the campaign pack's files, so that it decides
// every decision again: the shadow's worst case. The two are interleaved, off, on, off,
// on, so that a machine's drift weighs on both alike:
//
//	go test ./service -run '^$' -bench BenchmarkSubmitShadow -cpu 2
//
// "on" also reports the share of decisions the shadow decided again (decided/op) and
// dropped (dropped/op) by the end of the run.
func BenchmarkSubmitShadow(b *testing.B) {
	var n atomic.Int64
	body := func() []byte {
		i := n.Add(1)
		return []byte(strings.NewReplacer(`"req-start"`, fmt.Sprintf(`"req-s%d"`, i), `"wf-api"`, fmt.Sprintf(`"wf-s%d"`, i)).Replace(start))
	}
	load := func(b *testing.B, e *engine.Engine) {
		p := engine.Principal{Tenant: "acme", Type: "system", ID: "orchestrator"}
		b.SetParallelism(4)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				d, err := e.SubmitFrom(context.Background(), body(), p)
				if err != nil || d.Outcome != engine.Allow {
					b.Errorf("%v %+v", err, d)
				}
			}
		})
		b.StopTimer()
	}
	open := func(b *testing.B) *engine.Engine {
		e, err := engine.Open(context.Background(), engine.Options{Dir: b.TempDir()})
		require.NoError(b, err)
		b.Cleanup(func() { require.NoError(b, e.Close()) })
		return e
	}
	cb := campaignEdited(b)
	cand, err := engine.NewDecider(context.Background(), engine.DeciderOptions{Bundle: &cb})
	require.NoError(b, err)
	for round := range 2 {
		b.Run(fmt.Sprintf("off/%d", round+1), func(b *testing.B) { load(b, open(b)) })
		b.Run(fmt.Sprintf("on/%d", round+1), func(b *testing.B) { shadowed(b, open(b), cand, load) })
	}
}

// shadowed runs load on e with a shadow of cand.
func shadowed(b *testing.B, e *engine.Engine, cand *engine.Decider, load func(*testing.B, *engine.Engine)) {
	s, err := e.StartShadow(cand, engine.ShadowOptions{Log: filepath.Join(b.TempDir(), "shadow.ndjson")})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, s.Close()) })
	load(b, e)
	st := s.Stats()
	b.ReportMetric(float64(st.Decided)/float64(b.N), "decided/op")
	b.ReportMetric(float64(st.Dropped)/float64(b.N), "dropped/op")
	// Let the shadow finish before the store closes.
	deadline := time.Now().Add(time.Minute)
	for s.Stats().Pending > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// campaignEdited is the shipped bundle with a comment added to the campaign policy:
// other files, the same decisions.
func campaignEdited(b *testing.B) engine.Bundle {
	bundle := engine.ShippedBundle()
	pfs := fstest.MapFS{}
	require.NoError(b, fs.WalkDir(bundle.Policies, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(bundle.Policies, p)
		if p == "handoff/campaign/campaign.rego" {
			data = append(data, "\n# edited\n"...)
		}
		pfs[p] = &fstest.MapFile{Data: data}
		return err
	}))
	bundle.Policies = pfs
	return bundle
}
