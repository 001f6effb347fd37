package policy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// A pack's entrypoint is only ever evaluated with input.pack set to the pack's name
// (the engine routes the request, then asks that pack's decision). Many of the rules its
// query reaches then have one value for every request: the contract tables read through
// data.handoff[input.pack], the checks that they are complete, indices built from
// them. Folding evaluates those rules once, when the pack's policies are compiled, and
// compiles the query again with each replaced by its value, so that a request pays only
// for the rules that read it.

var (
	// inputPack is the reference a pack's query may treat as the pack's name.
	inputPack    = ast.MustParseRef("input.pack")
	regoMetadata = ast.MustParseRef("rego.metadata")
)

// folder decides which documents of a pack's query are constant and evaluates them.
type folder struct {
	compiler *ast.Compiler // the unfolded compile
	store    storage.Store
	pack     string
	keep     func(file string) bool // the files the folded query is compiled from
	// metadata are the rules (by LocKey) that call rego.metadata.*: their value
	// depends on where they are written, so they are never folded.
	metadata map[string]bool
	state    map[*ast.Rule]uint8 // ruleVisiting, ruleStatic or ruleDynamic
	deps     map[*ast.Rule][]*ast.Rule
}

const (
	ruleVisiting uint8 = iota + 1
	ruleStatic
	ruleDynamic
)

// foldedDoc is one document replaced by its value.
type foldedDoc struct {
	path  ast.Ref // data.<package>.<name>, ground
	value *ast.Term
}

// fold returns the modules of the pack's query with every constant document it reaches
// replaced by its value, and the number of documents replaced. The modules given (the
// parsed sources) are not changed. An error means the pack is not folded.
func (f *folder) fold(ctx context.Context, sources map[string]*ast.Module, entrypoint string) (map[string]*ast.Module, int, error) {
	f.state = map[*ast.Rule]uint8{}
	f.deps = map[*ast.Rule][]*ast.Rule{}
	f.metadata = metadataRules(sources)
	if err := f.checkSources(sources); err != nil {
		return nil, 0, err
	}
	targets, err := f.targets(ast.MustParseRef(entrypoint))
	if err != nil {
		return nil, 0, err
	}
	docs, err := f.evaluate(ctx, targets)
	if err != nil {
		return nil, 0, err
	}
	out, err := f.rewrite(sources, docs)
	return out, len(docs), err
}

// checkSources refuses modules whose meaning folding could change: a `with` can make a
// constant rule take another value for the span of one expression, and an import of
// input could hide a read of input.pack from the rewrite.
func (f *folder) checkSources(sources map[string]*ast.Module) error {
	for path, m := range sources {
		if !f.keep(path) || path == memoHintFile {
			continue
		}
		for _, imp := range m.Imports {
			if r, ok := imp.Path.Value.(ast.Ref); ok && r.HasPrefix(ast.InputRootRef) {
				return fmt.Errorf("%s imports %v", path, imp.Path)
			}
		}
		var with bool
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			with = with || len(e.With) > 0
			return with
		})
		if with {
			return fmt.Errorf("%s uses with", path)
		}
	}
	return nil
}

// metadataRules are the locations of the rules (else branches included in their rule)
// that call rego.metadata.*.
func metadataRules(sources map[string]*ast.Module) map[string]bool {
	out := map[string]bool{}
	for _, m := range sources {
		for _, r := range m.Rules {
			found := false
			ast.WalkTerms(r, func(t *ast.Term) bool {
				if ref, ok := t.Value.(ast.Ref); ok && ref.HasPrefix(regoMetadata) {
					found = true
				}
				return found
			})
			if found && r.Location != nil {
				out[LocKey(r.Location)] = true
			}
		}
	}
	return out
}

