package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine/bundle"
)

var testCmd = &command{
	name:  "test",
	args:  "[-v] [-r REGEX] [--explain summary|fails|full|notes] [--pack NAME[,NAME...]] [--coverage] [--min PERCENT] [--watch] [DIR...]",
	short: "run the Rego unit tests of the policies",
	long: `Test runs the Rego unit tests (rules named test_*) of the policies, as 'opa test'
does: every .rego and data file under the directories is loaded, compiled together
and each test is evaluated. It prints the tests that failed, then "N passed, N failed",
and exits 3 when any test failed or erred. With -v it lists every test with the time
it took, and the time of the whole run.

Without DIR it uses policies and policies_test of the current directory, or of
--bundle DIR. When that directory holds a bundle (contracts and policies) whose
committed tables differ from their CUE source, it refuses with exit 3: the tests
would read other tables than the engine runs.

-r REGEX runs only the tests whose full name (data.PACKAGE.test_NAME) matches, as
'opa test -r'. --pack NAME (repeated, or a comma list) runs only the tests of those
packs (the directory after handoff/: core, campaign, ...), with every policy loaded.

A failing test is followed by its summary: the expression of the test that did not
hold (with its file:row), and when the test held a pack's decision then (a local bound
to an object with an outcome and reasons), the decision's outcome and reasons and the
one rule that differed: the rule of a reason code the expression names and the
decision lacks, or of the first reason the expression does not name, or of the reason
that blocked. --explain adds the trace of its evaluation, as 'opa test --explain'
shows it: fails the lines that failed and what led to them, full the whole trace,
notes only the trace() notes (summary, the default, adds none). The failing tests
are evaluated a second time with tracing on: tracing every test would take minutes.

With --coverage it also reports the Rego coverage of every policy file (test files
left out: the lines of rules and expressions the tests evaluated, as 'opa test
--coverage' counts them, with the rows no test reached, adjacent rows as one range)
and of every pack, and exits 3 when a pack is below --min percent (default 90).
With --pack, only the files of those packs are reported.

--watch runs the tests again whenever a file under the tested directories changes
(a .rego or data file added, edited or removed; checked every half second), until
interrupted (Ctrl-C). It exits 0 then, whatever the last run found.

With -o json: one JSON object {"passed", "failed", "skipped", "duration_ms", "tests":
[...]}, each test package, name, file, row, result (pass, fail, error, skip), error,
output, duration_ms and, when it failed, summary (expected, at, outcome, reasons,
rule) and with --explain trace (the lines of the trace); with
--coverage also "coverage": {"min", "packs", "files"}, each entry name,
covered_lines, not_covered_lines, coverage (and for files not_covered_rows). With
--watch, one such object per run (NDJSON).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		var o testOptions
		fs.BoolVar(&o.verbose, "v", false, "list every test, passed or not, with its time and print output")
		fs.StringVar(&o.run, "r", "", "run only the tests whose full name matches `REGEX`")
		fs.StringVar(&o.explain, "explain", "summary", "`MODE` of what a failing test prints: summary, or with its trace fails, full or notes")
		fs.Var((*listFlag)(&o.packs), "pack", "run (and cover) only the tests of pack `NAME`; repeat or list with commas")
		fs.BoolVar(&o.coverage, "coverage", false, "report Rego coverage per file and per pack; exit 3 below --min")
		fs.Float64Var(&o.min, "min", bundle.DefaultMinCoverage, "with --coverage: the coverage in `PERCENT` every pack must reach")
		fs.BoolVar(&o.watch, "watch", false, "run again whenever a file under the tested directories changes, until Ctrl-C")
		return func(ctx context.Context, c *cli, args []string) error {
			if o.min < 0 || o.min > 100 {
				return usagef("--min is a percentage from 0 to 100")
			}
			switch o.explain {
			case "summary", "fails", "full", "notes":
			default:
				return usagef("--explain must be summary, fails, full or notes, not %q", o.explain)
			}
			if o.run != "" {
				re, err := regexp.Compile(o.run)
				if err != nil {
					return usagef("-r: %v", err)
				}
				o.filter = re
			}
			return c.regoTest(ctx, args, o)
		}
	},
}

// testOptions are the flags of test.
type testOptions struct {
	verbose  bool
	run      string // -r
	filter   *regexp.Regexp
	explain  string   // summary, fails, full or notes
	packs    []string // --pack; empty: every pack
	coverage bool
	min      float64
	watch    bool
}

// listFlag is a flag that may be repeated, each value a comma list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// regoTest finds what to test, then tests it once or, with --watch, until ctx ends.
func (c *cli) regoTest(ctx context.Context, paths []string, o testOptions) error {
	root := "."
	if c.bundle.set {
		root = c.bundle.value
	}
	if len(paths) == 0 {
		for _, p := range []string{"policies", "policies_test"} {
			if p = filepath.Join(root, p); isDir(p) {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			return withHint(errors.New("no policies or policies_test directory here"),
				"run in the repository root, or name the directories: handoffctl test DIR...")
		}
	}
	for _, p := range paths {
		if !isDir(p) && !isFile(p) {
			return withHint(fmt.Errorf("%s: no such file or directory", p), "check the path")
		}
	}
	if o.watch {
		return c.watchTests(ctx, root, paths, o)
	}
	return c.testOnce(ctx, root, paths, o)
}

// testOnce runs the tests once and reports them.
func (c *cli) testOnce(ctx context.Context, root string, paths []string, o testOptions) error {
	if err := testedTablesInForce(root); err != nil {
		return err
	}
	label := "test"
	if o.coverage {
		label = "test --coverage"
	}
	rep, err := bundle.Test(ctx, paths, bundle.TestOptions{
		Run:      o.filter,
		Packs:    o.packs,
		Explain:  o.explain,
		Coverage: o.coverage,
		Min:      o.min,
		Progress: &testProgress{c: c, label: label},
	})
	var (
		loadErr    *bundle.LoadError
		packErr    *bundle.UnknownPackError
		compileErr *bundle.CompileError
	)
	switch {
	case errors.As(err, &loadErr):
		return withHint(err, "fix the Rego or data file named above")
	case errors.As(err, &packErr):
		return usagef("--pack %s: no policy file of that pack here (packs: %s)", packErr.Pack, strings.Join(packErr.Packs, ", "))
	case errors.As(err, &compileErr):
		return withHint(err, "'handoffctl lint' shows the same errors")
	case err != nil:
		return err
	}
	if c.json() {
		write := writeJSON
		if o.watch {
			write = writeJSONLine
		}
		if err := write(c.stdout, rep); err != nil {
			return err
		}
	} else {
		printTestReport(c, rep, o.verbose)
	}
	if len(rep.Tests) == 0 {
		if o.filter != nil {
			return withHint(fmt.Errorf("no test matches -r %s", o.run), "-r matches full names such as data.handoff.core_test.test_allow")
		}
		return withHint(errors.New("no tests found"), "tests are rules named test_* in *_test.rego files")
	}
	if rep.Failed > 0 {
		return &negativeError{}
	}
	if rep.Coverage != nil {
		if low := rep.Coverage.Below(); len(low) > 0 {
			return negativef("coverage below %.0f%%: %s", o.min, strings.Join(low, ", "))
		}
	}
	return nil
}

// testProgress shows a test run on the progress line.
type testProgress struct {
	c     *cli
	label string
	p     *progress
}

func (t *testProgress) Start(tests int) { t.p = t.c.startProgress(t.label, tests) }
func (t *testProgress) Step()           { t.p.step(1) }
func (t *testProgress) Finish()         { t.p.finish() }

// printTestReport writes the failed tests (with -v every test and its time), the summary and the
// coverage.
func printTestReport(c *cli, r *bundle.TestReport, verbose bool) {
	for _, l := range r.Tests {
		if l.Result == "pass" && !verbose || l.Result == "skip" && !verbose {
			continue
		}
		where := ""
		if l.File != "" {
			where = fmt.Sprintf("  %s:%d", l.File, l.Row)
		}
		if verbose && l.Result != "skip" {
			where += fmt.Sprintf("  (%s)", l.Duration.Round(time.Microsecond))
		}
		fmt.Fprintf(c.stdout, "%-5s %s.%s%s\n", strings.ToUpper(l.Result), l.Package, l.Name, where)
		if l.Error != "" {
			fmt.Fprintf(c.stdout, "      %s\n", strings.ReplaceAll(l.Error, "\n", "\n      "))
		}
		if l.Output != "" && (verbose || l.Result != "pass") {
			fmt.Fprintf(c.stdout, "      %s\n", strings.ReplaceAll(strings.TrimRight(l.Output, "\n"), "\n", "\n      "))
		}
		if sm := l.Summary; sm != nil {
			fmt.Fprintf(c.stdout, "      expected  %s  (%s)\n", sm.Expected, sm.At)
			if sm.Outcome != "" {
				fmt.Fprintf(c.stdout, "      outcome   %s\n", sm.Outcome)
				for i, r := range sm.Reasons {
					label := ""
					if i == 0 {
						label = "reasons"
					}
					fmt.Fprintf(c.stdout, "      %-9s %s\n", label, r)
				}
				if len(sm.Reasons) == 0 {
					fmt.Fprintf(c.stdout, "      reasons   (none)\n")
				}
			}
			if sm.Rule != "" {
				fmt.Fprintf(c.stdout, "      rule      %s\n", sm.Rule)
			}
		}
		for _, t := range l.Trace {
			fmt.Fprintf(c.stdout, "      %s\n", t)
		}
	}
	summary := fmt.Sprintf("%d passed, %d failed", r.Passed, r.Failed)
	if r.Skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", r.Skipped)
	}
	if verbose {
		summary += fmt.Sprintf(" in %s", r.Duration.Round(time.Millisecond))
	}
	fmt.Fprintln(c.stdout, summary)
	if r.Coverage != nil {
		printCoverage(c, *r.Coverage)
	}
}

// testedTablesInForce refuses to test the policies of a bundle whose committed tables
// differ from its CUE source: the tests would read tables the engine does not run.
func testedTablesInForce(root string) error {
	if !isDir(filepath.Join(root, "contracts")) || !isDir(filepath.Join(root, "policies")) {
		return nil
	}
	err := bundle.CheckTables(bundle.Dir(root))
	var stale *bundle.StaleTablesError
	if errors.As(err, &stale) {
		return &negativeError{msg: err.Error() + "\nhint: the tests would read other tables than the engine runs; run 'handoffctl tables --write'"}
	}
	if err != nil {
		return withHint(err, "'handoffctl check' shows what is wrong with the bundle")
	}
	return nil
}
