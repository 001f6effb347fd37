package bundle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/lineage"

	"github.com/handoff-dev/handoff/engine/internal/policy"
)

// TestOptions choose the Rego unit tests Test runs and what it reports of them.
type TestOptions struct {
	// Run, when set, runs only the tests whose full name (data.PACKAGE.test_NAME)
	// matches, as 'opa test -r'.
	Run *regexp.Regexp
	// Packs, when set, runs (and covers) only the tests of those packs: the directory
	// after handoff/ (core, campaign, ...). Every policy is loaded still.
	Packs []string
	// Explain is the trace a failing test gets, as 'opa test --explain': "fails",
	// "full" or "notes"; "" or "summary" (the default) gives none. Every failing test
	// gets its summary whatever the mode.
	Explain string
	// Coverage reports the coverage of every policy file and pack, Min being the
	// percentage every pack must reach.
	Coverage bool
	Min      float64
	// Progress, when set, hears of the run as it goes.
	Progress Progress
}

// Progress hears of a test run: Start once the tests compiled, with the number of test
// rules to run; Step after each; Finish when the last has run, before the failed ones
// are traced.
type Progress interface {
	Start(tests int)
	Step()
	Finish()
}

// TestResult is one test, or one leaf of its sub-tests: Result is pass, fail, error or
// skip; a failed test has the lines of its trace.
type TestResult struct {
	Package  string        `json:"package"`
	Name     string        `json:"name"`
	File     string        `json:"file,omitempty"`
	Row      int           `json:"row,omitempty"`
	Result   string        `json:"result"` // pass, fail, error, skip
	Error    string        `json:"error,omitempty"`
	Output   string        `json:"output,omitempty"`
	Duration time.Duration `json:"-"`
	Millis   float64       `json:"duration_ms"`
	// Summary says what a failed test expected and what it got.
	Summary *TestSummary `json:"summary,omitempty"`
	Trace   []string     `json:"trace,omitempty"`
}

// TestReport is one run: the tests sorted by package and name, counted, and with
// TestOptions.Coverage their coverage.
type TestReport struct {
	Passed   int             `json:"passed"`
	Failed   int             `json:"failed"`
	Skipped  int             `json:"skipped"`
	Millis   float64         `json:"duration_ms"`
	Tests    []TestResult    `json:"tests"`
	Coverage *CoverageReport `json:"coverage,omitempty"`

	// Duration is the time the tests took, traces left out.
	Duration time.Duration `json:"-"`
}

// LoadError is a Rego or data file Test could not load.
type LoadError struct{ Err error }

