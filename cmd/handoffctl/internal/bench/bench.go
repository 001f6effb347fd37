// Package bench measures the engine on a load built from the packs' scenario files:
// decisions per second, latency, CPU time, peak resident set size and heap
// allocations per decision, in four modes. It is the load generator of
// `handoffctl bench`; the CLI turns flags into Options, calls Run and prints the
// Report.
//
// Every scenario is a complete workflow with its mix of allows, blocks, reviews,
// retries and approvals; the load is copies of them (each with its own ids), played a
// number of workflows at a time, and every decision is checked against the outcome its
// scenario expects. Scenarios that set the time of their steps (deadlines, expiries)
// are left out: their copies run at the clock.
//
// The modes, run in this order, each on its own copy of the inputs:
//
//	durable        Submit on a Badger store in a temporary directory (group commit)
//	dry run        Evaluate: decode, validate, state read, input, policy, decision
//	               check; nothing recorded (each workflow is advanced between steps,
//	               untimed)
//	raw OPA        the pack's prepared query alone, on the inputs the engine built for
//	               the same requests: the cost of the policy
//	naive durable  Submit with every decision in its own synchronous transaction
//
// CPU time and peak RSS come from the operating system: getrusage and Linux's
// /proc/self/status on Unix systems, GetProcessTimes and the peak working set on
// Windows. A figure the platform does not give is reported as zero and printed as
// "n/a"; where the peak cannot be reset at the start of each mode (everywhere but
// Linux) it is the process's peak so far, and the report says so.
//
// Run measures the whole process: one Run at a time.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// Mode is a way of playing the load.
type Mode string

// The modes, in the order Run runs them.
const (
	Durable Mode = "durable" // Submit on a Badger store, group commit
	DryRun  Mode = "dry-run" // Evaluate: nothing recorded
	RawOPA  Mode = "raw-opa" // the pack's prepared query alone
	Naive   Mode = "naive"   // Submit, one synchronous transaction per decision
	// Postgres is Submit on the PostgreSQL store of Options.StoreURL.
	Postgres Mode = "postgres"
)

// AllModes lists every mode in the order Run runs them.
var AllModes = []Mode{Durable, Postgres, DryRun, RawOPA, Naive}

// DefaultModes are the modes Run runs when Options.Modes is nil: those that need
// nothing but a temporary directory.
var DefaultModes = []Mode{Durable, DryRun, RawOPA, Naive}

// title is the mode's name in the report.
func (m Mode) title() string {
	switch m {
	case DryRun:
		return "dry run"
	case RawOPA:
		return "raw OPA"
	case Naive:
		return "naive durable"
	case Postgres:
		return "postgres durable"
	}
	return string(m)
}

// Options says what load to build and how to play it. The zero value plays 320
// workflows, 32 at a time, from the scenarios in ./policies_test, on the shipped
// packs, in every mode.
type Options struct {
	// Bundle holds the contracts and policies. Default: engine.ShippedBundle().
	Bundle *engine.Bundle
	// ScenarioDir is the directory the scenario files are read from: every
	// *.scenario file under it, as in the repository's policies_test directory
	// (handoff/<pack>/scenarios/). Default "policies_test", in the working directory.
	ScenarioDir string
	// Pack keeps the scenarios of the pack of that name only. Default: every loaded
	// pack that has scenarios.
	Pack string
	// Workflows is the number of workflows, each a copy of one scenario. Default 320.
	// Ignored when Decisions is set.
	Workflows int
	// Decisions, when set, is the number of decisions: as many workflows as it takes,
	// the last one cut short. Default 0: Workflows decides.
	Decisions int
	// Concurrency is the number of workflows played at the same time. Default 32.
	Concurrency int
	// History appends that many prior records to every workflow of the durable load
	// after its first step, which is then not measured. Default 0.
	History int
	// StoreSize preloads the durable store with that many records, 100 per workflow,
	// before the durable load. Default 0.
	StoreSize int
	// StoreURL is the PostgreSQL database of the postgres mode ("postgres://…"),
	// migrated by Run when its schema lacks this version's. Its workflows' ids carry a
	// tag drawn for the run, so that several processes can load one database at once.
	StoreURL string
	// Modes are the modes to run; Run runs them in the order of AllModes. Default
	// (nil): DefaultModes. An empty, non-nil list runs none: the load is built and the
	// report describes it.
	Modes []Mode
	// CPUProfile, when set, is the file a CPU profile of the whole run is written to.
	CPUProfile string
	// MemProfile, when set, is the file a heap profile is written to half way through
	// the first mode: what is live while decisions are made.
	MemProfile string
	// Progress, when set, receives each mode's progress, rewritten in place on one
	// line: it is meant for a terminal. Default: no progress.
	Progress io.Writer
	// Warn, when set, is called with what goes wrong without stopping the run: a heap
	// profile that cannot be written. Default: nothing is said.
	Warn func(error)
}

