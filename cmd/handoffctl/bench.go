package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/handoff-dev/handoff/cmd/handoffctl/internal/bench"
	"github.com/handoff-dev/handoff/store"
)

var benchCmd = &command{
	name:  "bench",
	args:  "[--pack P] [--workflows N | --decisions N] [--concurrency N] [--history N] [--store-size N] [--modes LIST] [--dry-run] [--cpuprofile FILE] [--memprofile FILE]",
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
  postgres       Submit on the PostgreSQL store of --store postgres://… (only when
                 asked for with --modes): the durable load, its ids tagged for the run
                 so that several bench processes can load one database at once, with the
                 CPU the PostgreSQL server processes of this machine used beside it

and prints, per mode: decisions, decisions/s, p50/p99/max latency, CPU time per decision,
peak RSS during the mode and heap allocations per decision, then the ratios the
performance targets are stated in. After the raw OPA mode it counts, untimed, the Rego
expressions each of its decisions evaluates, and prints their mean by pack and kind: the
policy's work, which the machine's load does not change. The policy deadline is one minute instead of two
seconds, so that a busy machine gives slow decisions rather than POLICY_TIMEOUT blocks. Every decision is checked against the outcome its
scenario expects; unexpected outcomes are counted. Scenarios that set the time of
their steps (deadlines, expiries) are left out: their copies run at the clock.

--history N appends N prior records to every workflow of the durable load after its
first step (that step is then not measured); --store-size N preloads N records, 100 per
workflow, before the durable load. --modes picks the modes; --dry-run
keeps only the dry run and raw OPA modes: nothing touches the disk. Progress goes to standard error when it is a terminal.

The scenarios are read from ./policies_test (run bench from the repository), or from
DIR/policies_test with --bundle DIR: they are not part of the binary.
With -o json the result is one JSON object: load, limits, modes and ratios.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		o := bench.Options{}
		var dryRun bool
		var modes string
		fs.StringVar(&o.Pack, "pack", "", "only the scenarios of pack `NAME` (default: every pack that has scenarios)")
		fs.IntVar(&o.Workflows, "workflows", 320, "`N` workflows, each a copy of one scenario (ignored with --decisions)")
		fs.IntVar(&o.Decisions, "decisions", 0, "`N` decisions: as many workflows as it takes, the last one cut short")
		fs.IntVar(&o.Concurrency, "concurrency", 32, "`N` workflows played at the same time")
		fs.IntVar(&o.History, "history", 0, "`N` prior records in every workflow of the durable load")
		fs.IntVar(&o.StoreSize, "store-size", 0, "`N` records preloaded in the durable store, 100 per workflow")
		fs.BoolVar(&dryRun, "dry-run", false, "only the dry run and raw OPA modes; nothing is written to disk")
		fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the whole run to `FILE`")
		fs.StringVar(&o.MemProfile, "memprofile", "", "write a heap profile to `FILE` half way through the first mode: what is live while decisions are made")
		fs.StringVar(&modes, "modes", "durable,dry-run,raw-opa,naive", "the modes to run: a comma-separated `LIST` of durable, postgres, dry-run, raw-opa and naive")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("bench takes no arguments")
			}
			o.Modes = []bench.Mode{}
			for m := range strings.SplitSeq(modes, ",") {
				mode := bench.Mode(strings.TrimSpace(m))
				if !slices.Contains(bench.AllModes, mode) {
					return usagef("--modes: unknown mode %q: the modes are durable, postgres, dry-run, raw-opa and naive", mode)
				}
				if mode == bench.Postgres && !store.IsURL(c.db.value) {
					return usagef("--modes postgres needs the database: --store postgres://…")
				}
				if !dryRun || mode == bench.DryRun || mode == bench.RawOPA {
					o.Modes = append(o.Modes, mode)
				}
			}
			if o.Workflows < 1 || o.Concurrency < 1 || o.Decisions < 0 || o.History < 0 || o.StoreSize < 0 {
				return usagef("--workflows and --concurrency must be positive; --decisions, --history and --store-size not negative")
			}
			return c.bench(ctx, o)
		}
	},
}

// bench runs the load and prints the report.
func (c *cli) bench(ctx context.Context, o bench.Options) error {
	b, err := c.loadBundle()
	if err != nil {
		return err
	}
	o.Bundle = &b
	if store.IsURL(c.db.value) {
		o.StoreURL = c.db.value
	}
	o.ScenarioDir = "policies_test"
	if c.bundle.set {
		o.ScenarioDir = filepath.Join(c.bundle.value, "policies_test")
	}
	if c.progressOn() {
		o.Progress = c.stderr
	}
	o.Warn = func(err error) { fmt.Fprintf(c.stderr, "handoffctl bench: --memprofile: %v\n", err) }
	rep, err := bench.Run(ctx, o)
	if err != nil {
		return benchHint(err, c.bundle.set)
	}
	if c.json() {
		return writeJSON(c.stdout, rep)
	}
	if err := rep.WriteText(c.stdout); err != nil {
		return err
	}
	for _, m := range rep.Modes {
		if m.Unexpected > 0 {
			fmt.Fprintf(c.stderr, "handoffctl bench: %s: %s did not get the outcome its scenario expects\n", m.Mode, count(m.Unexpected, "decision"))
		}
	}
	return nil
}

// benchHint adds what to do next to the errors of bench.Run that have an answer.
// The command's name already prefixes what it prints: the package's goes.
func benchHint(err error, bundle bool) error {
	err = &benchError{err}
	var unknown *bench.UnknownPackError
	switch {
	case errors.Is(err, bench.ErrNoScenarioDir) && bundle:
		return withHint(err, "with --bundle DIR the scenarios are read from DIR/policies_test/handoff/<pack>/scenarios/")
	case errors.Is(err, bench.ErrNoScenarioDir):
		return withHint(err, "run it from the repository, or pass --bundle DIR")
	case errors.Is(err, bench.ErrNoScenarios):
		return withHint(err, "packs keep their scenarios in policies_test/handoff/<pack>/scenarios/")
	case errors.As(err, &unknown):
		return withHint(err, "'handoffctl packs' lists the packs")
	}
	return err
}

// isTerminal says whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// benchError is an error of bench.Run without its package's prefix.
type benchError struct{ err error }

func (e *benchError) Error() string { return strings.TrimPrefix(e.err.Error(), "bench: ") }
func (e *benchError) Unwrap() error { return e.err }
