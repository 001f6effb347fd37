package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/handoff-dev/handoff/engine/internal/policy"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/store"
)

// Explanation is handoff.Explanation.
type Explanation = handoff.Explanation

// ExplainedReason is handoff.ExplainedReason.
type ExplainedReason = handoff.ExplainedReason

// RuleInfo is handoff.RuleInfo.
type RuleInfo = handoff.RuleInfo

// FiredRule is handoff.FiredRule.
type FiredRule = handoff.FiredRule

// InputValue is handoff.InputValue.
type InputValue = handoff.InputValue

// maxInputValue bounds the canonical JSON shown for one input value.
const maxInputValue = 300

// ErrDecisionNotFound reports that no log holds a decision with the id asked for
// (handoff.ErrDecisionNotFound).
var ErrDecisionNotFound = handoff.ErrDecisionNotFound

// EvaluateExplain decides a request without recording anything, as Evaluate does, and
// explains the decision. A request already decided is answered with the recorded
// decision, which is then explained with the state as it is now (Reproduced says
// whether that gives the same decision). It is safe for concurrent use.
func (e *Engine) EvaluateExplain(ctx context.Context, body []byte) (*Explanation, error) {
	res, prior, err := e.evaluate(ctx, body, e.opts.Clock(), nil, evaluation{explain: true, timeout: replayTimeout(e.decider, 0)})
	if err != nil {
		return nil, err
	}
	d, ex := res.decision, res.explanation
	ex.Reproduced = true
	if prior != nil {
		ex.Reproduced = sameOutcome(prior, d)
		d = prior
	}
	ex.Decision = d
	e.decider.attach(ex)
	return ex.Explanation, nil
}

// Explain finds a recorded decision by its id in every tenant's log and explains it:
// the request is evaluated again with tracing on the input recorded for it and the
// state before it, rebuilt as Replay rebuilds it. A decision of a security audit stream
// is explained from its reason codes alone: the engine blocked it before routing. So is
// a decision whose request the log holds redacted (Redaction): it cannot be evaluated
// again. It fails with ErrDecisionNotFound when no decision has the id.
func (e *Engine) Explain(ctx context.Context, decisionID string) (*Explanation, error) {
	return e.explain(ctx, nil, decisionID)
}

// ExplainCandidate explains the decision candidate's bundle makes on the input recorded
// for a decision, decided again as Replay decides it (on the state rebuilt with e's
// bundle, the one the log was recorded with): the Explanation's Decision is the
// candidate's, with the recorded decision's id and time, Recorded is the decision in
// the log, Candidate is true and Reproduced says the candidate decides as recorded. A
// record no bundle can decide again (a redacted request, or a decision of a security
// audit stream, blocked before any policy was asked) is explained as Explain explains
// it, Candidate false.
func (e *Engine) ExplainCandidate(ctx context.Context, candidate *Decider, decisionID string) (*Explanation, error) {
	return e.explain(ctx, candidate, decisionID)
}

func (e *Engine) explain(ctx context.Context, candidate *Decider, decisionID string) (*Explanation, error) {
	loc, err := e.findDecision(ctx, decisionID)
	if err != nil {
		return nil, err
	}
	if loc.entry.Redaction != nil {
		ex := &Explanation{Decision: loc.decision, Entrypoint: loc.decision.Policy.Entrypoint, Passed: []RuleInfo{},
			Redaction: loc.entry.Redaction, Request: loc.entry.Request}
		e.decider.attach(&traced{Explanation: ex})
		return ex, nil
	}
	if loc.audit {
		ex := &Explanation{Decision: loc.decision, Entrypoint: loc.decision.Policy.Entrypoint, Passed: []RuleInfo{}, Reproduced: true}
		e.decider.attach(&traced{Explanation: ex})
		return ex, nil
	}
	dc := e.decider
	if candidate != nil {
		dc = candidate
	}
	var out *traced
	stop := errors.New("found")
	err = e.replayWorkflow(ctx, dc, replayTarget{loc.tenant, loc.workflow}, replayPlan{only: loc.seq, explain: true, timeout: replayTimeout(dc, 0)},
		func(res ReplayResult) error {
			out = res.explanation
			out.Reproduced = len(res.Changed) == 0
			out.Decision = res.Recorded
			if candidate != nil {
				out.Decision, out.Recorded, out.Candidate = res.Replayed, res.Recorded, true
			}
			return stop
		})
	if err != nil && !errors.Is(err, stop) {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("%w: %s", ErrDecisionNotFound, decisionID)
	}
	dc.attach(out)
	return out.Explanation, nil
}

