package pipeline

import (
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/handoff-dev/handoff/engine/internal/policy"
	"github.com/handoff-dev/handoff/internal/canonjson"
)

// maxInputValue bounds the length of an input value an explanation shows.
const maxInputValue = 300

// Attach lists each reason of the decision with the rules that fired for its code.
func (p *Pipeline) Attach(ex *Traced) {
	fired := map[string][]FiredRule{}
	for _, f := range ex.fired {
		fired[f.Code] = append(fired[f.Code], f)
	}
	ex.Reasons = make([]ExplainedReason, 0, len(ex.Decision.Reasons))
	for _, r := range ex.Decision.Reasons {
		rules := p.ofReason(fired[r.Code], ex.Decision.Pack, r.Title)
		if len(rules) == 0 {
			// Not traced (an audit record) or not fired here: name the rules that carry
			// the code, of the decision's pack or no pack (the one its title names).
			var all []FiredRule
			for _, info := range p.rulesByCode()[r.Code] {
				all = append(all, FiredRule{RuleInfo: info, Inputs: []InputValue{}})
			}
			rules = p.ofReason(all, ex.Decision.Pack, r.Title)
		}
		if rules == nil {
			rules = []FiredRule{}
		}
		ex.Reasons = append(ex.Reasons, ExplainedReason{Reason: r, Rules: rules})
	}
}

// ofReason keeps the rules that may have produced a reason: those of the decision's
// pack, of core and of packages that are no pack's (never another pack's), and among
// them the ones with the reason's title when it has one that a rule carries.
func (p *Pipeline) ofReason(rules []FiredRule, pack, title string) []FiredRule {
	var out, titled []FiredRule
	for _, f := range rules {
		if other := p.packOf(f.Package); other != "" && other != pack {
			continue
		}
		out = append(out, f)
		if title != "" && f.Title == title {
			titled = append(titled, f)
		}
	}
	if len(titled) > 0 {
		return titled
	}
	return out
}

// packOf is the pack a Rego package belongs to (handoff.<pack> or below), "" for core
// and packages that are no pack's.
func (p *Pipeline) packOf(pkg string) string {
	for _, name := range p.contracts.PackNames() {
		if root := "handoff." + name; pkg == root || strings.HasPrefix(pkg, root+".") {
			return name
		}
	}
	return ""
}

// Traced is an explanation being built: the annotated rules that fired, from the
// trace, are attached to the decision's reasons once it is known.
type Traced struct {
	*Explanation
	fired []FiredRule
}

// explanation explains a traced evaluation: the rules carrying reason codes that
// fired, with the input values they read, and those checked that did not.
func (p *Pipeline) explanation(f *flight, tr *ruleTracer, entrypoint string) *Traced {
	ex := &Traced{Explanation: &Explanation{Entrypoint: entrypoint, Passed: []RuleInfo{}}}
	in, _ := f.input()
	var fired []FiredRule
	byLoc := p.annotatedRules()
	keys := make([]string, 0, len(tr.entered))
	for k := range tr.entered {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ar, ok := byLoc[k]
		if !ok {
			continue
		}
		if tr.exited[k] {
			fired = append(fired, FiredRule{RuleInfo: ar.Info, Inputs: p.inputsOf(ar, in)})
		} else {
			ex.Passed = append(ex.Passed, ar.Info)
		}
	}
	sortRules(ex.Passed)
	ex.fired = fired
	return ex
}

func sortRules(rs []RuleInfo) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}

// ruleTracer records which rules were entered and which exited (fired), by location.
type ruleTracer struct {
	entered map[string]*ast.Rule
	exited  map[string]bool
}

func (t *ruleTracer) Enabled() bool               { return true }
func (t *ruleTracer) Config() topdown.TraceConfig { return topdown.TraceConfig{} }
func (t *ruleTracer) TraceEvent(ev topdown.Event) {
	rule, ok := ev.Node.(*ast.Rule)
	if !ok || rule.Location == nil {
		return
	}
	k := policy.LocKey(rule.Location)
	switch ev.Op {
	case topdown.EnterOp:
		t.entered[k] = rule
	case topdown.ExitOp:
		t.exited[k] = true
	}
}