// targets walks the rules the entrypoint reaches and returns the constant documents
// it reads first: a constant document read by another constant document need not be
// folded, as the one reading it is. A constant function is walked through, since its
// arguments may vary. Every rule reached must come from a file the folded query is
// compiled from.
func (f *folder) targets(entrypoint ast.Ref) ([]ast.Ref, error) {
	seen := map[*ast.Rule]bool{}
	targets := map[string]ast.Ref{}
	queue := slices.Clone(f.compiler.GetRulesExact(entrypoint))
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if seen[r] {
			continue
		}
		seen[r] = true
		if r.Location == nil || !f.keep(r.Location.File) {
			return nil, fmt.Errorf("%v reaches %v, outside the pack's files", entrypoint, r.Ref())
		}
		if f.static(r) {
			if doc, ok := f.document(r); ok {
				targets[doc.String()] = doc
				continue
			}
		}
		queue = append(queue, f.deps[r]...)
	}
	return slices.SortedFunc(maps.Values(targets), func(a, b ast.Ref) int { return a.Compare(b) }), nil
}

// document is the document a rule defines when it may be replaced by a constant: the
// rule is no function, its path is ground but maybe for a last key (a partial set or
// object), and the rules defining that path (or anything under it, or above it) all
// define exactly that path, are constant, are no functions and are in the files the
// folded query is compiled from.
func (f *folder) document(r *ast.Rule) (ast.Ref, bool) {
	if len(r.Head.Args) > 0 {
		return nil, false
	}
	ref := r.Ref()
	doc := docPrefix(ref)
	if rest := ref[len(doc):]; len(rest) > 1 || len(rest) == 1 && !isVar(rest[0]) {
		return nil, false
	}
	for _, o := range f.compiler.GetRulesDynamicWithOpts(doc, ast.RulesOptions{IncludeHiddenModules: true}) {
		oref := o.Ref()
		if len(o.Head.Args) > 0 || !docPrefix(oref).Equal(doc) || !f.static(o) || o.Location == nil || !f.keep(o.Location.File) {
			return nil, false
		}
		if rest := oref[len(doc):]; len(rest) > 1 || len(rest) == 1 && !isVar(rest[0]) {
			return nil, false
		}
	}
	return doc, true
}

// docPrefix is the part of a rule's path made of names: its head and the string keys
// after it, up to the first key that is anything else.
func docPrefix(ref ast.Ref) ast.Ref {
	for i, t := range ref[1:] {
		if _, ok := t.Value.(ast.String); !ok {
			return ref[:i+1]
		}
	}
	return ref
}

func isVar(t *ast.Term) bool {
	_, ok := t.Value.(ast.Var)
	return ok
}

// static says whether a rule has one value for every request of the pack: it reads no
// input but input.pack, calls only foldable builtins and functions that are static
// themselves, uses no with, calls no rego.metadata.*, and every rule it reads is
// static.
func (f *folder) static(r *ast.Rule) bool {
	switch f.state[r] {
	case ruleStatic:
		return true
	case ruleDynamic, ruleVisiting: // a cycle is refused
		return false
	}
	f.state[r] = ruleVisiting
	deps, ok := f.ruleDeps(r)
	f.deps[r] = deps
	if ok && r.Location != nil && f.metadata[LocKey(r.Location)] {
		ok = false
	}
	for _, d := range deps {
		if !ok {
			break
		}
		ok = f.static(d)
	}
	f.state[r] = ruleDynamic
	if ok {
		f.state[r] = ruleStatic
	}
	return ok
}