// Errors of Run that a caller may want to explain.
var (
	// ErrNoScenarioDir means that Options.ScenarioDir does not exist or is not a
	// directory.
	ErrNoScenarioDir = errors.New("bench: no scenario directory")
	// ErrNoStoreURL means that the postgres mode was asked for without a
	// PostgreSQL URL in Options.StoreURL.
	ErrNoStoreURL = errors.New("bench: the postgres mode needs a postgres:// URL")
	// ErrNoScenarios means that the scenario directory holds no scenario of a loaded
	// pack to build the load from.
	ErrNoScenarios = errors.New("bench: no scenario files to build the load from")
)

// UnknownPackError is the error of an Options.Pack that names no loaded pack.
type UnknownPackError struct {
	Pack string
}

func (e *UnknownPackError) Error() string { return fmt.Sprintf("bench: no pack named %q", e.Pack) }

// evalTimeout is the policy deadline of the engines Run opens: long, so that an
// overloaded machine measures slow decisions instead of POLICY_TIMEOUT blocks.
const evalTimeout = time.Minute

// run is one Run: its options, progress and heap profile.
type run struct {
	o    Options
	b    engine.Bundle
	prog *progress
	heap *halfwayProfile
	// work is the policy's work per pack and kind, counted in the raw OPA mode.
	work []PolicyWork
}

// Run builds the load and plays it in the modes of o, and returns what it measured.
// An error means that the load could not be built or a mode could not run;
// decisions that get another outcome than their scenario expects are counted in the
// report, not errors.
func Run(ctx context.Context, o Options) (_ *Report, err error) {
	if o.Workflows == 0 {
		o.Workflows = 320
	}
	if o.Concurrency == 0 {
		o.Concurrency = 32
	}
	if o.ScenarioDir == "" {
		o.ScenarioDir = "policies_test"
	}
	if o.Modes == nil {
		o.Modes = DefaultModes
	}
	if o.Workflows < 0 || o.Concurrency < 0 || o.Decisions < 0 || o.History < 0 || o.StoreSize < 0 {
		return nil, errors.New("bench: negative workflows, concurrency, decisions, history or store size")
	}
	for _, m := range o.Modes {
		if !slices.Contains(AllModes, m) {
			return nil, fmt.Errorf("bench: unknown mode %q", m)
		}
	}
	if slices.Contains(o.Modes, Postgres) && !store.IsURL(o.StoreURL) {
		return nil, ErrNoStoreURL
	}
	fsys, err := scenarioFS(o.ScenarioDir)
	if err != nil {
		return nil, err
	}
	r := &run{o: o, b: engine.ShippedBundle(), prog: newProgress(o.Progress), heap: &halfwayProfile{path: o.MemProfile, warn: o.Warn}}
	if o.Bundle != nil {
		r.b = *o.Bundle
	}
	tpls, filler, state, err := r.templates(ctx, fsys)
	if err != nil {
		return nil, err
	}
	wfs := newLoad(tpls, o)
	rep := &Report{Ratios: map[string]float64{}}
	rep.Load = LoadInfo{Scenarios: len(tpls), Workflows: len(wfs), Concurrency: o.Concurrency,
		History: o.History, StoreSize: o.StoreSize, Outcomes: map[string]int{}, GoMaxProcs: runtime.GOMAXPROCS(0)}
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
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, fmt.Errorf("bench: CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, fmt.Errorf("bench: CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	tmp, err := os.MkdirTemp("", "handoff-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	runs := func(m Mode) bool { return slices.Contains(o.Modes, m) }
	if runs(Durable) || runs(Naive) {
		rep.Load.FsyncP50ms = fsyncLatency(tmp)
	}
	if runs(Durable) {
		m, err := r.durable(ctx, filepath.Join(tmp, "durable"), wfs, filler, state, &rep.Load)
		if err != nil {
			return nil, err
		}
		rep.Modes = append(rep.Modes, m)
	}
	if runs(Postgres) {
		m, err := r.postgres(ctx, wfs, filler, state, &rep.Load)
		if err != nil {
			return nil, err
		}
		rep.Modes = append(rep.Modes, m)
	}
	if runs(DryRun) || runs(RawOPA) {
		dry, raw, err := r.dry(ctx, wfs)
		if err != nil {
			return nil, err
		}
		if runs(DryRun) {
			rep.Modes = append(rep.Modes, dry)
		}
		if runs(RawOPA) {
			rep.Modes = append(rep.Modes, raw)
			rep.PolicyWork = r.work
		}
	}
	if runs(Naive) {
		var info LoadInfo
		opts := engine.Options{Dir: filepath.Join(tmp, "naive"), NoGroupCommit: true, EvalTimeout: evalTimeout}
		m, err := r.submit(ctx, opts, Naive, wfs, false, nil, nil, &info)
		if err != nil {
			return nil, err
		}
		rep.Modes = append(rep.Modes, m)
	}
	rep.summarize()
	return rep, nil
}
