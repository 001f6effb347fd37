package bench

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Report is what Run measured: the load, one result per mode run, and the ratios the
// performance targets are stated in. Its JSON form is the -o json output of
// `handoffctl bench`.
type Report struct {
	Load   LoadInfo           `json:"load"`
	Modes  []ModeResult       `json:"modes"`
	Ratios map[string]float64 `json:"ratios"`
	// PolicyWork is the policy's work per decision by pack and kind (raw OPA mode).
	PolicyWork []PolicyWork `json:"policy_work,omitempty"`
}

// PolicyWork is the Rego expressions a pack's policy evaluates per decision of one
// kind, on the inputs of the raw OPA mode: the policy's work, which the machine's load
// does not change.
type PolicyWork struct {
	Pack                   string  `json:"pack"`
	Kind                   string  `json:"kind"`
	Decisions              int     `json:"decisions"`
	ExpressionsPerDecision float64 `json:"expressions_per_decision"`
}

// LoadInfo describes the load and the machine it ran on.
type LoadInfo struct {
	Packs        []string       `json:"packs"`
	Scenarios    int            `json:"scenarios"`
	Workflows    int            `json:"workflows"`
	Decisions    int            `json:"decisions"`
	Concurrency  int            `json:"concurrency"`
	History      int            `json:"history"`
	StoreSize    int            `json:"store_size"`
	Outcomes     map[string]int `json:"outcomes"` // expected outcome → decisions
	StoreOpenms  float64        `json:"store_open_ms,omitempty"`
	PreloadSecs  float64        `json:"preload_seconds,omitempty"`
	GoMaxProcs   int            `json:"gomaxprocs"`
	FsyncP50ms   float64        `json:"fsync_p50_ms,omitempty"`
	CeilingPerSe float64        `json:"cpu_ceiling_decisions_per_second,omitempty"`
	CeilingMode  string         `json:"cpu_ceiling_mode,omitempty"`
}

// ModeResult is the measure of one mode.
type ModeResult struct {
	Mode               string  `json:"mode"`
	Decisions          int     `json:"decisions"`
	DecisionsPerSecond float64 `json:"decisions_per_second"`
	P50ms              float64 `json:"p50_ms"`
	P99ms              float64 `json:"p99_ms"`
	Maxms              float64 `json:"max_ms"`
	// CPUPerDecisionus is nil (null in JSON) where the platform gives no CPU time.
	CPUPerDecisionus *float64 `json:"cpu_per_decision_us"`
	// PeakRSSBytes is nil (null in JSON) where the platform gives no peak RSS.
	PeakRSSBytes *int64 `json:"peak_rss_bytes"`
	// PeakRSSSinceStart says that the peak could not be reset when the mode started
	// (everywhere but Linux): it is the process's peak since it started.
	PeakRSSSinceStart bool    `json:"peak_rss_since_process_start,omitempty"`
	AllocsPerDecision float64 `json:"allocs_per_decision"`
	// DatabaseCPUPerDecisionus is the CPU time of the PostgreSQL server processes of
	// this machine during the mode, per decision of this process (postgres mode only;
	// nil where it cannot be read). With several processes loading the database at
	// once, divide DatabaseCPUSeconds by their decisions together.
	DatabaseCPUPerDecisionus *float64 `json:"database_cpu_per_decision_us,omitempty"`
	DatabaseCPUSeconds       float64  `json:"database_cpu_seconds,omitempty"`
	Unexpected               int      `json:"unexpected_outcomes"`
	Errors                   int      `json:"errors"`
	Seconds                  float64  `json:"seconds"`
}

// summarize sets the CPU ceiling and the ratios from the modes.
func (rep *Report) summarize() {
	modes := map[string]ModeResult{}
	for _, m := range rep.Modes {
		modes[m.Mode] = m
	}
	for _, mode := range []Mode{Durable, DryRun} {
		if c := modes[mode.title()].CPUPerDecisionus; c != nil && *c > 0 {
			rep.Load.CeilingPerSe = float64(rep.Load.GoMaxProcs) * 1e6 / *c
			rep.Load.CeilingMode = mode.title()
			break
		}
	}
	ratio := func(name string, a, b float64) {
		if a > 0 && b > 0 {
			rep.Ratios[name] = a / b
		}
	}
	dry, raw, durable, naive := modes[DryRun.title()], modes[RawOPA.title()], modes[Durable.title()], modes[Naive.title()]
	ratio("dry_run_p50_over_raw_opa_p50", dry.P50ms, raw.P50ms)
	ratio("durable_over_dry_run_throughput", durable.DecisionsPerSecond, dry.DecisionsPerSecond)
	ratio("durable_over_naive_throughput", durable.DecisionsPerSecond, naive.DecisionsPerSecond)
	ratio("postgres_over_durable_throughput", modes[Postgres.title()].DecisionsPerSecond, durable.DecisionsPerSecond)
}

