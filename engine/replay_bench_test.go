package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// replayDecisions is how many recorded decisions BenchmarkReplay replays
// (HANDOFF_REPLAY_DECISIONS overrides it).
const replayDecisions = 100_000

var idField = regexp.MustCompile(`"(tenant_id|workflow_id)": ?"([^"$]+)"`)

// BenchmarkReplay records replayDecisions decisions by playing the shipped scenarios over
// and over, each copy under its own tenant and workflow ids, then measures one replay
// of the whole log against the same bundle. Run it on two cores:
//
//	go test ./engine -run '^$' -bench BenchmarkReplay -benchtime 1x -cpu 2
func BenchmarkReplay(b *testing.B) {
	want := replayDecisions
	if s := os.Getenv("HANDOFF_REPLAY_DECISIONS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err)
		want = n
	}
	files, err := filepath.Glob("../policies_test/handoff/*/scenarios/*" + scenario.Ext)
	require.NoError(b, err)
	var raws [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(b, err)
		raws = append(raws, data)
	}
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{InMemory: true})
	require.NoError(b, err)
	defer eng.Close()

	// Record: copies of the scenarios on as many goroutines as there are CPUs.
	var copies, recorded atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 4 {
		wg.Go(func() {
			for recorded.Load() < int64(want) {
				i := copies.Add(1)
				raw := raws[int(i)%len(raws)]
				raw = idField.ReplaceAll(raw, []byte(fmt.Sprintf(`"$1": "$2-%d"`, i)))
				sc, err := scenario.Parse(raw)
				if err != nil {
					errs <- err
					return
				}
				if err := scenario.Run(ctx, eng, sc, func(r scenario.Result) {
					if r.Decision.Recorded && r.Decision.Outcome != engine.Block || r.Decision.StateVersion > 0 {
						recorded.Add(1)
					}
				}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}

	workers, _ := strconv.Atoi(os.Getenv("HANDOFF_REPLAY_WORKERS"))
	var n int
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		n = 0
		err := eng.Replay(ctx, nil, engine.ReplayOptions{Workers: workers}, func(r engine.ReplayResult) error {
			n++
			if !r.Identical {
				return fmt.Errorf("%s/%s #%d: replay differs", r.Tenant, r.Workflow, r.Seq)
			}
			return nil
		})
		require.NoError(b, err)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(n), "decisions/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/1e3, "µs/decision")
}
