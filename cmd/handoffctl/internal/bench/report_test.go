package bench

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

// sampleReport is a report as Run makes it, with round figures.
func sampleReport() *Report {
	rep := &Report{
		Load: LoadInfo{
			Packs: []string{"campaign", "video"}, Scenarios: 3, Workflows: 4, Decisions: 10,
			Concurrency: 2, Outcomes: map[string]int{"block": 3, "allow": 7},
			StoreOpenms: 12.34, GoMaxProcs: 8, FsyncP50ms: 1.5,
		},
		Modes: []ModeResult{
			{Mode: "durable", Decisions: 10, DecisionsPerSecond: 1000, P50ms: 0.5, P99ms: 2.5, Maxms: 150,
				CPUPerDecisionus: ptr(400.0), PeakRSSBytes: ptr(int64(100 << 20)), AllocsPerDecision: 1234.4},
			{Mode: "dry run", Decisions: 10, DecisionsPerSecond: 2000, P50ms: 0.25, P99ms: 1, Maxms: 3,
				CPUPerDecisionus: ptr(250.0), PeakRSSBytes: ptr(int64(80 << 20)), AllocsPerDecision: 800},
			{Mode: "raw OPA", Decisions: 10, DecisionsPerSecond: 5000, P50ms: 0.1, P99ms: 0.4, Maxms: 1,
				CPUPerDecisionus: ptr(100.0), PeakRSSBytes: ptr(int64(80 << 20)), AllocsPerDecision: 300},
			{Mode: "naive durable", Decisions: 10, DecisionsPerSecond: 250, P50ms: 4, P99ms: 8, Maxms: 9,
				CPUPerDecisionus: ptr(500.0), PeakRSSBytes: ptr(int64(90 << 20)), AllocsPerDecision: 1300},
		},
		Ratios: map[string]float64{},
	}
	rep.summarize()
	return rep
}

func TestSummarize(t *testing.T) {
	rep := sampleReport()
	assert.InDelta(t, 2.5, rep.Ratios["dry_run_p50_over_raw_opa_p50"], 1e-9)
	assert.InDelta(t, 0.5, rep.Ratios["durable_over_dry_run_throughput"], 1e-9)
	assert.InDelta(t, 4, rep.Ratios["durable_over_naive_throughput"], 1e-9)
	assert.Len(t, rep.Ratios, 3)
	// The ceiling comes from the durable mode's CPU per decision: 8 cores × 1e6 / 400µs.
	assert.InDelta(t, 20000, rep.Load.CeilingPerSe, 1e-9)
	assert.Equal(t, "durable", rep.Load.CeilingMode)
}

func TestSummarizeMissingModes(t *testing.T) {
	// Only the dry run and raw OPA: one ratio, and the ceiling from the dry run.
	rep := &Report{Load: LoadInfo{GoMaxProcs: 2}, Ratios: map[string]float64{}, Modes: []ModeResult{
		{Mode: "dry run", Decisions: 4, DecisionsPerSecond: 10, P50ms: 2, CPUPerDecisionus: ptr(1000.0)},
		{Mode: "raw OPA", Decisions: 4, DecisionsPerSecond: 40, P50ms: 1, CPUPerDecisionus: ptr(10.0)},
	}}
	rep.summarize()
	assert.Equal(t, map[string]float64{"dry_run_p50_over_raw_opa_p50": 2}, rep.Ratios)
	assert.InDelta(t, 2000, rep.Load.CeilingPerSe, 1e-9)
	assert.Equal(t, "dry run", rep.Load.CeilingMode)

	// No CPU time on this platform: no ceiling.
	rep = &Report{Load: LoadInfo{GoMaxProcs: 2}, Ratios: map[string]float64{}, Modes: []ModeResult{
		{Mode: "durable", Decisions: 4, DecisionsPerSecond: 10, P50ms: 2},
	}}
	rep.summarize()
	assert.Empty(t, rep.Ratios)
	assert.Zero(t, rep.Load.CeilingPerSe)
	assert.Empty(t, rep.Load.CeilingMode)
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	require.NoError(t, sampleReport().WriteText(&b))
	want := `load: campaign+video, 4 workflows from 3 scenarios, 10 decisions, concurrency 2, history 0, store size 0
outcomes: allow 7, block 3
machine: 8 cores (GOMAXPROCS), fsync p50 1.50ms, CPU ceiling 20000 decisions/s (durable CPU/decision at 100% of every core)
durable store: 10 records, reopened in 12.3ms

MODE           DECISIONS  DECISIONS/S  P50     P99     MAX     CPU/DECISION  PEAK RSS  ALLOCS/DECISION
durable        10         1000         500µs   2.50ms  150ms   400µs         100.0 MB  1234
dry run        10         2000         250µs   1.00ms  3.00ms  250µs         80.0 MB   800
raw OPA        10         5000         100µs   400µs   1.00ms  100µs         80.0 MB   300
naive durable  10         250          4.00ms  8.00ms  9.00ms  500µs         90.0 MB   1300

dry run p50 / raw OPA p50              2.50×  (target ≤ 1.5)
durable / dry run decisions/s          0.50×  (target ≥ 0.8)
durable / naive durable decisions/s    4.00×  (target ≥ 4)
`
	assert.Equal(t, want, b.String())
}

