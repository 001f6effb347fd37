package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	policiestest "github.com/handoff-dev/handoff/policies_test"
	"github.com/handoff-dev/handoff/store"
)

var benchCmd = &command{
	name:  "bench",
	short: "measure decisions/s, latency, CPU and memory on a load built from the packs' scenarios",
	long: `Bench generates a load from the packs' scenario files: every scenario is a complete
workflow, with its mix of allows, blocks, reviews, retries and approvals, and the load
is --workflows copies of them (each with its own ids), played --concurrency workflows at
a time. It runs the load in four modes, in this order, each on its own inputs' copy:

  durable        Submit on a Badger store in a temporary directory (group commit)
  dry run        Evaluate: decode, validate, state read, input, policy, decision check;
                 nothing recorded (each workflow is advanced between steps, untimed)
  raw OPA        the pack's prepared query alone, on the inputs the engine built for the
                 same requests, already converted to ast.Value: the cost of the policy
  naive durable  Submit with every decision in its own synchronous transaction

and prints, per mode: decisions, decisions/s, p50/p99/max latency, CPU time per decision,
peak RSS during the mode and heap allocations per decision, then the ratios the
performance targets are stated in. The policy deadline is one minute instead of two
seconds, so that a busy machine gives slow decisions rather than POLICY_TIMEOUT blocks. Every decision is checked against the outcome its
scenario expects; unexpected outcomes are counted. Scenarios that set the time of
their steps (deadlines, expiries) are left out: their copies run at the clock.

--history N appends N prior records to every workflow of the durable load after its
first step (that step is then not measured); --store-size N preloads N records, 100 per
workflow, before the durable load. --modes picks the modes; --dry-run
keeps only the dry run and raw OPA modes: nothing touches the disk. Progress goes to standard error when it is a terminal.

The scenarios come from the shipped packs, or from DIR/policies_test with --bundle DIR.
With -o json the result is one JSON object: load, limits, modes and ratios.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		o := benchOptions{}
		fs.StringVar(&o.pack, "pack", "", "only the scenarios of pack `NAME` (default: every pack that has scenarios)")
		fs.IntVar(&o.workflows, "workflows", 320, "`N` workflows, each a copy of one scenario (ignored with --decisions)")
		fs.IntVar(&o.decisions, "decisions", 0, "`N` decisions: as many workflows as it takes, the last one cut short")
		fs.IntVar(&o.concurrency, "concurrency", 32, "`N` workflows played at the same time")
		fs.IntVar(&o.history, "history", 0, "`N` prior records in every workflow of the durable load")
		fs.IntVar(&o.storeSize, "store-size", 0, "`N` records preloaded in the durable store, 100 per workflow")
		fs.BoolVar(&o.dryRun, "dry-run", false, "only the dry run and raw OPA modes; nothing is written to disk")
		fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to `FILE`")
		fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile to `FILE` half way through the first mode: what is live while decisions are made")
		fs.StringVar(&o.modes, "modes", "durable,dry-run,raw-opa,naive", "the modes to run: a comma-separated `LIST` of durable, dry-run, raw-opa and naive")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("bench takes no arguments")
			}
			o.run = map[string]bool{}
			for m := range strings.SplitSeq(o.modes, ",") {
				switch m = strings.TrimSpace(m); m {
				case "durable", "dry-run", "raw-opa", "naive":
					o.run[m] = !o.dryRun || m == "dry-run" || m == "raw-opa"
				default:
					return usagef("--modes: unknown mode %q: the modes are durable, dry-run, raw-opa and naive", m)
				}
			}
			if o.workflows < 1 || o.concurrency < 1 || o.decisions < 0 || o.history < 0 || o.storeSize < 0 {
				return usagef("--workflows and --concurrency must be positive; --decisions, --history and --store-size not negative")
			}
			return c.bench(ctx, o)
		}
	},
}

// benchEvalTimeout is the policy deadline of the engines bench opens: long, so that
// an overloaded machine measures slow decisions instead of POLICY_TIMEOUT blocks.
const benchEvalTimeout = time.Minute

type benchOptions struct {
	pack                              string
	workflows, decisions, concurrency int
	history, storeSize                int
	dryRun                            bool
	modes                             string
	cpuProfile, memProfile            string
	run                               map[string]bool // the modes to run
}

// benchTemplate is one scenario: its requests, the outcome each must get, and the ids
// every copy makes its own.
type benchTemplate struct {
	pack, name string
	requests   []json.RawMessage
	outcomes   []engine.Outcome
	ids        []string // request, trace and workflow ids written in the requests
}

// benchWorkflow is one copy of a template in the load.
type benchWorkflow struct {
	tpl     *benchTemplate
	n       int               // copy number
	steps   int               // how many of the template's steps it plays
	first   int               // the first measured step
	ids     *strings.Replacer // built when the copy is first rendered, dropped when it ends
	player  *scenario.Player
	stopped bool // a step could not be rendered: the rest is not played
	// The first step when a preload played it: observed again on the measured engine.
	firstBody     []byte
	firstDecision *engine.Decision
}

// reset starts the workflow afresh on another engine.
func (w *benchWorkflow) reset(e scenario.Engine) {
	w.player, w.first, w.stopped = scenario.NewPlayer(e), 0, false
}

// body renders step j: the copy's ids, placeholders replaced from its own state.
func (w *benchWorkflow) body(ctx context.Context, j int) ([]byte, error) {
	if w.ids == nil {
		w.ids = suffixIDs(w.tpl.ids, fmt.Sprintf("-b%d", w.n))
	}
	return w.player.Render(ctx, json.RawMessage(w.ids.Replace(string(w.tpl.requests[j]))))
}

func (w *benchWorkflow) observe(body []byte, d *engine.Decision) {
	if d != nil {
		w.player.Observe(body, d)
	}
}

// benchFiles lists the scenario files of the bundle: the shipped ones, or those under
// DIR/policies_test with --bundle DIR.
func (c *cli) benchFiles() (fs.FS, []string, error) {
	fsys := fs.FS(policiestest.Scenarios)
	if c.bundle.set {
		fsys = os.DirFS(filepath.Join(c.bundle.value, "policies_test"))
	}
	files, err := scenario.Files(fsys)
	return fsys, files, err
}

// benchTemplates reads the scenarios of the loaded packs and plays the first once on
// an in-memory engine for records and a state snapshot to preload stores with.
func (c *cli) benchTemplates(ctx context.Context, b engine.Bundle, pack string) (tpls []*benchTemplate, filler [][]byte, state []byte, err error) {
	fsys, files, err := c.benchFiles()
	if err != nil {
		return nil, nil, nil, err
	}
	e, err := engine.Open(ctx, engine.Options{InMemory: true, Bundle: &b, EvalTimeout: benchEvalTimeout})
	if err != nil {
		return nil, nil, nil, err
	}
	defer closeEngine(e, &err)
	known := map[string]bool{}
	for _, p := range e.Packs() {
		known[p.Name] = true
	}
	if pack != "" && !known[pack] {
		return nil, nil, nil, withHint(fmt.Errorf("no pack named %q", pack), "'handoffctl packs' lists the packs")
	}
	var first *scenario.Scenario
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, nil, nil, err
		}
		s, err := scenario.Parse(data)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		if !known[s.Pack] || (pack != "" && s.Pack != pack) {
			continue
		}
		if !s.Steps[0].At().IsZero() {
			continue // it sets the time (deadlines, expiries): its copies cannot run at the clock
		}
		t := &benchTemplate{pack: s.Pack, name: path.Base(f)}
		for _, st := range s.Steps {
			t.requests = append(t.requests, st.Request)
			t.outcomes = append(t.outcomes, st.Expect.Outcome)
		}
		t.ids = requestIDs(t.requests)
		tpls = append(tpls, t)
		if first == nil {
			first = s
		}
	}
	if len(tpls) == 0 {
		return nil, nil, nil, withHint(errors.New("no scenario files to build the load from"),
			"packs keep their scenarios in policies_test/handoff/<pack>/scenarios/")
	}
	var tenant, workflow string
	err = scenario.Run(ctx, e, first, func(r scenario.Result) {
		if workflow == "" && r.Decision.Recorded && r.Decision.Kind == "start" && r.Decision.Outcome != engine.Block {
			tenant, workflow = r.Decision.TenantID, r.Decision.WorkflowID
			if st, err := e.State(ctx, tenant, workflow); err == nil {
				state, _ = json.Marshal(st)
			}
		}
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if workflow != "" {
		err = e.History(ctx, tenant, workflow, func(ent engine.Entry) error {
			b, err := json.Marshal(ent)
			filler = append(filler, b)
			return err
		})
		if err != nil {
			return nil, nil, nil, err
		}
	}
	if len(filler) == 0 || state == nil {
		return nil, nil, nil, fmt.Errorf("scenario %s recorded no workflow to preload stores with", first.Name)
	}
	return tpls, filler, state, nil
}

// requestIDs collects the request, trace and workflow ids of requests.
func requestIDs(bodies []json.RawMessage) []string {
	seen := map[string]bool{}
	var ids []string
	for _, b := range bodies {
		var obj map[string]any
		if json.Unmarshal(b, &obj) != nil {
			continue
		}
		for _, k := range []string{"request_id", "trace_id", "workflow_id"} {
			if s, ok := obj[k].(string); ok && s != "" && !strings.HasPrefix(s, "${") && !seen[s] {
				seen[s] = true
				ids = append(ids, s)
			}
		}
	}
	return ids
}

// suffixIDs replaces every quoted id with the id and a suffix.
func suffixIDs(ids []string, suffix string) *strings.Replacer {
	var pairs []string
	for _, id := range ids {
		q := strconv.Quote(id)
		pairs = append(pairs, q, strconv.Quote(id+suffix))
	}
	return strings.NewReplacer(pairs...)
}

// benchLoad makes the workflows of the load.
func benchLoad(tpls []*benchTemplate, o benchOptions) []*benchWorkflow {
	var wfs []*benchWorkflow
	total := 0
	for i := 0; ; i++ {
		if o.decisions == 0 && i == o.workflows || o.decisions > 0 && total >= o.decisions {
			break
		}
		t := tpls[i%len(tpls)]
		steps := len(t.requests)
		if o.decisions > 0 {
			steps = min(steps, o.decisions-total)
		}
		total += steps
		wfs = append(wfs, &benchWorkflow{tpl: t, n: i, steps: steps})
	}
	return wfs
}

// benchMode is the measure of one mode.
type benchMode struct {
	Mode               string  `json:"mode"`
	Decisions          int     `json:"decisions"`
	DecisionsPerSecond float64 `json:"decisions_per_second"`
	P50ms              float64 `json:"p50_ms"`
	P99ms              float64 `json:"p99_ms"`
	Maxms              float64 `json:"max_ms"`
	CPUPerDecisionus   float64 `json:"cpu_per_decision_us"`
	PeakRSSBytes       int64   `json:"peak_rss_bytes"`
	AllocsPerDecision  float64 `json:"allocs_per_decision"`
	Unexpected         int     `json:"unexpected_outcomes"`
	Errors             int     `json:"errors"`
	Seconds            float64 `json:"seconds"`
}

type benchLoadInfo struct {
	Packs        []string       `json:"packs"`
	Scenarios    int            `json:"scenarios"`
	Workflows    int            `json:"workflows"`
	Decisions    int            `json:"decisions"`
	Concurrency  int            `json:"concurrency"`
	History      int            `json:"history"`
	StoreSize    int            `json:"store_size"`
	Outcomes     map[string]int `json:"outcomes"`
	StoreOpenms  float64        `json:"store_open_ms,omitempty"`
	PreloadSecs  float64        `json:"preload_seconds,omitempty"`
	GoMaxProcs   int            `json:"gomaxprocs"`
	FsyncP50ms   float64        `json:"fsync_p50_ms,omitempty"`
	CeilingPerSe float64        `json:"cpu_ceiling_decisions_per_second,omitempty"`
	CeilingMode  string         `json:"cpu_ceiling_mode,omitempty"`
}

type benchReport struct {
	Load   benchLoadInfo      `json:"load"`
	Modes  []benchMode        `json:"modes"`
	Ratios map[string]float64 `json:"ratios"`
}

// meter measures one mode: latencies, wall and CPU time, allocations and peak RSS.
type meter struct {
	name      string
	lat       []time.Duration
	n         atomic.Int64
	total     int
	bad       atomic.Int64
	skipped   atomic.Int64 // steps not played
	errs      atomic.Int64
	firstErr  atomic.Pointer[error]
	wall      time.Duration
	cpu       time.Duration
	allocs    uint64
	rss       int64
	startWall time.Time
	startCPU  time.Duration
	startAll  uint64
	progress  *progress
}

func newMeter(name string, total int, p *progress) *meter {
	m := &meter{name: name, lat: make([]time.Duration, total), total: total, progress: p}
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	p.start(name, total, &m.n)
	return m
}

func (m *meter) resume() {
	m.startWall, m.startCPU, m.startAll = time.Now(), cpuTime(), heapAllocs()
}

func (m *meter) pause() {
	m.wall += time.Since(m.startWall)
	m.cpu += cpuTime() - m.startCPU
	m.allocs += heapAllocs() - m.startAll
}

func (m *meter) record(lat time.Duration, ok bool, err error) {
	i := m.n.Add(1) - 1
	if int(i) == m.total/2 {
		heapProfile.write()
	}
	if int(i) < len(m.lat) {
		m.lat[i] = lat
	}
	if err != nil {
		m.errs.Add(1)
		m.firstErr.CompareAndSwap(nil, &err)
	} else if !ok {
		m.bad.Add(1)
	}
}

// unplayable counts n steps that could not be played as unexpected outcomes.
func (m *meter) unplayable(n int) {
	m.bad.Add(int64(n))
	m.skipped.Add(int64(n))
}

func (m *meter) result() benchMode {
	m.progress.stop()
	m.rss = peakRSS()
	n := int(m.n.Load())
	lat := slices.Clone(m.lat[:min(n, len(m.lat))])
	slices.Sort(lat)
	r := benchMode{Mode: m.name, Decisions: n, PeakRSSBytes: m.rss, Unexpected: int(m.bad.Load()),
		Errors: int(m.errs.Load()), Seconds: m.wall.Seconds()}
	if n > 0 {
		r.DecisionsPerSecond = float64(n) / m.wall.Seconds()
		r.P50ms = ms(lat[(len(lat)-1)/2])
		r.P99ms = ms(lat[(len(lat)-1)*99/100])
		r.Maxms = ms(lat[len(lat)-1])
		r.CPUPerDecisionus = float64(m.cpu.Microseconds()) / float64(n)
		r.AllocsPerDecision = float64(m.allocs) / float64(n)
	}
	return r
}

func (m *meter) err() error {
	if p := m.firstErr.Load(); p != nil {
		return fmt.Errorf("%s: %d decisions failed, the first: %w", m.name, m.errs.Load(), *p)
	}
	return nil
}

// heapProfile is the --memprofile of the run, written once, by the first mode to reach
// half of its decisions.
var heapProfile = &halfwayProfile{}

type halfwayProfile struct {
	path string
	once sync.Once
}

// write writes the heap profile once, after a collection, so that it shows what is live.
// A failure is reported and the run goes on.
func (h *halfwayProfile) write() {
	if h.path == "" {
		return
	}
	h.once.Do(func() {
		runtime.GC()
		f, err := os.Create(h.path)
		if err == nil {
			err = errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "handoffctl bench: --memprofile: %v\n", err)
		}
	})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// parallel runs fn(i) for i in [0, n) on k goroutines.
func parallel(n, k int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(k, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// bench runs the load in every mode and prints the report.
func (c *cli) bench(ctx context.Context, o benchOptions) (err error) {
	b, err := c.loadBundle()
	if err != nil {
		return err
	}
	tpls, filler, state, err := c.benchTemplates(ctx, b, o.pack)
	if err != nil {
		return err
	}
	wfs := benchLoad(tpls, o)
	rep := benchReport{Ratios: map[string]float64{}}
	rep.Load = benchLoadInfo{Scenarios: len(tpls), Workflows: len(wfs), Concurrency: o.concurrency,
		History: o.history, StoreSize: o.storeSize, Outcomes: map[string]int{}, GoMaxProcs: runtime.GOMAXPROCS(0)}
	for _, t := range tpls {
		if !slices.Contains(rep.Load.Packs, t.pack) {
			rep.Load.Packs = append(rep.Load.Packs, t.pack)
		}
	}
	for _, w := range wfs {
		rep.Load.Decisions += w.steps
		for _, oc := range w.tpl.outcomes[:w.steps] {
			rep.Load.Outcomes[string(oc)]++
		}
	}
	prog := newProgress(c.stderr)
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	heapProfile.path = o.memProfile
	tmp, err := os.MkdirTemp("", "handoffctl-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	if o.run["durable"] || o.run["naive"] {
		rep.Load.FsyncP50ms = fsyncLatency(tmp)
	}
	if o.run["durable"] {
		m, err := c.benchDurable(ctx, b, filepath.Join(tmp, "durable"), wfs, filler, state, o, &rep.Load, prog)
		if err != nil {
			return err
		}
		rep.Modes = append(rep.Modes, m)
	}
	if o.run["dry-run"] || o.run["raw-opa"] {
		dry, raw, err := c.benchDry(ctx, b, wfs, o, prog)
		if err != nil {
			return err
		}
		if o.run["dry-run"] {
			rep.Modes = append(rep.Modes, dry)
		}
		if o.run["raw-opa"] {
			rep.Modes = append(rep.Modes, raw)
		}
	}
	if o.run["naive"] {
		noHistory := o
		noHistory.history, noHistory.storeSize = 0, 0
		var info benchLoadInfo
		m, err := c.benchSubmit(ctx, b, engine.Options{Dir: filepath.Join(tmp, "naive"), NoGroupCommit: true, EvalTimeout: benchEvalTimeout}, "naive durable", wfs, noHistory, nil, nil, &info, prog)
		if err != nil {
			return err
		}
		rep.Modes = append(rep.Modes, m)
	}
	modes := map[string]benchMode{}
	for _, m := range rep.Modes {
		modes[m.Mode] = m
	}
	for _, name := range []string{"durable", "dry run"} {
		if m := modes[name]; m.CPUPerDecisionus > 0 {
			rep.Load.CeilingPerSe = float64(rep.Load.GoMaxProcs) * 1e6 / m.CPUPerDecisionus
			rep.Load.CeilingMode = name
			break
		}
	}
	ratio := func(name string, a, b float64) {
		if a > 0 && b > 0 {
			rep.Ratios[name] = a / b
		}
	}
	ratio("dry_run_p50_over_raw_opa_p50", modes["dry run"].P50ms, modes["raw OPA"].P50ms)
	ratio("durable_over_dry_run_throughput", modes["durable"].DecisionsPerSecond, modes["dry run"].DecisionsPerSecond)
	ratio("durable_over_naive_throughput", modes["durable"].DecisionsPerSecond, modes["naive durable"].DecisionsPerSecond)
	if c.json() {
		return writeJSON(c.stdout, rep)
	}
	printBench(c.stdout, rep)
	for _, m := range rep.Modes {
		if m.Unexpected > 0 {
			fmt.Fprintf(c.stderr, "handoffctl bench: %s: %d decisions did not get the outcome their scenario expects\n", m.Mode, m.Unexpected)
		}
	}
	return nil
}

// benchDurable runs the durable mode: preload, then the load with Submit.
// It also times opening the store it leaves, without the bundle.
func (c *cli) benchDurable(ctx context.Context, b engine.Bundle, dir string, wfs []*benchWorkflow, filler [][]byte, state []byte, o benchOptions, info *benchLoadInfo, prog *progress) (benchMode, error) {
	m, err := c.benchSubmit(ctx, b, engine.Options{Dir: dir, EvalTimeout: benchEvalTimeout}, "durable", wfs, o, filler, state, info, prog)
	if err != nil {
		return m, err
	}
	t0 := time.Now()
	l, err := store.Open(ctx, store.Options{Dir: dir})
	if err != nil {
		return m, err
	}
	info.StoreOpenms = ms(time.Since(t0))
	return m, l.Close()
}

// benchSubmit plays the load with Submit, each workflow's steps in order, concurrency
// workflows at a time.
func (c *cli) benchSubmit(ctx context.Context, b engine.Bundle, opts engine.Options, name string, wfs []*benchWorkflow, o benchOptions, filler [][]byte, state []byte, info *benchLoadInfo, prog *progress) (res benchMode, err error) {
	opts.Bundle = &b
	t0 := time.Now()
	if o.storeSize > 0 || o.history > 0 {
		if err := preload(ctx, opts, wfs, o, filler, state, prog); err != nil {
			return res, err
		}
		info.PreloadSecs = time.Since(t0).Seconds()
	}
	e, err := engine.Open(ctx, opts)
	if err != nil {
		return res, err
	}
	defer closeEngine(e, &err)
	total := 0
	for _, w := range wfs {
		first := w.first
		w.reset(e)
		if first > 0 { // the preload played the first step
			w.first = first
			w.observe(w.firstBody, w.firstDecision)
		}
		total += w.steps - w.first
	}
	m := newMeter(name, total, prog)
	m.resume()
	parallel(len(wfs), o.concurrency, func(i int) {
		w := wfs[i]
		for j := w.first; j < w.steps && ctx.Err() == nil; j++ {
			body, err := w.body(ctx, j)
			if err != nil {
				// An earlier step got another outcome than its scenario expects (a
				// policy that reads the clock, under a slow machine), so this step
				// refers to something that does not exist: the workflow stops here.
				m.unplayable(w.steps - j)
				return
			}
			t := time.Now()
			d, err := e.Submit(ctx, body)
			m.record(time.Since(t), d != nil && d.Outcome == w.tpl.outcomes[j], err)
			w.observe(body, d)
		}
		// A strings.Replacer over a scenario's ids weighs tens of kilobytes: kept for
		// every copy of a large load it, not the engine, would be the run's memory.
		w.ids = nil
	})
	m.pause()
	if err := ctx.Err(); err != nil {
		return res, err
	}
	return m.result(), m.err()
}

// preload fills the store before the load: --store-size records over workflows of 100
// records each, and --history records in every workflow of the load after its first
// step, which is submitted here.
func preload(ctx context.Context, opts engine.Options, wfs []*benchWorkflow, o benchOptions, filler [][]byte, state []byte, prog *progress) error {
	now := time.Now().UTC()
	records := func(n, from int) []store.NewRecord {
		out := make([]store.NewRecord, n)
		for i := range out {
			out[i] = store.NewRecord{Type: "decision", Payload: filler[(from+i)%len(filler)]}
		}
		return out
	}
	type head struct {
		tenant, workflow string
		version          uint64
	}
	heads := make([]head, len(wfs))
	if o.history > 0 {
		e, err := engine.Open(ctx, opts)
		if err != nil {
			return err
		}
		for i, w := range wfs {
			w.reset(e)
			body, err := w.body(ctx, 0)
			if err != nil {
				e.Close()
				return err
			}
			d, err := e.Submit(ctx, body)
			if err != nil {
				e.Close()
				return err
			}
			w.first, w.firstBody, w.firstDecision = 1, body, d
			if d.Recorded && d.Kind == "start" && d.Outcome != engine.Block {
				heads[i] = head{d.TenantID, d.WorkflowID, d.StateVersion}
			}
		}
		if err := e.Close(); err != nil {
			return err
		}
	}
	l, err := store.Open(ctx, store.Options{Dir: opts.Dir})
	if err != nil {
		return err
	}
	const perWorkflow = 100
	pre := (o.storeSize + perWorkflow - 1) / perWorkflow
	var n atomic.Int64
	prog.start("preload", o.storeSize+o.history*len(wfs), &n)
	var mu sync.Mutex
	var first error
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
		}
		mu.Unlock()
	}
	parallel(pre, 32, func(i int) {
		k := min(perWorkflow, o.storeSize-i*perWorkflow)
		_, err := l.Append(ctx, store.Append{Tenant: "bench-preload", Workflow: fmt.Sprintf("preload-%d", i), Create: true, BumpVersion: true,
			Records: records(k, i), State: state, Time: now})
		if err != nil {
			fail(err)
		}
		n.Add(int64(k))
	})
	parallel(len(wfs), 32, func(i int) {
		h := heads[i]
		if h.workflow == "" {
			return
		}
		for done := 0; done < o.history; {
			k := min(500, o.history-done)
			_, err := l.Append(ctx, store.Append{Tenant: h.tenant, Workflow: h.workflow, ExpectedVersion: h.version,
				Records: records(k, done), Time: now})
			if err != nil {
				fail(err)
				return
			}
			done += k
			n.Add(int64(k))
		}
	})
	prog.stop()
	if err := l.Close(); err != nil && first == nil {
		first = err
	}
	return first
}

// benchDry runs the dry run and raw OPA modes. The dry run goes step by step: the
// requests of step j of every workflow are evaluated (measured), then submitted to an
// in-memory store to advance the workflows (not measured). The raw OPA mode evaluates
// the policy inputs built for the first copy of every scenario, in the same mix.
func (c *cli) benchDry(ctx context.Context, b engine.Bundle, wfs []*benchWorkflow, o benchOptions, prog *progress) (dry, raw benchMode, err error) {
	e, err := engine.Open(ctx, engine.Options{InMemory: true, Bundle: &b, EvalTimeout: benchEvalTimeout})
	if err != nil {
		return dry, raw, err
	}
	defer closeEngine(e, &err)
	total, steps := 0, 0
	for _, w := range wfs {
		total += w.steps
		steps = max(steps, w.steps)
	}
	inputs := map[*benchTemplate][]engine.PolicyInput{}
	firsts := map[*benchTemplate]*benchWorkflow{}
	for _, w := range wfs {
		if firsts[w.tpl] == nil {
			firsts[w.tpl] = w
			inputs[w.tpl] = make([]engine.PolicyInput, len(w.tpl.requests))
		}
	}
	m := newMeter("dry run", total, prog)
	var active []*benchWorkflow
	var perr error
	var pmu sync.Mutex
	for j := 0; j < steps && ctx.Err() == nil; j++ {
		active = active[:0]
		var bodies [][]byte
		for _, w := range wfs {
			if j >= w.steps || w.stopped {
				continue
			}
			if j == 0 {
				w.reset(e)
			}
			body, err := w.body(ctx, j)
			if err != nil { // see benchSubmit
				w.stopped = true
				m.unplayable(w.steps - j)
				continue
			}
			active = append(active, w)
			bodies = append(bodies, body)
		}
		m.resume()
		parallel(len(active), o.concurrency, func(i int) {
			w := active[i]
			t := time.Now()
			d, err := e.Evaluate(ctx, bodies[i])
			m.record(time.Since(t), d != nil && d.Outcome == w.tpl.outcomes[j], err)
		})
		m.pause()
		parallel(len(active), o.concurrency, func(i int) {
			w := active[i]
			if firsts[w.tpl] == w {
				in, err := e.PolicyInput(ctx, bodies[i])
				pmu.Lock()
				if err != nil && perr == nil {
					perr = err
				}
				pmu.Unlock()
				inputs[w.tpl][j] = in
			}
			d, err := e.Submit(ctx, bodies[i])
			if err != nil {
				pmu.Lock()
				if perr == nil {
					perr = err
				}
				pmu.Unlock()
			}
			w.observe(bodies[i], d)
		})
	}
	if err := ctx.Err(); err != nil {
		return dry, raw, err
	}
	dry = m.result()
	if err := m.err(); err != nil {
		return dry, raw, err
	}
	if perr != nil {
		return dry, raw, perr
	}
	jobs := make([]engine.PolicyInput, 0, total)
	for _, w := range wfs {
		for _, in := range inputs[w.tpl][:w.steps] {
			if in.Entrypoint() != "" {
				jobs = append(jobs, in)
			}
		}
	}
	m = newMeter("raw OPA", len(jobs), prog)
	m.resume()
	parallel(len(jobs), o.concurrency, func(i int) {
		t := time.Now()
		err := e.EvalPolicy(ctx, jobs[i])
		m.record(time.Since(t), true, err)
	})
	m.pause()
	raw = m.result()
	return dry, raw, m.err()
}

// fsyncLatency measures the median time of writing 4 KiB to a file and syncing it.
func fsyncLatency(dir string) float64 {
	f, err := os.CreateTemp(dir, "fsync-")
	if err != nil {
		return 0
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	var lat []time.Duration
	for range 100 {
		t := time.Now()
		if _, err := f.Write(buf); err != nil {
			return 0
		}
		if err := f.Sync(); err != nil {
			return 0
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	return ms(lat[len(lat)/2])
}

func printBench(w io.Writer, rep benchReport) {
	l := rep.Load
	fmt.Fprintf(w, "load: %s, %d workflows from %d scenarios, %d decisions, concurrency %d, history %d, store size %d\n",
		strings.Join(l.Packs, "+"), l.Workflows, l.Scenarios, l.Decisions, l.Concurrency, l.History, l.StoreSize)
	var oc []string
	for _, k := range sortedKeys(l.Outcomes) {
		oc = append(oc, fmt.Sprintf("%s %d", k, l.Outcomes[k]))
	}
	fmt.Fprintf(w, "outcomes: %s\n", strings.Join(oc, ", "))
	limits := fmt.Sprintf("machine: %d cores (GOMAXPROCS)", l.GoMaxProcs)
	if l.FsyncP50ms > 0 {
		limits += fmt.Sprintf(", fsync p50 %.2fms", l.FsyncP50ms)
	}
	if l.CeilingPerSe > 0 {
		limits += fmt.Sprintf(", CPU ceiling %.0f decisions/s (%s CPU/decision at 100%% of every core)", l.CeilingPerSe, l.CeilingMode)
	}
	fmt.Fprintln(w, limits)
	if l.StoreOpenms > 0 {
		s := fmt.Sprintf("durable store: %d records, reopened in %.1fms", l.StoreSize+l.Decisions+l.History*l.Workflows, l.StoreOpenms)
		if l.PreloadSecs > 0 {
			s += fmt.Sprintf(" after a %.1fs preload", l.PreloadSecs)
		}
		fmt.Fprintln(w, s)
	}
	fmt.Fprintln(w)
	t := newTable(w)
	t.row("MODE", "DECISIONS", "DECISIONS/S", "P50", "P99", "MAX", "CPU/DECISION", "PEAK RSS", "ALLOCS/DECISION")
	for _, m := range rep.Modes {
		t.row(m.Mode, strconv.Itoa(m.Decisions), fmt.Sprintf("%.0f", m.DecisionsPerSecond),
			fmtMS(m.P50ms), fmtMS(m.P99ms), fmtMS(m.Maxms), fmtMS(m.CPUPerDecisionus/1000),
			fmt.Sprintf("%.1f MB", float64(m.PeakRSSBytes)/(1<<20)), fmt.Sprintf("%.0f", m.AllocsPerDecision))
	}
	t.flush()
	if len(rep.Ratios) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, r := range []struct{ key, label, target string }{
		{"dry_run_p50_over_raw_opa_p50", "dry run p50 / raw OPA p50", "target ≤ 1.5"},
		{"durable_over_dry_run_throughput", "durable / dry run decisions/s", "target ≥ 0.8"},
		{"durable_over_naive_throughput", "durable / naive durable decisions/s", "target ≥ 4"},
	} {
		if v, ok := rep.Ratios[r.key]; ok {
			fmt.Fprintf(w, "%-37s %5.2f×  (%s)\n", r.label, v, r.target)
		}
	}
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

// progress shows a mode's progress on a terminal, and nothing otherwise.
type progress struct {
	w    io.Writer
	on   bool
	done chan struct{}
	wg   sync.WaitGroup
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) start(name string, total int, n *atomic.Int64) {
	if !p.on {
		return
	}
	p.done = make(chan struct{})
	t0 := time.Now()
	p.wg.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				fmt.Fprint(p.w, "\r\033[K")
				return
			case <-tick.C:
				fmt.Fprintf(p.w, "\r\033[K%s: %d/%d  %.1fs", name, n.Load(), total, time.Since(t0).Seconds())
			}
		}
	})
}

func (p *progress) stop() {
	if !p.on || p.done == nil {
		return
	}
	close(p.done)
	p.wg.Wait()
	p.done = nil
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}

// heapAllocs is the count of heap objects allocated so far.
func heapAllocs() uint64 {
	s := slices.Clone(allocSample)
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// resetPeakRSS makes the peak resident set size the current one (Linux); elsewhere
// the peak is the process's.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the peak resident set size since resetPeakRSS, in bytes.
func peakRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		return int64(ru.Maxrss) << 10
	}
	return 0
}