// ruleDeps returns the rules a compiled rule reads or calls (over-approximated where a
// reference has variables), and whether its own body and head are static.
func (f *folder) ruleDeps(r *ast.Rule) ([]*ast.Rule, bool) {
	ok := true
	set := map[*ast.Rule]bool{}
	addData := func(ref ast.Ref) {
		for _, d := range f.compiler.GetRulesDynamicWithOpts(ref, ast.RulesOptions{IncludeHiddenModules: true}) {
			set[d] = true
		}
	}
	var vis *ast.GenericVisitor
	operator := func(op *ast.Term) {
		ref, isRef := op.Value.(ast.Ref)
		switch {
		case !isRef:
			ok = false
		case ref.HasPrefix(ast.DefaultRootRef):
			addData(ref)
		case !foldableBuiltin(ref.String()):
			ok = false
		}
	}
	vis = ast.NewGenericVisitor(func(x any) bool {
		switch x := x.(type) {
		case *ast.Expr:
			if len(x.With) > 0 {
				ok = false
				return true
			}
			if x.IsCall() {
				operator(x.OperatorTerm())
				for _, t := range x.Operands() {
					vis.Walk(t)
				}
				return true
			}
		case ast.Call:
			operator(x[0])
			for _, t := range x[1:] {
				vis.Walk(t)
			}
			return true
		case ast.Ref:
			switch {
			case x.HasPrefix(inputPack):
			case x.HasPrefix(ast.InputRootRef):
				ok = false
			case x.HasPrefix(ast.DefaultRootRef):
				addData(x)
			default:
				vis.Walk(x[0])
			}
			for _, t := range x[1:] {
				vis.Walk(t)
			}
			return true
		case ast.Var:
			// A bare input or data reads every document.
			if x.Equal(ast.InputRootDocument.Value) || x.Equal(ast.DefaultRootDocument.Value) {
				ok = false
			}
		}
		return false
	})
	vis.Walk(r)
	deps := slices.Collect(maps.Keys(set))
	slices.SortFunc(deps, func(a, b *ast.Rule) int { return a.Loc().Compare(b.Loc()) })
	return deps, ok
}

// foldBudget bounds the evaluation of one document at load. A document that takes
// longer is not folded: a request evaluates it as written, within its own deadline, so
// a policy too slow to decide still times out rather than holding up the load.
const foldBudget = 250 * time.Millisecond

// evaluate evaluates each document on the unfolded compile, with the pack's data and
// input.pack the pack's name. A document that is undefined, whose evaluation fails or
// takes longer than foldBudget, is not folded: its rules stay as they are.
func (f *folder) evaluate(ctx context.Context, targets []ast.Ref) ([]foldedDoc, error) {
	txn, err := f.store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer f.store.Abort(ctx, txn)
	input := ast.NewTerm(ast.NewObject(ast.Item(ast.StringTerm("pack"), ast.StringTerm(f.pack))))
	result := ast.Var("__folded__")
	var out []foldedDoc
	for _, doc := range targets {
		body, err := f.compiler.QueryCompiler().Compile(ast.NewBody(ast.Equality.Expr(ast.VarTerm(string(result)), ast.NewTerm(doc))))
		if err != nil {
			return nil, fmt.Errorf("fold %v: %w", doc, err)
		}
		cancel := topdown.NewCancel()
		timer := time.AfterFunc(foldBudget, cancel.Cancel)
		rs, err := topdown.NewQuery(body).WithCompiler(f.compiler).WithStore(f.store).WithTransaction(txn).
			WithInput(input).WithStrictBuiltinErrors(true).WithCancel(cancel).Run(ctx)
		timer.Stop()
		if err != nil || len(rs) != 1 {
			continue
		}
		out = append(out, foldedDoc{path: doc, value: rs[0][result]})
	}
	return out, nil
}

