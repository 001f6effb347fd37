package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/policy"
)

// LintOptions say what Lint checks beyond the bundle itself.
type LintOptions struct {
	// TestsDir is a directory of Rego tests (policies_test) linted beside the policies;
	// "" for none.
	TestsDir string
	// Load loads the bundle as the engine does (a Decider, entrypoints included); when
	// everything else holds, an error it returns is a finding. Nil skips it.
	Load func(context.Context, Bundle) error
	// Repo is the root of the repository whose CapabilitiesFile must be the engine's;
	// "" when the bundle is not linted in the repository.
	Repo string
}

// Lint checks a bundle beyond what the engine needs to load it: the contracts compile
// (state machines included); the policies and the tests compile in strict mode with the
// engine's capabilities; every reason code is declared by METADATA with a title and a
// description, and built from that METADATA; no description states a limit's value.
// When all that holds, the bundle loads (o.Load) and its committed tables are fresh. It
// returns the findings sorted by file and line, none when the bundle is clean; the
// error is for what kept it from linting.
func Lint(ctx context.Context, b Bundle, o LintOptions) ([]Finding, error) {
	var findings []Finding
	// The contracts, as the engine compiles them at load: the state machines included.
	if _, err := ExportTables(b); err != nil {
		var ce *contract.ContractError
		if errors.As(err, &ce) && len(ce.Errs) > 0 {
			for _, e := range ce.Errs {
				findings = append(findings, errorFinding("contracts", e))
			}
		} else {
			findings = append(findings, errorFinding("contracts", err))
		}
	}
	modules, parseFindings, err := lintParse(b, o.TestsDir)
	if err != nil {
		return nil, err
	}
	findings = append(findings, parseFindings...)
	if len(parseFindings) == 0 {
		findings = append(findings, strictCheck(modules)...)
	}
	findings = append(findings, metadataFindings(modules)...)
	findings = append(findings, reasonMetadataFindings(modules)...)
	contractText, err := contractDescriptionFindings(b)
	if err != nil {
		return nil, err
	}
	findings = append(findings, contractText...)
	if len(findings) == 0 {
		// What check checks: the bundle loads as the engine loads it, tables fresh.
		findings = append(findings, loadFindings(ctx, b, o.Load)...)
	}
	if o.Repo != "" {
		findings = append(findings, capabilitiesFinding(o.Repo)...)
	}
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].File != findings[j].File {
			return findings[i].File < findings[j].File
		}
		return findings[i].Line < findings[j].Line
	})
	return findings, nil
}

// Finding is one thing Lint found wrong: File is named as in a bundle laid out as the
// repository is (policies/..., contracts/...), Line 0 when it has none.
type Finding struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func (f Finding) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)
	}
	return fmt.Sprintf("%s: %s", f.File, f.Message)
}

// errorFinding is an error of the engine as a finding, placed where the error says, or
// else in dir.
func errorFinding(dir string, err error) Finding {
	var pe *contract.PositionError
	if errors.As(err, &pe) {
		return Finding{File: pe.File, Line: pe.Line, Message: pe.Err.Error()}
	}
	return Finding{File: dir, Message: strings.TrimSpace(err.Error())}
}

// loadFindings are what 'handoffctl check' finds: the bundle does not load (load says),
// or its committed tables are stale.
func loadFindings(ctx context.Context, b Bundle, load func(context.Context, Bundle) error) []Finding {
	if load != nil {
		if err := load(ctx, b); err != nil {
			return []Finding{errorFinding("policies", err)}
		}
	}
	err := CheckTables(b)
	var stale *StaleTablesError
	if errors.As(err, &stale) {
		return []Finding{{File: "policies/" + stale.Path, Message: "stale: run 'handoffctl tables --write' to export the tables from CUE"}}
	}
	if err != nil {
		return []Finding{errorFinding("contracts", err)}
	}
	return nil
}

// lintModule is a parsed Rego file and its source.
type lintModule struct {
	module *ast.Module
	src    []byte
	test   bool
}

