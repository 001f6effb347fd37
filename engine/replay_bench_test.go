package engine_test

import (
	"context"
	"encoding/json"
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
	"github.com/handoff-dev/handoff/store/backend"
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

// BenchmarkReplay measures one replay of a log of replayDecisions decisions. The log is
// made of copies of the workflows the shipped scenarios record: the scenarios are played
// once by the engine, then each recorded workflow is copied under new workflow ids (the
// ids rewritten in its records and state) straight into a store, which is much faster
// than deciding every copy again. Three replays:
//
//   - all: against the bundle the log was recorded with, every decision decided again
//     and required to come out byte for byte;
//   - unchanged: the same, with SkipUnchanged: every pack is unchanged, nothing is
//     decided again;
//   - video-changed: a candidate whose video pack differs (by a comment), with
//     SkipUnchanged: only the video decisions are decided, and none may change.
//
// Run it on two cores:
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
	l, err := backend.Open(ctx, store.Options{Dir: dir})
	require.NoError(b, err)
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0)*4)
	jobs := make(chan int)
	for range cap(errs) {
		wg.Go(func() {
			failed := false
			for i := range jobs { // drained to the end, so that the sender never blocks
				for ti, t := range templates {
					if failed {
						break
					}
					if err := appendCopy(ctx, l, t, fmt.Sprintf("%s-copy%d-%d", t.id, ti, i)); err != nil {
						errs <- err
						failed = true
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
	videoChanged := editedBundle(b, "handoff/video/video.rego")
	changed, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &videoChanged})
	require.NoError(b, err)
	for _, c := range []struct {
		name      string
		candidate *engine.Decider
		skip      bool
	}{{"all", nil, false}, {"unchanged", nil, true}, {"video-changed", changed, true}} {
		b.Run(c.name, func(b *testing.B) { benchmarkReplay(b, eng, c.candidate, c.skip) })
	}
}

func benchmarkReplay(b *testing.B, eng *engine.Engine, candidate *engine.Decider, skip bool) {
	ctx := context.Background()
	workers, _ := strconv.Atoi(os.Getenv("HANDOFF_REPLAY_WORKERS"))
	var n, skipped, unchanged int
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		n, skipped, unchanged = 0, 0, 0
		err := eng.Replay(ctx, candidate, engine.ReplayOptions{Workers: workers, SkipUnchanged: skip}, func(r engine.ReplayResult) error {
			switch {
			case r.Skipped == "unchanged":
				unchanged++
				return nil
			case r.Skipped != "": // recorded redacted: reported, not decided again
				skipped++
				return nil
			}
			n++
			if candidate != nil && r.Recorded.Pack != "video" {
				return fmt.Errorf("%s/%s #%d: pack %s decided again, its files unchanged", r.Tenant, r.Workflow, r.Seq, r.Recorded.Pack)
			}
			if !r.Identical && (candidate == nil || len(r.Changed) > 0) {
				return fmt.Errorf("%s/%s #%d: replay differs in %v: %s %v, recorded %s %v", r.Tenant, r.Workflow, r.Seq, r.Changed, r.Replayed.Outcome, r.Replayed.Reasons, r.Recorded.Outcome, r.Recorded.Codes())
			}
			return nil
		})
		require.NoError(b, err)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric(float64(n), "decisions/op")
	b.ReportMetric(float64(unchanged), "unchanged/op")
	b.ReportMetric(float64(skipped), "skipped/op")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	if n > 0 {
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/decision")
	}
}

// recordTemplates plays every shipped scenario once, a store per pack (workflow ids are
// unique within a pack's scenarios only), and reads back each workflow.
func recordTemplates(b *testing.B) []templateWorkflow {
	packs, err := filepath.Glob("../policies_test/handoff/*/scenarios")
	require.NoError(b, err)
	var out []templateWorkflow
	for _, p := range packs {
		out = append(out, recordPackTemplates(b, p)...)
	}
	return out
}

func recordPackTemplates(b *testing.B, scenarios string) []templateWorkflow {
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(scenarios, "*"+scenario.Ext))
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

	l, err := backend.Open(ctx, store.Options{Dir: dir})
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

// appendCopy writes a copy of a template workflow under the workflow id copyID. Two
// packs' scenarios may use one workflow id: copyID must be unique. Records go in runs
// that end at a state change, one append each, so that the head's state version is the
// template's, or at a decision that is not a block, the standing one, which the head
// names.
func appendCopy(ctx context.Context, l store.Log, t templateWorkflow, copyID string) error {
	// The id is rewritten where it is a whole JSON string, or quoted inside a message:
	// inside a longer string (a trace id, say) it may be part of content whose hash the
	// records hold.
	rename := strings.NewReplacer(`"`+t.id+`"`, `"`+copyID+`"`, `\"`+t.id+`\"`, `\"`+copyID+`\"`)
	state := []byte(rename.Replace(string(t.state)))
	var version uint64
	a := store.Append{Tenant: t.tenant, Workflow: copyID, Create: true, State: state, Time: t.records[0].Time}
	for i, r := range t.records {
		var ent struct {
			Decision struct {
				StateVersion uint64         `json:"state_version"`
				Outcome      engine.Outcome `json:"outcome"`
			} `json:"decision"`
		}
		if err := json.Unmarshal(r.Payload, &ent); err != nil {
			return err
		}
		a.Records = append(a.Records, store.NewRecord{Type: r.Type, Payload: []byte(rename.Replace(string(r.Payload)))})
		standing := ent.Decision.Outcome != engine.Block
		if ent.Decision.StateVersion == version && !standing && i < len(t.records)-1 {
			continue
		}
		a.ExpectedVersion, a.BumpVersion = version, ent.Decision.StateVersion > version
		if standing {
			a.Standing = string(ent.Decision.Outcome)
		}
		if _, err := l.Append(ctx, a); err != nil {
			return err
		}
		version = ent.Decision.StateVersion
		a = store.Append{Tenant: t.tenant, Workflow: copyID, State: state, Time: t.records[0].Time}
	}
	return nil
}