// annotatedRules indexes the rules carrying a reason code by their location.
func (p *Pipeline) annotatedRules() map[string]*policy.AnnotatedRule {
	byLoc, _ := p.policies.Catalog()
	return byLoc
}

func (p *Pipeline) rulesByCode() map[string][]RuleInfo {
	_, byCode := p.policies.Catalog()
	return byCode
}

// inputsOf lists the input paths a rule reads, with their values in this evaluation.
// A helper rule of the package that stands for an input path (_request := input.request,
// _kind := object.get(_request, "kind", "")) counts as that path; a path with a variable
// is cut before the variable, so the value shown is the collection it ranges over.
func (p *Pipeline) inputsOf(ar *policy.AnnotatedRule, in ast.Value) []InputValue {
	res := &pathResolver{helpers: ar.Pkg, imports: ar.Imports, memo: map[string]ast.Ref{}, busy: map[string]bool{}}
	refs := map[string]ast.Ref{}
	add := func(p ast.Ref) {
		if len(p) > 0 {
			refs[p.String()] = p
		}
	}
	ast.WalkRefs(ar.Rule, func(ref ast.Ref) bool {
		add(res.term(ar.Rule, ast.NewTerm(ref), 0))
		return false
	})
	ast.WalkVars(ar.Rule, func(v ast.Var) bool {
		if _, ok := ar.Pkg[string(v)]; ok {
			add(res.helper(string(v), 0))
		}
		return false
	})
	keys := make([]string, 0, len(refs))
	for k := range refs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []InputValue{}
	for i, k := range keys {
		// A path whose extension is also listed says less: keep the specific one.
		if i+1 < len(keys) && (strings.HasPrefix(keys[i+1], k+".") || strings.HasPrefix(keys[i+1], k+"[")) {
			continue
		}
		ref := refs[k]
		iv := InputValue{Path: k}
		v, err := in.Find(ref[1:])
		if err != nil {
			iv.Missing = true
		} else {
			b, err := canonjson.Marshal(toInterface(v))
			if err != nil {
				b = []byte(v.String())
			}
			s := string(b)
			if len(s) > maxInputValue {
				s = s[:maxInputValue] + "…"
			}
			iv.Value = s
		}
		out = append(out, iv)
	}
	return out
}

// pathResolver maps terms of a package's rules to the input paths they stand for.
type pathResolver struct {
	helpers map[string][]*ast.Rule
	imports map[string]*policy.PackageRules // by alias
	memo    map[string]ast.Ref
	busy    map[string]bool
	subs    map[*policy.PackageRules]*pathResolver
}

// imported is the resolver of an imported package (lib.request is the helper request of
// data.handoff.lib, resolved among that package's rules).
func (p *pathResolver) imported(alias string) *pathResolver {
	pr := p.imports[alias]
	if pr == nil {
		return nil
	}
	if p.subs == nil {
		p.subs = map[*policy.PackageRules]*pathResolver{}
	}
	if sub, ok := p.subs[pr]; ok {
		return sub
	}
	sub := &pathResolver{helpers: pr.Rules, imports: pr.Imports, memo: map[string]ast.Ref{}, busy: map[string]bool{}}
	p.subs[pr] = sub
	return sub
}

const maxResolveDepth = 16

// helper resolves a helper rule by name: the first of its definitions whose value is
// an input path.
func (p *pathResolver) helper(name string, depth int) ast.Ref {
	if r, ok := p.memo[name]; ok {
		return r
	}
	if p.busy[name] || depth > maxResolveDepth {
		return nil
	}
	p.busy[name] = true
	defer delete(p.busy, name)
	var out ast.Ref
	for _, r := range p.helpers[name] {
		if len(r.Head.Args) > 0 || r.Head.Value == nil {
			continue
		}
		if out = p.term(r, r.Head.Value, depth+1); out != nil {
			break
		}
	}
	p.memo[name] = out
	return out
}