// lintParse parses every Rego file of the bundle's policies and, beside them, of the
// tests in testsDir ("" for none), each named by its path in the repository's layout.
func lintParse(b Bundle, testsDir string) (map[string]*lintModule, []Finding, error) {
	trees := []struct {
		dir  string
		fsys fs.FS
	}{{"policies", b.Policies}}
	if testsDir != "" {
		trees = append(trees, struct {
			dir  string
			fsys fs.FS
		}{"policies_test", os.DirFS(testsDir)})
	}
	modules := map[string]*lintModule{}
	var findings []Finding
	for _, t := range trees {
		err := fs.WalkDir(t.fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
				return err
			}
			src, err := fs.ReadFile(t.fsys, p)
			if err != nil {
				return err
			}
			name := t.dir + "/" + p
			m, err := ast.ParseModuleWithOpts(name, string(src), ast.ParserOptions{
				RegoVersion: ast.RegoV1, ProcessAnnotation: true, Capabilities: policy.Capabilities(),
			})
			var errs ast.Errors
			if errors.As(err, &errs) {
				findings = append(findings, astFindings(errs)...)
				return nil
			} else if err != nil {
				return err
			}
			modules[name] = &lintModule{module: m, src: src, test: t.dir == "policies_test" || strings.HasSuffix(p, "_test.rego")}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return modules, findings, nil
}

// strictCheck compiles the modules as 'opa check --strict' does, with the engine's
// capabilities.
func strictCheck(modules map[string]*lintModule) []Finding {
	ms := map[string]*ast.Module{}
	for name, m := range modules {
		ms[name] = m.module
	}
	compiler := ast.NewCompiler().WithCapabilities(policy.Capabilities()).WithStrict(true).WithEnablePrintStatements(false)
	if compiler.Compile(ms); compiler.Failed() {
		return astFindings(compiler.Errors)
	}
	return nil
}

func astFindings(errs ast.Errors) []Finding {
	var out []Finding
	for _, e := range policy.PolicyErrors(errs, "") {
		f := Finding{Message: e.Code + ": " + e.Message}
		if e.Location != nil {
			f.File, f.Line = e.Location.File, e.Location.Row
		}
		out = append(out, f)
	}
	return out
}

// limitValue is a limit named with a number after it: "limits.max_review_cycles (2)".
var limitValue = regexp.MustCompile(`(limits\.[A-Za-z0-9_.]*[A-Za-z0-9_])\W{0,3}(\d+)`)

// contractDescriptionFindings holds the descriptions written in the CUE contracts
// (gates, rules; exported to the tables and shown to people) to the same rule as the
// METADATA: a limit is named, its value is not stated.
func contractDescriptionFindings(b Bundle) ([]Finding, error) {
	var out []Finding
	err := fs.WalkDir(b.Contracts, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".cue") {
			return err
		}
		src, err := fs.ReadFile(b.Contracts, p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if !strings.Contains(line, "description") {
				continue
			}
			for _, m := range limitValue.FindAllStringSubmatch(line, -1) {
				out = append(out, Finding{File: "contracts/" + p, Line: i + 1, Message: fmt.Sprintf(
					"a description states the value of %s (%s): name the limit only, its value is in the contract tables", m[1], m[2])})
			}
		}
		return nil
	})
	return out, err
}

// metadataFindings checks the METADATA of the reason codes of the policies (tests left
// out): every code a policy makes is declared by a rule's METADATA custom.code, with a
// title and a description that does not state a limit's value.
func metadataFindings(modules map[string]*lintModule) []Finding {
	var out []Finding
	declared := map[string]bool{}
	type use struct {
		file string
		row  int
	}
	made := map[string]use{}
	for _, name := range sortedKeys(modules) {
		lm := modules[name]
		if lm.test {
			continue
		}
		for _, a := range lm.module.Annotations {
			code, ok := a.Custom["code"].(string)
			if !ok {
				continue
			}
			declared[code] = true
			row := 0
			if a.Location != nil {
				row = a.Location.Row
			}
			if strings.TrimSpace(a.Title) == "" {
				out = append(out, Finding{File: name, Line: row, Message: fmt.Sprintf("the METADATA of reason %s has no title", code)})
			}
			if strings.TrimSpace(a.Description) == "" {
				out = append(out, Finding{File: name, Line: row, Message: fmt.Sprintf("the METADATA of reason %s has no description", code)})
			}
			for _, m := range limitValue.FindAllStringSubmatch(a.Description, -1) {
				out = append(out, Finding{File: name, Line: sourceRow(lm.src, row, m[0]), Message: fmt.Sprintf(
					"the description of reason %s states the value of %s (%s): name the limit only, its value is in the contract tables", code, m[1], m[2])})
			}
		}
		ast.WalkTerms(lm.module, func(t *ast.Term) bool {
			for _, code := range madeCodes(t) {
				if _, seen := made[code]; !seen && t.Location != nil {
					made[code] = use{name, t.Location.Row}
				}
			}
			return false
		})
	}
	for _, code := range sortedKeys(made) {
		if !declared[code] {
			u := made[code]
			out = append(out, Finding{File: u.file, Line: u.row, Message: fmt.Sprintf(
				"reason %s is declared by no rule's METADATA (title, description and custom.code)", code)})
		}
	}
	return out
}

