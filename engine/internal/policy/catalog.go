package policy

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/handoff-dev/handoff"
)

// LocKey is the key of a rule's location in the catalog: file:row:col.
func LocKey(l *ast.Location) string {
	return fmt.Sprintf("%s:%d:%d", l.File, l.Row, l.Col)
}

// AnnotatedRule is a rule whose METADATA carries a reason code.
type AnnotatedRule struct {
	Info handoff.RuleInfo
	Rule *ast.Rule
	Pkg  map[string][]*ast.Rule // the rules of its package by name, for helpers
	// Imports are the packages the rule's package imports (data.handoff.lib as lib),
	// whose helpers stand for input paths too.
	Imports map[string]*PackageRules
}

// PackageRules are the rules of one package by name, and the packages it imports by
// alias.
type PackageRules struct {
	Rules   map[string][]*ast.Rule
	Imports map[string]*PackageRules
}

// catalog is the index of a bundle's rules that carry a reason code, built the first
// time an explanation needs it and kept with the compiled policies.
type catalog struct {
	once   sync.Once
	byLoc  map[string]*AnnotatedRule // by the rule's location
	byCode map[string][]handoff.RuleInfo
}

// Catalog indexes the rules that carry a reason code, by location (LocKey) and by
// code, the first time it is asked. A module that does not parse has no rule to explain;
// the decision that needed it failed closed already.
func (cp *Policies) Catalog() (byLoc map[string]*AnnotatedRule, byCode map[string][]handoff.RuleInfo) {
	c := &cp.catalog
	c.once.Do(func() {
		modules, _ := cp.Modules()
		c.byLoc, c.byCode = indexAnnotatedRules(modules)
	})
	return c.byLoc, c.byCode
}

// indexAnnotatedRules indexes the rules of modules that carry a reason code, by location
// and by code.
func indexAnnotatedRules(modules map[string]*ast.Module) (map[string]*AnnotatedRule, map[string][]handoff.RuleInfo) {
	out := map[string]*AnnotatedRule{}
	byCode := map[string][]handoff.RuleInfo{}
	names := make([]string, 0, len(modules))
	for n := range modules {
		names = append(names, n)
	}
	sort.Strings(names)
	helpersOf := map[string]map[string][]*ast.Rule{} // package -> rule name -> rules
	packages := map[string]*PackageRules{}
	for _, n := range names {
		m := modules[n]
		pkg := m.Package.Path.String()
		if helpersOf[pkg] == nil {
			helpersOf[pkg] = map[string][]*ast.Rule{}
			packages[pkg] = &PackageRules{Rules: helpersOf[pkg], Imports: map[string]*PackageRules{}}
		}
		for _, rule := range m.Rules {
			name := rule.Head.Ref()[0].Value.String()
			helpersOf[pkg][name] = append(helpersOf[pkg][name], rule)
		}
	}
	for _, n := range names {
		m := modules[n]
		for _, imp := range m.Imports {
			path, ok := imp.Path.Value.(ast.Ref)
			if !ok || !path.HasPrefix(ast.DefaultRootRef) {
				continue
			}
			alias := string(imp.Alias)
			if alias == "" {
				alias = string(path[len(path)-1].Value.(ast.String))
			}
			if p := packages[path.String()]; p != nil {
				packages[m.Package.Path.String()].Imports[alias] = p
			}
		}
	}
	for _, n := range names {
		m := modules[n]
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		helpers := helpersOf[m.Package.Path.String()]
		for _, a := range m.Annotations {
			code, ok := a.Custom["code"].(string)
			if !ok || a.Location == nil {
				continue
			}
			rule := ruleAfter(m, a.Location.Row)
			if rule == nil || rule.Location == nil {
				continue
			}
			info := handoff.RuleInfo{Code: code, Package: pkg, Title: a.Title,
				Description: strings.Join(strings.Fields(a.Description), " "),
				File:        a.Location.File, Line: rule.Location.Row}
			out[LocKey(rule.Location)] = &AnnotatedRule{Info: info, Rule: rule, Pkg: helpers, Imports: packages[m.Package.Path.String()].Imports}
			byCode[code] = append(byCode[code], info)
		}
	}
	return out, byCode
}

// ruleAfter returns the first rule of m that starts after row: the rule a METADATA
// block annotates.
func ruleAfter(m *ast.Module, row int) *ast.Rule {
	var best *ast.Rule
	for _, r := range m.Rules {
		if r.Location == nil || r.Location.Row <= row {
			continue
		}
		if best == nil || r.Location.Row < best.Location.Row {
			best = r
		}
	}
	return best
}