// rewrite copies the modules of the folded query, reads input.pack as the pack's name,
// and replaces the rules of each folded document by one rule giving its value, where
// the first of them was.
func (f *folder) rewrite(sources map[string]*ast.Module, docs []foldedDoc) (map[string]*ast.Module, error) {
	byPath := map[string]foldedDoc{}
	for _, d := range docs {
		byPath[d.path.String()] = d
	}
	emitted := map[string]bool{}
	out := map[string]*ast.Module{}
	for _, path := range slices.Sorted(maps.Keys(sources)) {
		if !f.keep(path) {
			continue
		}
		m := sources[path].Copy()
		rules := m.Rules[:0]
		for _, r := range m.Rules {
			key := docPrefix(m.Package.Path.Extend(r.Head.Ref())).String()
			d, folded := byPath[key]
			if !folded {
				rules = append(rules, r)
				continue
			}
			if !emitted[key] {
				emitted[key] = true
				rules = append(rules, constantRule(m, d, r.Location))
			}
		}
		m.Rules = rules
		pack := ast.String(f.pack)
		for _, r := range m.Rules {
			if _, err := ast.TransformRefs(r, func(r ast.Ref) (ast.Value, error) {
				if r.Equal(inputPack) {
					return pack, nil
				}
				return r, nil
			}); err != nil {
				return nil, err
			}
		}
		out[path] = m
	}
	if len(emitted) != len(byPath) {
		for k := range byPath {
			if !emitted[k] {
				return nil, fmt.Errorf("folded document %s has no rule in the pack's modules", k)
			}
		}
	}
	return out, nil
}

// constantRule is `<name> := <value>` in module m for a folded document of its package.
func constantRule(m *ast.Module, d foldedDoc, loc *ast.Location) *ast.Rule {
	rel := d.path[len(m.Package.Path):].Copy()
	rel[0] = ast.VarTerm(string(rel[0].Value.(ast.String)))
	value := d.value.Copy()
	value.SetLocation(loc)
	head := ast.RefHead(rel, value)
	head.Assign = true
	head.Location = loc
	for _, t := range rel {
		t.SetLocation(loc)
	}
	body := ast.NewBody(ast.NewExpr(ast.BooleanTerm(true).SetLocation(loc)))
	body[0].Location = loc
	return &ast.Rule{Head: head, Body: body, Module: m, Location: loc}
}

// entrypointPack is the pack whose decision an entrypoint is; false for the core one,
// which is evaluated with no pack.
func entrypointPack(entrypoint string) (string, bool) {
	pack, ok := strings.CutPrefix(entrypoint, "data.handoff.")
	if pack, ok = strings.CutSuffix(pack, ".decision"); !ok || pack == "core" || strings.Contains(pack, ".") {
		return "", false
	}
	return pack, PackEntrypoint(pack) == entrypoint
}

// foldQuery prepares a pack's query over its modules with their constant documents
// folded, the unfolded compile serving to find and evaluate them, and returns the
// number of documents folded. The modules are those of the group the compiler
// compiled; the folded query is compiled from the core, shared and pack's ones only.
func foldQuery(ctx context.Context, compiler *ast.Compiler, store storage.Store, modules map[string]*ast.Module, pack, entrypoint string) (rego.PreparedEvalQuery, int, error) {
	f := &folder{compiler: compiler, store: store, pack: pack, keep: func(file string) bool {
		o := FileOwner(file)
		return o == "" || o == "core" || o == "lib" || o == pack
	}}
	folded, n, err := f.fold(ctx, modules, entrypoint)
	if err != nil {
		return rego.PreparedEvalQuery{}, 0, err
	}
	if n == 0 {
		return rego.PreparedEvalQuery{}, 0, errors.New("no constant document")
	}
	// The sources passed the strict compile and the type checker already. Not strict: a
	// folded module may leave an import unused. No type check: a constant has a narrower
	// type than the rules it replaces (an object of the keys it has), which the checker
	// would hold against a rule reading a key that this pack's tables lack.
	c := ast.NewCompiler().WithCapabilities(Capabilities()).WithEnablePrintStatements(false).
		WithSkipStages(ast.StageCheckTypes)
	if c.Compile(folded); c.Failed() {
		return rego.PreparedEvalQuery{}, 0, fmt.Errorf("compile folded policies: %v", c.Errors)
	}
	q, err := prepare(ctx, c, store, entrypoint)
	return q, n, err
}