// term resolves one term of rule to an input path, or nil.
func (p *pathResolver) term(rule *ast.Rule, t *ast.Term, depth int) ast.Ref {
	if depth > maxResolveDepth {
		return nil
	}
	switch x := t.Value.(type) {
	case ast.Ref:
		var base ast.Ref
		head, ok := x[0].Value.(ast.Var)
		if !ok {
			return nil
		}
		rest := x[1:]
		switch {
		case x[0].Equal(ast.InputRootDocument):
			base = ast.Ref{x[0]}
		case p.helpers[string(head)] != nil:
			base = p.helper(string(head), depth+1)
		case p.imports[string(head)] != nil && len(x) > 1:
			name, ok := x[1].Value.(ast.String)
			if !ok {
				return nil
			}
			base, rest = p.imported(string(head)).helper(string(name), depth+1), x[2:]
		default:
			base = p.local(rule, head, depth+1)
		}
		if base == nil {
			return nil
		}
		return extend(base, rest)
	case ast.Var:
		if p.helpers[string(x)] != nil {
			return p.helper(string(x), depth+1)
		}
		return p.local(rule, x, depth+1)
	case ast.Call:
		// object.get(X, key or [keys], default)
		if len(x) == 4 && x[0].String() == "object.get" {
			base := p.term(rule, x[1], depth+1)
			if base == nil {
				return nil
			}
			switch k := x[2].Value.(type) {
			case ast.String:
				return extend(base, []*ast.Term{x[2]})
			case *ast.Array:
				var path []*ast.Term
				k.Foreach(func(t *ast.Term) { path = append(path, t) })
				return extend(base, path)
			}
			return base
		}
	case *ast.SetComprehension:
		return p.comprehension(rule, x.Body, depth)
	case *ast.ArrayComprehension:
		return p.comprehension(rule, x.Body, depth)
	case *ast.ObjectComprehension:
		return p.comprehension(rule, x.Body, depth)
	}
	return nil
}

// comprehension resolves a comprehension to the collection its first "some x in C"
// ranges over.
func (p *pathResolver) comprehension(rule *ast.Rule, body ast.Body, depth int) ast.Ref {
	for _, expr := range body {
		if coll := someCollection(expr); coll != nil {
			return p.term(rule, coll, depth+1)
		}
	}
	return nil
}

// local resolves a variable of rule's body through its assignment (v := X or v = X).
func (p *pathResolver) local(rule *ast.Rule, v ast.Var, depth int) ast.Ref {
	for _, expr := range rule.Body {
		if !expr.IsAssignment() && !expr.IsEquality() {
			continue
		}
		ops := expr.Operands()
		if len(ops) != 2 {
			continue
		}
		if ops[0].Value.Compare(v) == 0 {
			return p.term(rule, ops[1], depth+1)
		}
		if ops[1].Value.Compare(v) == 0 {
			return p.term(rule, ops[0], depth+1)
		}
	}
	return nil
}

// someCollection returns C of an expression "some x in C" (or "some k, x in C").
func someCollection(expr *ast.Expr) *ast.Term {
	decl, ok := expr.Terms.(*ast.SomeDecl)
	if !ok || len(decl.Symbols) != 1 {
		return nil
	}
	call, ok := decl.Symbols[0].Value.(ast.Call)
	if !ok || len(call) < 3 {
		return nil
	}
	return call[len(call)-1]
}

// extend appends the ground prefix of rest to base.
func extend(base ast.Ref, rest []*ast.Term) ast.Ref {
	out := append(ast.Ref{}, base...)
	for _, t := range rest {
		if !t.IsGround() {
			break
		}
		if _, ok := t.Value.(ast.Var); ok {
			break
		}
		out = append(out, t)
	}
	return out
}

func toInterface(v ast.Value) any {
	x, err := ast.JSON(v)
	if err != nil {
		return v.String()
	}
	return x
}