// WriteText writes the report as text: the load, the machine's limits, a table of
// the modes and the ratios with their targets.
func (rep *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	l := rep.Load
	fmt.Fprintf(ew, "load: %s, %s from %s, %s, concurrency %d, history %d, store size %d\n",
		strings.Join(l.Packs, "+"), counted(l.Workflows, "workflow"), counted(l.Scenarios, "scenario"), counted(l.Decisions, "decision"), l.Concurrency, l.History, l.StoreSize)
	var oc []string
	for _, k := range slices.Sorted(maps.Keys(l.Outcomes)) {
		oc = append(oc, fmt.Sprintf("%s %d", k, l.Outcomes[k]))
	}
	fmt.Fprintf(ew, "outcomes: %s\n", strings.Join(oc, ", "))
	limits := fmt.Sprintf("machine: %d cores (GOMAXPROCS)", l.GoMaxProcs)
	if l.FsyncP50ms > 0 {
		limits += fmt.Sprintf(", fsync p50 %.2fms", l.FsyncP50ms)
	}
	if l.CeilingPerSe > 0 {
		limits += fmt.Sprintf(", CPU ceiling %.0f decisions/s (%s CPU/decision at 100%% of every core)", l.CeilingPerSe, l.CeilingMode)
	}
	fmt.Fprintln(ew, limits)
	if l.StoreOpenms > 0 {
		s := fmt.Sprintf("durable store: %d records, reopened in %.1fms", l.StoreSize+l.Decisions+l.History*l.Workflows, l.StoreOpenms)
		if l.PreloadSecs > 0 {
			s += fmt.Sprintf(" after a %.1fs preload", l.PreloadSecs)
		}
		fmt.Fprintln(ew, s)
	}
	fmt.Fprintln(ew)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(cells, "\t")) }
	row("MODE", "DECISIONS", "DECISIONS/S", "P50", "P99", "MAX", "CPU/DECISION", "PEAK RSS", "ALLOCS/DECISION")
	sinceStart := false
	for _, m := range rep.Modes {
		cpu, rss := "n/a", "n/a"
		if m.CPUPerDecisionus != nil {
			cpu = fmtMS(*m.CPUPerDecisionus / 1000)
		}
		if m.PeakRSSBytes != nil {
			rss = fmt.Sprintf("%.1f MB", float64(*m.PeakRSSBytes)/(1<<20))
		}
		sinceStart = sinceStart || m.PeakRSSSinceStart
		row(m.Mode, strconv.Itoa(m.Decisions), fmt.Sprintf("%.0f", m.DecisionsPerSecond),
			fmtMS(m.P50ms), fmtMS(m.P99ms), fmtMS(m.Maxms), cpu, rss, fmt.Sprintf("%.0f", m.AllocsPerDecision))
	}
	_ = tw.Flush()
	for _, m := range rep.Modes {
		if m.DatabaseCPUPerDecisionus != nil {
			fmt.Fprintf(ew, "%s: the PostgreSQL server used %.1fs of CPU, %s per decision of this process\n",
				m.Mode, m.DatabaseCPUSeconds, fmtMS(*m.DatabaseCPUPerDecisionus/1000))
		}
	}
	if sinceStart {
		fmt.Fprintln(ew, "(peak RSS: the process's peak since it started; this system cannot reset it for each mode)")
	}
	if len(rep.PolicyWork) > 0 {
		fmt.Fprintln(ew)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PACK\tKIND\tDECISIONS\tEXPRESSIONS/DECISION")
		for _, w := range rep.PolicyWork {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\n", w.Pack, w.Kind, w.Decisions, w.ExpressionsPerDecision)
		}
		_ = tw.Flush()
	}
	if len(rep.Ratios) > 0 {
		fmt.Fprintln(ew)
		for _, r := range []struct{ key, label, target string }{
			{"dry_run_p50_over_raw_opa_p50", "dry run p50 / raw OPA p50", "target ≤ 1.5"},
			{"durable_over_dry_run_throughput", "durable / dry run decisions/s", "target ≥ 0.8"},
			{"durable_over_naive_throughput", "durable / naive durable decisions/s", "target ≥ 4"},
			{"postgres_over_durable_throughput", "postgres / durable decisions/s", "one process"},
		} {
			if v, ok := rep.Ratios[r.key]; ok {
				fmt.Fprintf(ew, "%-37s %5.2f×  (%s)\n", r.label, v, r.target)
			}
		}
	}
	return ew.err
}

// errWriter keeps the first write error and writes nothing after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	_, e.err = e.w.Write(p)
	return len(p), nil
}

func fmtMS(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0fms", v)
	case v >= 1:
		return fmt.Sprintf("%.2fms", v)
	default:
		return fmt.Sprintf("%.0fµs", v*1000)
	}
}

// counted writes n and the noun, with an s unless n is one.
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