func (e *LoadError) Error() string { return e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// CompileError says the policies and tests Test loaded do not compile together.
type CompileError struct{ Err error }

func (e *CompileError) Error() string { return e.Err.Error() }
func (e *CompileError) Unwrap() error { return e.Err }

// UnknownPackError is a pack of TestOptions.Packs no policy file belongs to.
type UnknownPackError struct {
	Pack  string
	Packs []string // the packs there are
}

func (e *UnknownPackError) Error() string {
	return fmt.Sprintf("no policy file of pack %s (packs: %s)", e.Pack, strings.Join(e.Packs, ", "))
}

// Test runs the Rego unit tests (rules named test_*) of every .rego and data file under
// paths, as 'opa test' does, compiled with the engine's capabilities so that no test
// passes on a builtin the engine removes. The failed tests are evaluated a second time
// with tracing on, for their traces: tracing every test would take minutes. A failing
// test is in the report, not an error.
func Test(ctx context.Context, paths []string, o TestOptions) (*TestReport, error) {
	var filter loader.Filter
	if len(o.Packs) > 0 {
		// Every policy is loaded (a pack's rules use core's), only the chosen packs' tests.
		filter = func(path string, info fs.FileInfo, _ int) bool {
			return !info.IsDir() && isTestFile(path) && !slices.Contains(o.Packs, packOf(path))
		}
	}
	modules, st, err := tester.Load(paths, filter)
	if err != nil {
		return nil, &LoadError{err}
	}
	if err := knownPacks(modules, o.Packs); err != nil {
		return nil, err
	}
	txn, err := st.NewTransaction(ctx, storage.WriteParams)
	if err != nil {
		return nil, err
	}
	defer st.Abort(ctx, txn)
	var cov *cover.Cover
	runner := newTestRunner(ctx, st, txn, modules)
	if o.Run != nil {
		runner.Filter(o.Run.String())
	}
	if o.Coverage {
		cov = cover.New()
		runner.SetCoverageQueryTracer(cov)
	}
	start := time.Now()
	ch, err := runner.RunTests(ctx, txn)
	if err != nil {
		var errs ast.Errors
		if errors.As(err, &errs) {
			err = policy.PolicyErrors(errs, "")
		}
		return nil, &CompileError{fmt.Errorf("compile policies and tests: %w", err)}
	}
	if o.Progress != nil {
		o.Progress.Start(countTests(modules, o.Run))
	}
	var rep TestReport
	var failedRules []string
	for tr := range ch {
		if o.Progress != nil {
			o.Progress.Step()
		}
		rep.Tests = append(rep.Tests, resultLines(tr)...)
		if tr.Fail && tr.Error == nil {
			failedRules = append(failedRules, tr.Package+"."+ruleOf(tr.Name))
		}
	}
	if o.Progress != nil {
		o.Progress.Finish()
	}
	rep.Duration = time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(failedRules) > 0 {
		traces, err := failureTraces(ctx, st, txn, modules, failedRules)
		if err != nil {
			return nil, err
		}
		rules := codeRules(modules)
		for i, l := range rep.Tests {
			if l.Result == "fail" {
				trace := traces[l.Package+"."+l.Name]
				rep.Tests[i].Summary = summarize(trace, l.File, l.Row, modules, rules)
				rep.Tests[i].Trace = traceLines(trace, o.Explain)
			}
		}
	}
	rep.finish()
	if cov != nil {
		r := policyCoverage(cov, modules, o.Min, o.Packs)
		rep.Coverage = &r
	}
	return &rep, nil
}

// newTestRunner prepares a runner of the modules over the store, its compiler set up
// as the engine's.
func newTestRunner(ctx context.Context, st storage.Store, txn storage.Transaction, modules map[string]*ast.Module) *tester.Runner {
	compiler := ast.NewCompiler().
		WithCapabilities(policy.Capabilities()).
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
// returns each one's whole trace by test name (sub-tests by their own name,
// PACKAGE.NAME/SUB).
func failureTraces(ctx context.Context, st storage.Store, txn storage.Transaction, modules map[string]*ast.Module, failed []string) (map[string][]*topdown.Event, error) {
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
	out := map[string][]*topdown.Event{}
	for tr := range ch {
		out[tr.Package+"."+tr.Name] = tr.Trace
		for path, sr := range tr.SubResults.Iter {
			if sr.Fail && len(sr.SubResults) == 0 {
				out[tr.Package+"."+tr.Name+"/"+strings.Join(path, "/")] = sr.Trace
			}
		}
	}
	return out, nil
}

// traceLines renders a trace as 'opa test --explain MODE' does; none for "summary".
func traceLines(trace []*topdown.Event, mode string) []string {
	switch mode {
	case "full":
		trace = lineage.Full(trace)
	case "notes":
		trace = lineage.Notes(trace)
	case "fails":
		trace = lineage.Fails(trace)
	default:
		return nil
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

// knownPacks refuses a pack no policy file belongs to.
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
			return &UnknownPackError{Pack: p, Packs: sortedKeys(have)}
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
func (r *TestReport) finish() {
	if r.Tests == nil {
		r.Tests = []TestResult{}
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
	r.Millis = millis(r.Duration)
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// resultLines turns one test result into lines: one, or one per leaf of its sub-results.
func resultLines(tr *tester.Result) []TestResult {
	base := TestResult{Package: tr.Package, Name: tr.Name, Output: string(tr.Output), Duration: tr.Duration}
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
		return []TestResult{base}
	}
	var out []TestResult
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
