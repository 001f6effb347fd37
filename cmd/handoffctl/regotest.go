package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/lineage"
)

var testCmd = &command{
	name:  "test",
	args:  "[-v] [-r REGEX] [--explain fails|full|notes] [--pack NAME[,NAME...]] [--coverage] [--min PERCENT] [--watch] [DIR...]",
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

A failing test is followed by the trace of its evaluation, as 'opa test --explain'
shows it: --explain fails (the default) the lines that failed and what led to them,
full the whole trace, notes only the trace() notes. The failing tests are evaluated
a second time with tracing on to get it: tracing every test would take minutes.

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
output, duration_ms and, when it failed, trace (the lines of the trace); with
--coverage also "coverage": {"min", "packs", "files"}, each entry name,
covered_lines, not_covered_lines, coverage (and for files not_covered_rows). With
--watch, one such object per run (NDJSON).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		var o testOptions
		fs.BoolVar(&o.verbose, "v", false, "list every test, passed or not, with its time and print output")
		fs.StringVar(&o.run, "r", "", "run only the tests whose full name matches `REGEX`")
		fs.StringVar(&o.explain, "explain", "fails", "`MODE` of the trace a failing test prints: fails, full or notes")
		fs.Var((*listFlag)(&o.packs), "pack", "run (and cover) only the tests of pack `NAME`; repeat or list with commas")
		fs.BoolVar(&o.coverage, "coverage", false, "report Rego coverage per file and per pack; exit 3 below --min")
		fs.Float64Var(&o.min, "min", defaultMinCoverage, "with --coverage: the coverage in `PERCENT` every pack must reach")
		fs.BoolVar(&o.watch, "watch", false, "run again whenever a file under the tested directories changes, until Ctrl-C")
		return func(ctx context.Context, c *cli, args []string) error {
			if o.min < 0 || o.min > 100 {
				return usagef("--min is a percentage from 0 to 100")
			}
			switch o.explain {
			case "fails", "full", "notes":
			default:
				return usagef("--explain must be fails, full or notes, not %q", o.explain)
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
	explain  string   // fails, full or notes
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

// testCapabilities are the capabilities the policies and tests are compiled with: the
// engine's, so that a test cannot pass on a builtin the engine removes.
func testCapabilities() *ast.Capabilities {
	return engine.Capabilities()
}

// testLine is the JSON form of one test result.
type testLine struct {
	Package  string        `json:"package"`
	Name     string        `json:"name"`
	File     string        `json:"file,omitempty"`
	Row      int           `json:"row,omitempty"`
	Result   string        `json:"result"` // pass, fail, error, skip
	Error    string        `json:"error,omitempty"`
	Output   string        `json:"output,omitempty"`
	Duration time.Duration `json:"-"`
	Millis   float64       `json:"duration_ms"`
	Trace    []string      `json:"trace,omitempty"`
}

// testReport is the JSON form of one run.
type testReport struct {
	Passed   int             `json:"passed"`
	Failed   int             `json:"failed"`
	Skipped  int             `json:"skipped"`
	Millis   float64         `json:"duration_ms"`
	Tests    []testLine      `json:"tests"`
	Coverage *coverageReport `json:"coverage,omitempty"`

	duration time.Duration
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
	var filter loader.Filter
	if len(o.packs) > 0 {
		// Every policy is loaded (a pack's rules use core's), only the chosen packs' tests.
		filter = func(path string, info fs.FileInfo, _ int) bool {
			return !info.IsDir() && isTestFile(path) && !slices.Contains(o.packs, packOf(path))
		}
	}
	modules, st, err := tester.Load(paths, filter)
	if err != nil {
		return withHint(err, "fix the Rego or data file named above")
	}
	if err := knownPacks(modules, o.packs); err != nil {
		return err
	}
	txn, err := st.NewTransaction(ctx, storage.WriteParams)
	if err != nil {
		return err
	}
	defer st.Abort(ctx, txn)
	var cov *cover.Cover
	runner := newTestRunner(ctx, st, txn, modules)
	if o.filter != nil {
		runner.Filter(o.filter.String())
	}
	if o.coverage {
		cov = cover.New()
		runner.SetCoverageQueryTracer(cov)
	}
	start := time.Now()
	ch, err := runner.RunTests(ctx, txn)
	if err != nil {
		var errs ast.Errors
		if errors.As(err, &errs) {
			err = engine.PolicyErrors(errs, "")
		}
		return withHint(fmt.Errorf("compile policies and tests: %w", err), "'handoffctl lint' shows the same errors")
	}
	label := "test"
	if o.coverage {
		label = "test --coverage"
	}
	p := c.startProgress(label, countTests(modules, o.filter))
	var rep testReport
	var failedRules []string
	for tr := range ch {
		p.step(1)
		rep.Tests = append(rep.Tests, resultLines(tr)...)
		if tr.Fail && tr.Error == nil {
			failedRules = append(failedRules, tr.Package+"."+ruleOf(tr.Name))
		}
	}
	p.finish()
	rep.duration = time.Since(start)
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failedRules) > 0 {
		traces, err := failureTraces(ctx, st, txn, modules, failedRules, o.explain)
		if err != nil {
			return err
		}
		for i, l := range rep.Tests {
			if l.Result == "fail" {
				rep.Tests[i].Trace = traces[l.Package+"."+l.Name]
			}
		}
	}
	rep.finish()
	if cov != nil {
		r := policyCoverage(cov, modules, o.min, o.packs)
		rep.Coverage = &r
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
		rep.print(c, o.verbose)
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
		if low := rep.Coverage.below(); len(low) > 0 {
			return negativef("coverage below %.0f%%: %s", o.min, strings.Join(low, ", "))
		}
	}
	return nil
}

// newTestRunner prepares a runner of the modules over the store, its compiler set up
// as the engine's.
func newTestRunner(ctx context.Context, st storage.Store, txn storage.Transaction, modules map[string]*ast.Module) *tester.Runner {
	compiler := ast.NewCompiler().
		WithCapabilities(testCapabilities()).
		WithPathConflictsCheck(storage.NonEmpty(ctx, st, txn)).
		WithEnablePrintStatements(true)
	return tester.NewRunner().
		SetCompiler(compiler).
		SetStore(st).
		SetModules(modules).
		CapturePrintOutput(true).
		SetTimeout(30 * time.Second)
}

// failureTraces evaluates the failed tests (data.PACKAGE.NAME) again with tracing on and
// returns the lines of each one's trace, filtered as --explain says, by test name (sub-
// tests by their own name, PACKAGE.NAME/SUB).
func failureTraces(ctx context.Context, st storage.Store, txn storage.Transaction, modules map[string]*ast.Module, failed []string, mode string) (map[string][]string, error) {
	quoted := make([]string, len(failed))
	for i, f := range failed {
		quoted[i] = regexp.QuoteMeta(f)
	}
	runner := newTestRunner(ctx, st, txn, modules).
		EnableTracing(true).
		Filter("^(" + strings.Join(quoted, "|") + ")$")
	ch, err := runner.RunTests(ctx, txn)
	if err != nil {
		return nil, fmt.Errorf("trace the failed tests: %w", err)
	}
	out := map[string][]string{}
	for tr := range ch {
		out[tr.Package+"."+tr.Name] = traceLines(tr.Trace, mode)
		for path, sr := range tr.SubResults.Iter {
			if sr.Fail && len(sr.SubResults) == 0 {
				out[tr.Package+"."+tr.Name+"/"+strings.Join(path, "/")] = traceLines(sr.Trace, mode)
			}
		}
	}
	return out, nil
}

// traceLines renders a trace as 'opa test --explain MODE' does.
func traceLines(trace []*topdown.Event, mode string) []string {
	switch mode {
	case "full":
		trace = lineage.Full(trace)
	case "notes":
		trace = lineage.Notes(trace)
	default:
		trace = lineage.Fails(trace)
	}
	if len(trace) == 0 {
		return nil
	}
	var b strings.Builder
	topdown.PrettyTraceWithOpts(&b, trace, topdown.PrettyTraceOptions{Locations: true})
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// ruleOf is the rule of a test name: test_x of test_x/sub/case.
func ruleOf(name string) string {
	rule, _, _ := strings.Cut(name, "/")
	return rule
}

// isTestFile says whether a file holds tests rather than policies.
func isTestFile(path string) bool { return strings.HasSuffix(path, "_test.rego") }

// knownPacks refuses a --pack no policy file belongs to.
func knownPacks(modules map[string]*ast.Module, packs []string) error {
	if len(packs) == 0 {
		return nil
	}
	have := map[string]bool{}
	for file := range modules {
		if !isTestFile(file) {
			have[packOf(file)] = true
		}
	}
	for _, p := range packs {
		if !have[p] {
			return usagef("--pack %s: no policy file of that pack here (packs: %s)", p, strings.Join(sortedKeys(have), ", "))
		}
	}
	return nil
}

// countTests counts the test rules the run evaluates, for the progress line.
func countTests(modules map[string]*ast.Module, filter *regexp.Regexp) int {
	n := 0
	for _, m := range modules {
		for _, r := range m.Rules {
			name := r.Head.Name.String()
			if len(r.Head.Reference) > 0 {
				name = r.Head.Reference[0].String()
			}
			if !strings.HasPrefix(name, tester.TestPrefix) && !strings.HasPrefix(name, tester.SkipTestPrefix) {
				continue
			}
			if filter == nil || filter.MatchString(m.Package.Path.String()+"."+name) {
				n++
			}
		}
	}
	return n
}

// finish sorts the tests and counts them.
func (r *testReport) finish() {
	if r.Tests == nil {
		r.Tests = []testLine{}
	}
	sort.Slice(r.Tests, func(i, j int) bool {
		a, b := r.Tests[i], r.Tests[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		return a.Name < b.Name
	})
	for i, l := range r.Tests {
		r.Tests[i].Millis = millis(l.Duration)
		switch l.Result {
		case "pass":
			r.Passed++
		case "skip":
			r.Skipped++
		default:
			r.Failed++
		}
	}
	r.Millis = millis(r.duration)
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// print writes the failed tests (with -v every test and its time), the summary and the
// coverage.
func (r *testReport) print(c *cli, verbose bool) {
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
		for _, t := range l.Trace {
			fmt.Fprintf(c.stdout, "      %s\n", t)
		}
	}
	summary := fmt.Sprintf("%d passed, %d failed", r.Passed, r.Failed)
	if r.Skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", r.Skipped)
	}
	if verbose {
		summary += fmt.Sprintf(" in %s", r.duration.Round(time.Millisecond))
	}
	fmt.Fprintln(c.stdout, summary)
	if r.Coverage != nil {
		r.Coverage.print(c)
	}
}

// resultLines turns one test result into lines: one, or one per leaf of its sub-results.
func resultLines(tr *tester.Result) []testLine {
	base := testLine{Package: tr.Package, Name: tr.Name, Output: string(tr.Output), Duration: tr.Duration}
	if tr.Location != nil {
		base.File, base.Row = tr.Location.File, tr.Location.Row
	}
	switch {
	case tr.Skip:
		base.Result = "skip"
	case tr.Error != nil:
		base.Result, base.Error = "error", tr.Error.Error()
	case tr.Fail:
		base.Result = "fail"
	default:
		base.Result = "pass"
	}
	if len(tr.SubResults) == 0 || tr.Error != nil || tr.Skip {
		return []testLine{base}
	}
	var out []testLine
	for path, sr := range tr.SubResults.Iter {
		if len(sr.SubResults) > 0 {
			continue
		}
		l := base
		l.Name = tr.Name + "/" + strings.Join(path, "/")
		l.Result, l.Error = "pass", ""
		if sr.Fail {
			l.Result = "fail"
		}
		out = append(out, l)
	}
	return out
}

// testedTablesInForce refuses to test the policies of a bundle whose committed tables
// differ from its CUE source: the tests would read tables the engine does not run.
func testedTablesInForce(root string) error {
	if !isDir(filepath.Join(root, "contracts")) || !isDir(filepath.Join(root, "policies")) {
		return nil
	}
	err := engine.CheckTables(engine.DirBundle(root))
	var stale *engine.StaleTablesError
	if errors.As(err, &stale) {
		return &negativeError{msg: err.Error() + "\nhint: the tests would read other tables than the engine runs; run 'handoffctl tables --write'"}
	}
	if err != nil {
		return withHint(err, "'handoffctl check' shows what is wrong with the bundle")
	}
	return nil
}