func TestWriteTextUnavailable(t *testing.T) {
	// A platform without CPU time or peak RSS prints n/a, and a peak that could not be
	// reset for the mode is said to be the process's.
	rep := &Report{Load: LoadInfo{Packs: []string{"support"}, Outcomes: map[string]int{"allow": 1}, GoMaxProcs: 1},
		Ratios: map[string]float64{}, Modes: []ModeResult{
			{Mode: "dry run", Decisions: 1, DecisionsPerSecond: 10, P50ms: 100, P99ms: 100, Maxms: 100},
			{Mode: "raw OPA", Decisions: 1, DecisionsPerSecond: 10, P50ms: 1, P99ms: 1, Maxms: 1,
				CPUPerDecisionus: ptr(5.0), PeakRSSBytes: ptr(int64(3 << 20)), PeakRSSSinceStart: true},
		}}
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	out := b.String()
	assert.Regexp(t, `(?m)^dry run +1 +10 +100ms +100ms +100ms +n/a +n/a +0$`, out)
	assert.Regexp(t, `(?m)^raw OPA +1 +10 +1\.00ms +1\.00ms +1\.00ms +5µs +3\.0 MB +0$`, out)
	assert.Contains(t, out, "\n(peak RSS: the process's peak since it started; this system cannot reset it for each mode)\n")
	assert.NotContains(t, out, "durable store:")
	assert.Contains(t, out, "machine: 1 cores (GOMAXPROCS)\n")

	// Where the peak was reset, there is no note.
	b.Reset()
	require.NoError(t, sampleReport().WriteText(&b))
	assert.NotContains(t, b.String(), "peak RSS: the process's peak")
}

// failingWriter fails from its nth write on.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n--; w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteTextError(t *testing.T) {
	for _, n := range []int{0, 2, 5} {
		err := sampleReport().WriteText(&failingWriter{n: n})
		assert.EqualError(t, err, "disk full", "failing from write %d", n)
	}
}

// TestReportJSON pins the names of the -o json output of handoffctl bench.
func TestReportJSON(t *testing.T) {
	b, err := json.Marshal(sampleReport())
	require.NoError(t, err)
	var doc struct {
		Load   map[string]any   `json:"load"`
		Modes  []map[string]any `json:"modes"`
		Ratios map[string]any   `json:"ratios"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	assert.Equal(t, []string{"concurrency", "cpu_ceiling_decisions_per_second", "cpu_ceiling_mode", "decisions",
		"fsync_p50_ms", "gomaxprocs", "history", "outcomes", "packs", "scenarios", "store_open_ms", "store_size",
		"workflows"}, keys(doc.Load))
	require.Len(t, doc.Modes, 4)
	assert.Equal(t, []string{"allocs_per_decision", "cpu_per_decision_us", "decisions", "decisions_per_second",
		"errors", "max_ms", "mode", "p50_ms", "p99_ms", "peak_rss_bytes", "seconds", "unexpected_outcomes"}, keys(doc.Modes[0]))
	assert.Equal(t, "durable", doc.Modes[0]["mode"])
	assert.EqualValues(t, 100<<20, doc.Modes[0]["peak_rss_bytes"])
	assert.EqualValues(t, 400, doc.Modes[0]["cpu_per_decision_us"])
	assert.Equal(t, []string{"dry_run_p50_over_raw_opa_p50", "durable_over_dry_run_throughput", "durable_over_naive_throughput"}, keys(doc.Ratios))

	// Unavailable figures are null, not zero; a peak that is the process's says so.
	b, err = json.Marshal(ModeResult{Mode: "dry run", PeakRSSBytes: ptr(int64(1)), PeakRSSSinceStart: true})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"cpu_per_decision_us":null`)
	assert.Contains(t, string(b), `"peak_rss_since_process_start":true`)
}

func TestFmtMS(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		want string
	}{
		{0, "0µs"}, {0.0004, "0µs"}, {0.012, "12µs"}, {0.9994, "999µs"}, {1, "1.00ms"}, {12.345, "12.35ms"},
		{99.99, "99.99ms"}, {100, "100ms"}, {1234.5, "1234ms"},
	} {
		assert.Equal(t, c.want, fmtMS(c.ms), "fmtMS(%v)", c.ms)
	}
}
