package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/tester"
)

var testCmd = &command{
	name:  "test",
	args:  "[-v] [DIR...]",
	short: "run the Rego unit tests of the policies",
	long: `Test runs the Rego unit tests (rules named test_*) of the policies, as 'opa test'
does: every .rego and data file under the directories is loaded, compiled together
and each test is evaluated. It prints the tests that failed, then "N passed, N failed",
and exits 3 when any test failed or erred.

Without DIR it uses policies and policies_test of the current directory, or of
--bundle DIR. When that directory holds a bundle (contracts and policies) whose
committed tables differ from their CUE source, it refuses with exit 3: the tests
would read other tables than the engine runs.

With --coverage it also reports the Rego coverage of every policy file (test files
left out: the lines of rules and expressions the tests evaluated, as 'opa test
--coverage' counts them, with the rows no test reached) and of every pack (the
directory after handoff/), and exits 3 when a pack is below --min percent
(default 90).

With -o json the output is {"passed", "failed", "skipped", "tests": [...]}, with
--coverage also "coverage": {"min", "packs", "files"}, each entry name,
covered_lines, not_covered_lines, coverage (and for files not_covered_rows).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		verbose := fs.Bool("v", false, "list every test, passed or not, with its print output")
		coverage := fs.Bool("coverage", false, "report Rego coverage per file and per pack; exit 3 below --min")
		min := fs.Float64("min", defaultMinCoverage, "with --coverage: the coverage in `PERCENT` every pack must reach")
		return func(ctx context.Context, c *cli, args []string) error {
			if *min < 0 || *min > 100 {
				return usagef("--min is a percentage from 0 to 100")
			}
			if !*coverage {
				*min = -1
			}
			return c.regoTest(ctx, args, *verbose, *min)
		}
	},
}

// testLine is the JSON form of one test result.
type testLine struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	File    string `json:"file,omitempty"`
	Row     int    `json:"row,omitempty"`
	Result  string `json:"result"` // pass, fail, error, skip
	Error   string `json:"error,omitempty"`
	Output  string `json:"output,omitempty"`
}

// regoTest runs the tests; with minCoverage >= 0 it also reports coverage.
func (c *cli) regoTest(ctx context.Context, paths []string, verbose bool, minCoverage float64) error {
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
	if err := testedTablesInForce(root); err != nil {
		return err
	}
	modules, st, err := tester.Load(paths, nil)
	if err != nil {
		return withHint(err, "fix the Rego or data file named above")
	}
	txn, err := st.NewTransaction(ctx, storage.WriteParams)
	if err != nil {
		return err
	}
	defer st.Abort(ctx, txn)
	compiler := ast.NewCompiler().
		WithCapabilities(ast.CapabilitiesForThisVersion()).
		WithPathConflictsCheck(storage.NonEmpty(ctx, st, txn)).
		WithEnablePrintStatements(true)
	runner := tester.NewRunner().
		SetCompiler(compiler).
		SetStore(st).
		SetModules(modules).
		CapturePrintOutput(true).
		SetTimeout(30 * time.Second)
	var cov *cover.Cover
	if minCoverage >= 0 {
		cov = cover.New()
		runner.SetCoverageQueryTracer(cov)
	}
	ch, err := runner.RunTests(ctx, txn)
	if err != nil {
		return withHint(fmt.Errorf("compile policies and tests: %w", err), "'go tool opa check --strict' shows the same errors")
	}
	var lines []testLine
	for tr := range ch {
		lines = append(lines, resultLines(tr)...)
	}
	sort.Slice(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		return a.Name < b.Name
	})
	var passed, failed, skipped int
	for _, l := range lines {
		switch l.Result {
		case "pass":
			passed++
		case "skip":
			skipped++
		default:
			failed++
		}
	}
	var covRep *coverageReport
	if cov != nil {
		r := policyCoverage(cov, modules, minCoverage)
		covRep = &r
	}
	if c.json() {
		if lines == nil {
			lines = []testLine{}
		}
		if err := writeJSON(c.stdout, struct {
			Passed   int             `json:"passed"`
			Failed   int             `json:"failed"`
			Skipped  int             `json:"skipped"`
			Tests    []testLine      `json:"tests"`
			Coverage *coverageReport `json:"coverage,omitempty"`
		}{passed, failed, skipped, lines, covRep}); err != nil {
			return err
		}
	} else {
		for _, l := range lines {
			if l.Result == "pass" && !verbose || l.Result == "skip" && !verbose {
				continue
			}
			where := ""
			if l.File != "" {
				where = fmt.Sprintf("  %s:%d", l.File, l.Row)
			}
			fmt.Fprintf(c.stdout, "%-5s %s.%s%s\n", strings.ToUpper(l.Result), l.Package, l.Name, where)
			if l.Error != "" {
				fmt.Fprintf(c.stdout, "      %s\n", strings.ReplaceAll(l.Error, "\n", "\n      "))
			}
			if l.Output != "" && (verbose || l.Result != "pass") {
				fmt.Fprintf(c.stdout, "      %s\n", strings.ReplaceAll(strings.TrimRight(l.Output, "\n"), "\n", "\n      "))
			}
		}
		summary := fmt.Sprintf("%d passed, %d failed", passed, failed)
		if skipped > 0 {
			summary += fmt.Sprintf(", %d skipped", skipped)
		}
		fmt.Fprintln(c.stdout, summary)
		if covRep != nil {
			covRep.print(c)
		}
	}
	if len(lines) == 0 {
		return withHint(errors.New("no tests found"), "tests are rules named test_* in *_test.rego files")
	}
	if failed > 0 {
		return &negativeError{}
	}
	if covRep != nil {
		if low := covRep.below(); len(low) > 0 {
			return negativef("coverage below %.0f%%: %s", minCoverage, strings.Join(low, ", "))
		}
	}
	return nil
}

// resultLines turns one test result into lines: one, or one per leaf of its sub-results.
func resultLines(tr *tester.Result) []testLine {
	base := testLine{Package: tr.Package, Name: tr.Name, Output: string(tr.Output)}
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
