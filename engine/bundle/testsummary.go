package bundle

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// TestSummary is what a failing test needs said about it instead of its trace: the
// expression of the test that failed, and, when the test evaluated a pack's decision,
// the decision's outcome and reasons and the one rule that made it differ.
type TestSummary struct {
	// Expected is the expression of the test body that did not hold, as written, and At
	// its file:row.
	Expected string `json:"expected"`
	At       string `json:"at"`
	// Outcome and Reasons ("CODE: message") are those of the decision the test held
	// when the expression failed, when it held one.
	Outcome string   `json:"outcome,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
	// Rule is the one rule that differed: the rule of a code the expression names that
	// the decision lacks, or the rule of the first reason the expression does not name.
	Rule string `json:"rule,omitempty"`
}

// codeRule is the rule declaring a reason code: its title and where it is.
type codeRule struct {
	title, at string
}

// codeRules maps every reason code the policies declare (METADATA custom.code) to its
// first declaring rule.
func codeRules(modules map[string]*ast.Module) map[string]codeRule {
	out := map[string]codeRule{}
	for _, file := range slices.Sorted(maps.Keys(modules)) {
		if isTestFile(file) {
			continue
		}
		for _, a := range modules[file].Annotations {
			code, ok := a.Custom["code"].(string)
			if !ok || a.Location == nil {
				continue
			}
			if _, seen := out[code]; !seen {
				out[code] = codeRule{title: a.Title, at: fmt.Sprintf("%s:%d", file, a.Location.Row)}
			}
		}
	}
	return out
}

// codeLiteral is an UPPER_SNAKE string in an expression: a reason code it names.
var codeLiteral = regexp.MustCompile(`"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"`)

// summarize reads the trace of a failed test for its summary: the first expression
// written in the test rule that failed (the innermost: an expression of an every body
// fails before the every), the decision bound to a local of the test then (an object
// with outcome and reasons), and the rule that differed. It returns nil when the trace
// has no failed expression of the test rule.
func summarize(trace []*topdown.Event, file string, row int, modules map[string]*ast.Module, rules map[string]codeRule) *TestSummary {
	first, last, ok := ruleRows(modules[file], row)
	if !ok {
		return nil
	}
	var failed *topdown.Event
	for _, e := range trace {
		if e.Op != topdown.FailOp {
			continue
		}
		expr, ok := e.Node.(*ast.Expr)
		if ok && expr.Location != nil && expr.Location.File == file && expr.Location.Row >= first && expr.Location.Row <= last {
			failed = e
			break
		}
	}
	if failed == nil {
		return nil
	}
	expr := failed.Node.(*ast.Expr)
	s := &TestSummary{Expected: string(expr.Location.Text), At: fmt.Sprintf("%s:%d", file, expr.Location.Row)}
	decision := decisionIn(failed)
	if decision == nil {
		return s
	}
	s.Outcome, _ = decision["outcome"].(string)
	var codes []string
	var blocking string
	reasons, _ := decision["reasons"].([]any)
	for _, r := range reasons {
		m, _ := r.(map[string]any)
		code, _ := m["code"].(string)
		msg, _ := m["message"].(string)
		s.Reasons = append(s.Reasons, code+": "+msg)
		codes = append(codes, code)
		if o, _ := m["outcome"].(string); blocking == "" && (o == "block" || o == "") {
			blocking = code
		}
	}
	named := map[string]bool{}
	for _, m := range codeLiteral.FindAllStringSubmatch(s.Expected, -1) {
		named[m[1]] = true
	}
	describe := func(code, what string) string {
		if r, ok := rules[code]; ok {
			return fmt.Sprintf("%s (%s, %s): %s", r.title, code, r.at, what)
		}
		return fmt.Sprintf("%s: %s", code, what)
	}
	for _, code := range slices.Sorted(maps.Keys(named)) {
		if !slices.Contains(codes, code) {
			s.Rule = describe(code, "the test names it, the decision does not have it")
			return s
		}
	}
	for _, code := range codes {
		if len(named) > 0 && !named[code] {
			s.Rule = describe(code, "the decision has it, the test does not name it")
			return s
		}
	}
	if strings.Contains(s.Expected, "outcome") && blocking != "" && s.Outcome == "block" {
		s.Rule = describe(blocking, "its reason blocks the decision")
	}
	return s
}

// ruleRows are the first and last rows of the rule defined at row of a module.
func ruleRows(m *ast.Module, row int) (first, last int, ok bool) {
	if m == nil {
		return 0, 0, false
	}
	for _, r := range m.Rules {
		if r.Location != nil && r.Location.Row == row {
			return row, row + strings.Count(string(r.Location.Text), "\n"), true
		}
	}
	return 0, 0, false
}

// decisionIn is the decision bound to a local variable where the event happened: an
// object with an outcome and reasons, the one of the lowest-named variable when several.
func decisionIn(e *topdown.Event) map[string]any {
	if e.Locals == nil {
		return nil
	}
	type bound struct {
		name string
		v    map[string]any
	}
	var found []bound
	e.Locals.Iter(func(k, v ast.Value) bool {
		obj, ok := v.(ast.Object)
		if !ok || obj.Get(ast.StringTerm("outcome")) == nil || obj.Get(ast.StringTerm("reasons")) == nil {
			return false
		}
		val, err := ast.JSON(obj)
		if m, ok := val.(map[string]any); err == nil && ok {
			name := k.String()
			if md, ok := e.LocalMetadata[ast.Var(name)]; ok {
				name = string(md.Name)
			}
			found = append(found, bound{name, m})
		}
		return false
	})
	if len(found) == 0 {
		return nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].name < found[j].name })
	return found[0].v
}