// attach lists each reason of the decision with the rules that fired for its code.
func (dc *Decider) attach(ex *traced) {
	fired := map[string][]FiredRule{}
	for _, f := range ex.fired {
		fired[f.Code] = append(fired[f.Code], f)
	}
	ex.Reasons = make([]ExplainedReason, 0, len(ex.Decision.Reasons))
	for _, r := range ex.Decision.Reasons {
		rules := dc.ofReason(fired[r.Code], ex.Decision.Pack, r.Title)
		if len(rules) == 0 {
			// Not traced (an audit record) or not fired here: name the rules that carry
			// the code, of the decision's pack or no pack (the one its title names).
			var all []FiredRule
			for _, info := range dc.rulesByCode()[r.Code] {
				all = append(all, FiredRule{RuleInfo: info, Inputs: []InputValue{}})
			}
			rules = dc.ofReason(all, ex.Decision.Pack, r.Title)
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
func (dc *Decider) ofReason(rules []FiredRule, pack, title string) []FiredRule {
	var out, titled []FiredRule
	for _, f := range rules {
		if other := dc.packOf(f.Package); other != "" && other != pack {
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
func (dc *Decider) packOf(pkg string) string {
	for _, name := range dc.contracts.PackNames() {
		if root := "handoff." + name; pkg == root || strings.HasPrefix(pkg, root+".") {
			return name
		}
	}
	return ""
}

// traced is an explanation being built: the annotated rules that fired, from the
// trace, are attached to the decision's reasons once it is known.
type traced struct {
	*Explanation
	fired []FiredRule
}

// explanation explains a traced evaluation: the rules carrying reason codes that
// fired, with the input values they read, and those checked that did not.
func (dc *Decider) explanation(r *request, tr *ruleTracer, entrypoint string) *traced {
	ex := &traced{Explanation: &Explanation{Entrypoint: entrypoint, Passed: []RuleInfo{}}}
	in, _ := r.input()
	var fired []FiredRule
	byLoc := dc.annotatedRules()
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
			fired = append(fired, FiredRule{RuleInfo: ar.Info, Inputs: dc.inputsOf(ar, in)})
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
func (dc *Decider) annotatedRules() map[string]*policy.AnnotatedRule {
	byLoc, _ := dc.policies.Catalog()
	return byLoc
}

func (dc *Decider) rulesByCode() map[string][]RuleInfo {
	_, byCode := dc.policies.Catalog()
	return byCode
}

// inputsOf lists the input paths a rule reads, with their values in this evaluation.
// A helper rule of the package that stands for an input path (_request := input.request,
// _kind := object.get(_request, "kind", "")) counts as that path; a path with a variable
// is cut before the variable, so the value shown is the collection it ranges over.
func (dc *Decider) inputsOf(ar *policy.AnnotatedRule, in ast.Value) []InputValue {
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

func sameOutcome(a, b *Decision) bool {
	if a.Outcome != b.Outcome || len(a.Reasons) != len(b.Reasons) {
		return false
	}
	for i := range a.Reasons {
		if a.Reasons[i].Code != b.Reasons[i].Code {
			return false
		}
	}
	return true
}

// decisionLocation is where a recorded decision is.
type decisionLocation struct {
	tenant, workflow string
	seq              uint64
	audit            bool
	decision         *Decision
	entry            Entry
}

// findDecision finds a decision by its id in the store's record index: one read, then
// the record it names, which must hold that decision (store.ErrTampered otherwise).
func (e *Engine) findDecision(ctx context.Context, id string) (*decisionLocation, error) {
	loc, err := e.log.Find(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrDecisionNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	var found *decisionLocation
	// One read: the record the index names (workflow "" names the audit stream).
	rec, err := e.log.Record(ctx, loc.Tenant, loc.Workflow, loc.Seq)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	case rec.Hash == loc.Hash:
		ent, err := decodeEntry(rec)
		if err != nil {
			return nil, err
		}
		if ent.Decision != nil && ent.Decision.DecisionID == id {
			found = &decisionLocation{tenant: loc.Tenant, workflow: loc.Workflow, seq: rec.Seq, audit: loc.Audit(), decision: ent.Decision, entry: ent}
		}
	}
	if found == nil {
		return nil, fmt.Errorf("engine: decision %s: the index names record %d of %s, which does not hold it: %w", id, loc.Seq, chainName(loc), store.ErrTampered)
	}
	return found, nil
}

// chainName names the chain of a location in messages.
func chainName(loc store.Location) string {
	if loc.Audit() {
		return fmt.Sprintf("the audit stream of tenant %s", loc.Tenant)
	}
	return fmt.Sprintf("workflow %s of tenant %s", loc.Workflow, loc.Tenant)
}