// reasonMetadataFindings holds every reason to the METADATA of the rule that builds it:
// a reason's code and title come from rego.metadata.rule() called in that rule, so they
// cannot disagree with its custom.code. It reports a rule whose METADATA declares a
// custom.code but that never calls rego.metadata.rule() (its reason is built elsewhere,
// or from a string), a call of rego.metadata.rule() in a rule, or an else branch,
// without a custom.code of its own (it gives {} there: a reason without code or title),
// and a reason helper (a function named *reason or *reason_outcome) called with a code
// as a string.
func reasonMetadataFindings(modules map[string]*lintModule) []Finding {
	var out []Finding
	for _, name := range sortedKeys(modules) {
		lm := modules[name]
		if lm.test {
			continue
		}
		as, errs := ast.BuildAnnotationSet([]*ast.Module{lm.module})
		if len(errs) > 0 {
			continue // the strict check reports them
		}
		for _, top := range lm.module.Rules {
			code := ""
			for _, a := range as.GetRuleScope(top) {
				if c, ok := a.Custom["code"].(string); ok {
					code = c
				}
			}
			for r, branch := top, 0; r != nil; r, branch = r.Else, branch+1 {
				own := *r
				own.Else = nil
				calls, literals := reasonCalls(&own)
				rule := ruleName(top)
				switch {
				case branch == 0 && code != "" && len(calls) == 0 && len(literals) == 0:
					out = append(out, Finding{File: name, Line: r.Location.Row, Message: fmt.Sprintf(
						"rule %s declares reason %s but builds no reason from its METADATA: build it with core.reason(rego.metadata.rule(), ...) in this rule", rule, code)})
				case (branch > 0 || code == "") && len(calls) > 0:
					where := "rule " + rule + " has no METADATA custom.code"
					if branch > 0 {
						where = "an else branch of " + rule + " has no METADATA of its own"
					}
					out = append(out, Finding{File: name, Line: calls[0], Message: fmt.Sprintf(
						"%s, so rego.metadata.rule() gives {} there and the reason has no code or title: call it in the rule whose METADATA declares the code and pass it down", where)})
				}
				for _, l := range literals {
					out = append(out, Finding{File: name, Line: l.row, Message: fmt.Sprintf(
						"reason %s is built from a string: pass rego.metadata.rule() of the rule that declares it, so that its code and title come from that METADATA", l.code)})
				}
			}
		}
	}
	return out
}

// reasonLiteral is a reason helper called with a code as a string.
type reasonLiteral struct {
	code string
	row  int
}

// reasonCalls are the rows of the calls of rego.metadata.rule() in r, and the reason
// helpers r calls with a string code.
func reasonCalls(r *ast.Rule) (calls []int, literals []reasonLiteral) {
	ast.WalkTerms(r, func(t *ast.Term) bool {
		c, ok := t.Value.(ast.Call)
		if !ok || len(c) == 0 {
			return false
		}
		op := c[0].String()
		if op == ast.RegoMetadataRule.Name && t.Location != nil {
			calls = append(calls, t.Location.Row)
		}
		if len(c) > 1 && (strings.HasSuffix(op, "reason") || strings.HasSuffix(op, "reason_outcome")) {
			if s, ok := c[1].Value.(ast.String); ok && t.Location != nil {
				literals = append(literals, reasonLiteral{string(s), t.Location.Row})
			}
		}
		return false
	})
	return calls, literals
}

// ruleName is a rule's name as written: reasons, _no_rule, _failure.
func ruleName(r *ast.Rule) string {
	if n := r.Head.Name; n != "" {
		return string(n)
	}
	return r.Head.Ref().String()
}

// madeCodes are the reason codes a term makes: the first argument of a call of a
// function named *reason (_reason("CODE", ...)), or the code of an object
// ({"code": "CODE", ...}), when a string.
func madeCodes(t *ast.Term) []string {
	var out []string
	switch v := t.Value.(type) {
	case ast.Call:
		if len(v) > 1 && strings.HasSuffix(v[0].String(), "reason") {
			if s, ok := v[1].Value.(ast.String); ok {
				out = append(out, string(s))
			}
		}
	case ast.Object:
		if c := v.Get(ast.StringTerm("code")); c != nil {
			if s, ok := c.Value.(ast.String); ok {
				out = append(out, string(s))
			}
		}
	}
	return out
}

// sourceRow is the row, at from or after, of the line holding text (or of its first
// word, when the description wraps); from when none does.
func sourceRow(src []byte, from int, text string) int {
	lines := bytes.Split(src, []byte("\n"))
	word := strings.Fields(text)[0]
	for i := max(from-1, 0); i < len(lines); i++ {
		if bytes.Contains(lines[i], []byte(word)) {
			return i + 1
		}
	}
	return from
}

// capabilitiesFinding says whether the capabilities file of the repository in root is
// stale.
func capabilitiesFinding(root string) []Finding {
	want, err := CapabilitiesJSON()
	if err != nil {
		return []Finding{{File: CapabilitiesFile, Message: err.Error()}}
	}
	got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(CapabilitiesFile)))
	if err == nil && bytes.Equal(got, want) {
		return nil
	}
	return []Finding{{File: CapabilitiesFile, Message: "not the engine's capabilities: run 'handoffctl lint --write-capabilities'"}}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
