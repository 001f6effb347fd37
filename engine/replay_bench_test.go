package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/store"
)

// replayDecisions is how many recorded decisions BenchmarkReplay replays
// (HANDOFF_REPLAY_DECISIONS overrides it).
const replayDecisions = 100_000

// templateWorkflow is one recorded workflow: its records and final state snapshot.
type templateWorkflow struct {
	tenant, id string
	records    []store.Record
	state      []byte
}

// BenchmarkReplay measures one replay of a log of replayDecisions decisions against the
// bundle it was recorded with, every decision required to come out byte for byte. The log
// is made of copies of the workflows the shipped scenarios record: the scenarios are
// played once by the engine, then each recorded workflow is copied under new workflow ids
// (the ids rewritten in its records and state) straight into a store, which is much
// faster than deciding every copy again. Run it on two cores:
//
//	go test ./engine -run '^$' -bench BenchmarkReplay -benchtime 1x -cpu 2
func BenchmarkReplay(b *testing.B) {
	want := replayDecisions
	if s := os.Getenv("HANDOFF_REPLAY_DECISIONS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(b, err)
		want = n
	}
	ctx := context.Background()
	templates := recordTemplates(b)
	perCopy := 0
	for _, t := range templates {
		perCopy += len(t.records)
	}
	copies := (want + perCopy - 1) / perCopy

	dir := b.TempDir()
	l, err := store.Open(ctx, store.Options{Dir: dir})
	require.NoError(b, err)
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0)*4)
	jobs := make(chan int)
	for range cap(errs) {
		wg.Go(func() {
			for i := range jobs {
				for _, t := range templates {
					if err := appendCopy(ctx, l, t, i); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	for i := range copies {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
	require.NoError(b, l.Close())

	eng, err := engine.Open(ctx, engine.Options{Dir: dir})
	require.NoError(b, err)
	defer eng.Close()
	workers, _ := strconv.Atoi(os.Getenv("HANDOFF_REPLAY_WORKERS"))
	var n, skipped int
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		n, skipped = 0, 0
		err := eng.Replay(ctx, nil, engine.ReplayOptions{Workers: workers}, func(r engine.ReplayResult) error {
			if r.Skipped != "" { // recorded redacted: reported, not decided again
				skipped++
				return nil
			}
			n++
			if !r.Identical {
				return fmt.Errorf("%s/%s #%d: replay differs in %v: %s %v, recorded %s %v", r.Tenant, r.Workflow, r.Seq, r.Changed, r.Replayed.Outcome, r.Replayed.Reasons, r.Recorded.Outcome, r.Recorded.Codes())
			}
			return nil
		})
		require.NoError(b, err)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(n), "decisions/op")
	b.ReportMetric(float64(skipped), "skipped/op")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/decision")
}

// recordTemplates plays every shipped scenario once and reads back each workflow.
func recordTemplates(b *testing.B) []templateWorkflow {
	ctx := context.Background()
	files, err := filepath.Glob("../policies_test/handoff/*/scenarios/*" + scenario.Ext)
	require.NoError(b, err)
	dir := b.TempDir()
	eng, err := engine.Open(ctx, engine.Options{Dir: dir})
	require.NoError(b, err)
	for _, f := range files {
		sc, err := scenario.Load(f)
		require.NoError(b, err)
		require.NoError(b, scenario.Run(ctx, eng, sc, nil))
	}
	require.NoError(b, eng.Close())

	l, err := store.Open(ctx, store.Options{Dir: dir})
	require.NoError(b, err)
	defer l.Close()
	tenants, err := l.Tenants(ctx)
	require.NoError(b, err)
	var out []templateWorkflow
	for _, t := range tenants {
		var ids []string
		require.NoError(b, l.Workflows(ctx, t, func(w string, _ store.Head) error {
			ids = append(ids, w)
			return nil
		}))
		for _, w := range ids {
			tw := templateWorkflow{tenant: t, id: w}
			require.NoError(b, l.Records(ctx, t, w, 1, func(r store.Record) error {
				tw.records = append(tw.records, r)
				return nil
			}))
			tw.state, _, err = l.State(ctx, t, w)
			require.NoError(b, err)
			out = append(out, tw)
		}
	}
	return out
}

// appendCopy writes copy i of a template workflow under a new workflow id, in one append.
func appendCopy(ctx context.Context, l *store.Log, t templateWorkflow, i int) error {
	// The id is rewritten where it is a whole JSON string, or quoted inside a message:
	// inside a longer string (a trace id, say) it may be part of content whose hash the
	// records hold.
	copyID := fmt.Sprintf("%s-copy%d", t.id, i)
	rename := strings.NewReplacer(`"`+t.id+`"`, `"`+copyID+`"`, `\"`+t.id+`\"`, `\"`+copyID+`\"`)
	a := store.Append{Tenant: t.tenant, Workflow: copyID, Create: true, BumpVersion: true,
		State: []byte(rename.Replace(string(t.state))), Time: t.records[0].Time}
	for _, r := range t.records {
		a.Records = append(a.Records, store.NewRecord{Type: r.Type, Payload: []byte(rename.Replace(string(r.Payload)))})
	}
	_, err := l.Append(ctx, a)
	return err
}
