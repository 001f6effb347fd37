package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/open-policy-agent/opa/v1/ast"
)

var lintCmd = &command{
	name:  "lint",
	args:  "[--write-capabilities]",
	short: "check the policies strictly, with the engine's capabilities, and their METADATA",
	long: `Lint checks the bundle beyond what the engine needs to load it:

  - the Rego policies and their tests (policies_test) compile in strict mode (as
    'opa check --strict') with the engine's capabilities: a call of a builtin the
    engine removes (http.send, net.*, time.now_ns, rand.*, uuid.* ...) says what to
    use instead;
  - every rule adding to reasons, and every rule declaring a custom.code, carries
    METADATA with a title, a description and custom.code;
  - every reason is built from the METADATA of the rule that declares its code:
    that rule calls rego.metadata.rule() and hands it to the reason helper
    (core.reason, core.reason_outcome, core.gate_reason), which takes the code and
    the title from it. A rule declaring a custom.code that builds no reason this
    way, a call of rego.metadata.rule() where no METADATA of the rule declares a
    code (an else branch included: it gives {} there), and a reason helper called
    with a code as a string are findings;
  - a description names a limit by its config name (limits.max_review_cycles) and
    does not state its value: no number after a limits. name, the value lives in
    the contract tables;
  - the contracts compile, and every non-terminal status of a pack's state machine
    has a transition out (as the engine checks at load);
  - when all that holds, what 'handoffctl check' checks: the bundle loads as the
    engine loads it (entrypoints included) and the committed tables are fresh;
  - in the repository, engine/capabilities.json (which 'opa check --capabilities' and
    'opa test --capabilities' read) is the engine's.

The bundle is that of --bundle DIR, or the repository in the current directory, or
else the shipped one. It prints one line per finding, file:line: message, the file
relative to the repository root (or DIR), and exits 3 when there is any; "ok" when
there is none.

With --write-capabilities it first writes engine/capabilities.json in the repository
root.

With -o json: one JSON object {"ok", "bundle", "findings": [{"file", "line",
"message"}]}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		writeCaps := fs.Bool("write-capabilities", false, "write engine/capabilities.json in the repository root, then lint")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) > 0 {
				return usagef("lint takes no arguments")
			}
			return c.lint(ctx, *writeCaps)
		}
	},
}

// lintFinding is one thing lint found wrong.
type lintFinding struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func (f lintFinding) String() string {
	if f.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message)
	}
	return fmt.Sprintf("%s: %s", f.File, f.Message)
}

func (c *cli) lint(ctx context.Context, writeCaps bool) error {
	b, root, label, err := c.lintSource()
	if err != nil {
		return err
	}
	inRepo := !c.bundle.set && root != ""
	if writeCaps {
		if !inRepo || !isFile("go.mod") || !isDir("engine") {
			return withHint(errors.New("engine/capabilities.json is written in the repository root"),
				"run 'handoffctl lint --write-capabilities' in the repository root, without --bundle")
		}
		caps, err := engine.CapabilitiesJSON()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.FromSlash(engine.CapabilitiesFile), caps, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "written  %s\n", engine.CapabilitiesFile)
	}
	var findings []lintFinding
	// The contracts, as the engine compiles them at load: the state machines included.
	if _, err := engine.ExportTables(b); err != nil {
		var ce *engine.ContractError
		if errors.As(err, &ce) && len(ce.Errs) > 0 {
			for _, e := range ce.Errs {
				findings = append(findings, errorFinding("contracts", e))
			}
		} else {
			findings = append(findings, errorFinding("contracts", err))
		}
	}
	modules, parseFindings, err := lintParse(b, root)
	if err != nil {
		return err
	}
	findings = append(findings, parseFindings...)
	if len(parseFindings) == 0 {
		findings = append(findings, strictCheck(modules)...)
	}
	findings = append(findings, metadataFindings(modules)...)
	findings = append(findings, reasonMetadataFindings(modules)...)
	contractText, err := contractDescriptionFindings(b)
	if err != nil {
		return err
	}
	findings = append(findings, contractText...)
	if len(findings) == 0 {
		// What check checks: the bundle loads as the engine loads it, tables fresh.
		findings = append(findings, loadFindings(ctx, b)...)
	}
	if inRepo && isFile("go.mod") && isDir("engine") {
		findings = append(findings, capabilitiesFinding()...)
	}
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].File != findings[j].File {
			return findings[i].File < findings[j].File
		}
		return findings[i].Line < findings[j].Line
	})
	if c.json() {
		if findings == nil {
			findings = []lintFinding{}
		}
		if err := writeJSON(c.stdout, struct {
			OK       bool          `json:"ok"`
			Bundle   string        `json:"bundle"`
			Findings []lintFinding `json:"findings"`
		}{len(findings) == 0, label, findings}); err != nil {
			return err
		}
	} else if len(findings) == 0 {
		fmt.Fprintf(c.stdout, "ok  %s\n", label)
	} else {
		for _, f := range findings {
			fmt.Fprintln(c.stdout, f)
		}
	}
	if len(findings) > 0 {
		return negativef("%s", count(len(findings), "finding"))
	}
	return nil
}

// errorFinding is an error of the engine as a finding, placed where the error says, or
// else in dir.
func errorFinding(dir string, err error) lintFinding {
	var pe *engine.PositionError
	if errors.As(err, &pe) {
		return lintFinding{File: pe.File, Line: pe.Line, Message: pe.Err.Error()}
	}
	return lintFinding{File: dir, Message: strings.TrimSpace(err.Error())}
}

// loadFindings are what 'handoffctl check' finds: the bundle does not load, or its
// committed tables are stale.
func loadFindings(ctx context.Context, b engine.Bundle) []lintFinding {
	if _, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b}); err != nil {
		return []lintFinding{errorFinding("policies", err)}
	}
	err := engine.CheckTables(b)
	var stale *engine.StaleTablesError
	if errors.As(err, &stale) {
		return []lintFinding{{File: "policies/" + stale.Path, Message: "stale: run 'handoffctl tables --write' to export the tables from CUE"}}
	}
	if err != nil {
		return []lintFinding{errorFinding("contracts", err)}
	}
	return nil
}

// lintSource finds the bundle lint checks, the directory its policies_test is in (""
// for the shipped bundle) and how to name it.
func (c *cli) lintSource() (engine.Bundle, string, string, error) {
	if c.bundle.set {
		b, err := c.loadBundle()
		return b, c.bundle.value, c.bundleName(), err
	}
	if isFile(filepath.Join("contracts", "cue.mod", "module.cue")) && isDir("policies") {
		return engine.DirBundle("."), ".", "repository", nil
	}
	return engine.ShippedBundle(), "", c.bundleName(), nil
}

// lintModule is a parsed Rego file and its source.
type lintModule struct {
	module *ast.Module
	src    []byte
	test   bool
}

// lintParse parses every Rego file of the bundle's policies and, beside them, of
// policies_test, each named by its path under the bundle's directory.
func lintParse(b engine.Bundle, root string) (map[string]*lintModule, []lintFinding, error) {
	trees := []struct {
		dir  string
		fsys fs.FS
	}{{"policies", b.Policies}}
	if root != "" && isDir(filepath.Join(root, "policies_test")) {
		trees = append(trees, struct {
			dir  string
			fsys fs.FS
		}{"policies_test", os.DirFS(filepath.Join(root, "policies_test"))})
	}
	modules := map[string]*lintModule{}
	var findings []lintFinding
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
				RegoVersion: ast.RegoV1, ProcessAnnotation: true, Capabilities: engine.Capabilities(),
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
func strictCheck(modules map[string]*lintModule) []lintFinding {
	ms := map[string]*ast.Module{}
	for name, m := range modules {
		ms[name] = m.module
	}
	compiler := ast.NewCompiler().WithCapabilities(engine.Capabilities()).WithStrict(true).WithEnablePrintStatements(false)
	if compiler.Compile(ms); compiler.Failed() {
		return astFindings(compiler.Errors)
	}
	return nil
}

func astFindings(errs ast.Errors) []lintFinding {
	var out []lintFinding
	for _, e := range engine.PolicyErrors(errs, "") {
		f := lintFinding{Message: e.Code + ": " + e.Message}
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
func contractDescriptionFindings(b engine.Bundle) ([]lintFinding, error) {
	var out []lintFinding
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
				out = append(out, lintFinding{File: "contracts/" + p, Line: i + 1, Message: fmt.Sprintf(
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
func metadataFindings(modules map[string]*lintModule) []lintFinding {
	var out []lintFinding
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
				out = append(out, lintFinding{File: name, Line: row, Message: fmt.Sprintf("the METADATA of reason %s has no title", code)})
			}
			if strings.TrimSpace(a.Description) == "" {
				out = append(out, lintFinding{File: name, Line: row, Message: fmt.Sprintf("the METADATA of reason %s has no description", code)})
			}
			for _, m := range limitValue.FindAllStringSubmatch(a.Description, -1) {
				out = append(out, lintFinding{File: name, Line: sourceRow(lm.src, row, m[0]), Message: fmt.Sprintf(
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
			out = append(out, lintFinding{File: u.file, Line: u.row, Message: fmt.Sprintf(
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
func reasonMetadataFindings(modules map[string]*lintModule) []lintFinding {
	var out []lintFinding
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
					out = append(out, lintFinding{File: name, Line: r.Location.Row, Message: fmt.Sprintf(
						"rule %s declares reason %s but builds no reason from its METADATA: build it with core.reason(rego.metadata.rule(), ...) in this rule", rule, code)})
				case (branch > 0 || code == "") && len(calls) > 0:
					where := "rule " + rule + " has no METADATA custom.code"
					if branch > 0 {
						where = "an else branch of " + rule + " has no METADATA of its own"
					}
					out = append(out, lintFinding{File: name, Line: calls[0], Message: fmt.Sprintf(
						"%s, so rego.metadata.rule() gives {} there and the reason has no code or title: call it in the rule whose METADATA declares the code and pass it down", where)})
				}
				for _, l := range literals {
					out = append(out, lintFinding{File: name, Line: l.row, Message: fmt.Sprintf(
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

// capabilitiesFinding says whether the repository's capabilities file is stale.
func capabilitiesFinding() []lintFinding {
	want, err := engine.CapabilitiesJSON()
	if err != nil {
		return []lintFinding{{File: engine.CapabilitiesFile, Message: err.Error()}}
	}
	got, err := os.ReadFile(filepath.FromSlash(engine.CapabilitiesFile))
	if err == nil && bytes.Equal(got, want) {
		return nil
	}
	return []lintFinding{{File: engine.CapabilitiesFile, Message: "not the engine's capabilities: run 'handoffctl lint --write-capabilities'"}}
}
