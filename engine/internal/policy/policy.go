package policy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// CoreEntrypoint decides requests the engine cannot route to a pack: it always blocks.
const CoreEntrypoint = "data.handoff.core.decision"

// Policies holds one prepared query per entrypoint: the core one and one per
// pack. By default a single compiler serves them all. With lazy compilation each
// entrypoint has a compiler of its own, over the core modules, the modules shared by
// every pack and its pack's, compiled when first needed: OPA's compile time grows faster
// than the bundle, so a process that decides for one pack only (a handoffctl command)
// pays for a fraction of the compile. With folding (compiled at once only), each pack's
// entrypoint is also compiled a second time, from the core, shared and pack's modules
// with their constant rules folded (fold.go): that query serves decisions, the first one
// explanations. Folding is asked for: it costs a second compile of every pack at start
// and its heap (about 0.3 s and 20 MB for the shipped packs) for a tenth of the
// policy's work per decision, which a whole decision barely shows.
type Policies struct {
	groups  map[string]*policyGroup // entrypoint -> the group that prepares it
	data    map[string]any          // the data documents, with the tables compiled at once
	store   storage.Store           // holds data
	tables  Tables
	catalog catalog // the rules carrying reason codes, indexed on first use
	// sources are the policy files by path, read but not parsed when compilation is
	// lazy: a process that decides for one pack parses only its modules.
	sources    map[string][]byte
	parsedOnce sync.Once
	parsed     map[string]*ast.Module // every module, parsed on first need
	parseErr   error
	fold       bool // fold each pack's query (compilation at once)
}

// policyGroup is the modules some entrypoints are compiled from, and their queries once
// compiled.
type policyGroup struct {
	entrypoints []string
	owner       string   // with lazy compilation: the pack, "core", or "" for all
	files       []string // with lazy compilation: the files to parse and compile
	modules     map[string]*ast.Module
	once        sync.Once
	queries     map[string]rego.PreparedEvalQuery // as written, for explanations
	folded      map[string]rego.PreparedEvalQuery // a pack's, with its constants folded
	foldErrs    map[string]error                  // why a pack's entrypoint is not folded
	folds       map[string]int                    // the documents folded, by entrypoint
	err         error
}

// Compile loads every Rego module and JSON data file of the policy tree once.
// Unless lazy is set, it compiles them in one compiler and prepares every entrypoint, so
// that a policy that does not compile fails here; with lazy, each entrypoint's group is
// compiled when the entrypoint is first evaluated.
func Compile(ctx context.Context, fsys fs.FS, tables Tables, lazy, fold bool) (*Policies, error) {
	caps := Capabilities()
	// With lazy compilation the loader reads the data files only; the Rego files are
	// read and parsed a pack at a time.
	skip := func(abspath string, info fs.FileInfo, depth int) bool {
		return strings.HasSuffix(info.Name(), "_test.rego") || lazy && strings.HasSuffix(info.Name(), ".rego")
	}
	res, err := loader.NewFileLoader().WithFS(fsys).WithCapabilities(caps).WithProcessAnnotation(true).
		Filtered([]string{"."}, skip)
	if err != nil {
		return nil, fmt.Errorf("engine: load policies: %w", policyError(err))
	}
	// The contract tables are the CUE values, whatever the committed copies say: those are
	// the fixture stock `opa test` reads. With lazy compilation a pack's tables join the
	// data of its own group, when it compiles.
	core, err := tables.CoreDocuments()
	if err != nil {
		return nil, err
	}
	docs, err := overlay(res.Documents, core)
	if err != nil {
		return nil, err
	}
	owners := map[string]string{"core": CoreEntrypoint}
	for _, p := range tables.PackNames() {
		owners[p] = PackEntrypoint(p)
		if lazy {
			continue
		}
		pack, err := tables.PackDocuments(p)
		if err != nil {
			return nil, err
		}
		if docs, err = overlay(docs, pack); err != nil {
			return nil, err
		}
	}
	cp := &Policies{groups: map[string]*policyGroup{}, data: docs, store: newStore(docs), tables: tables, fold: fold && !lazy}
	if !lazy {
		cp.parsed = res.ParsedModules()
		cp.parsedOnce.Do(func() {})
		all := &policyGroup{modules: map[string]*ast.Module{}}
		maps.Copy(all.modules, cp.parsed)
		for _, ep := range owners {
			all.entrypoints = append(all.entrypoints, ep)
			cp.groups[ep] = all
		}
		sort.Strings(all.entrypoints)
		_, err := cp.Query(ctx, CoreEntrypoint)
		return cp, err
	}
	if cp.sources, err = regoSources(fsys); err != nil {
		return nil, err
	}
	for owner, ep := range owners {
		g := &policyGroup{entrypoints: []string{ep}, owner: owner}
		for _, path := range slices.Sorted(maps.Keys(cp.sources)) {
			// Core, lib and shared files go to every group; a pack's only to its own.
			if o := FileOwner(path); o == "" || o == "core" || o == "lib" || o == owner {
				g.files = append(g.files, path)
			}
		}
		cp.groups[ep] = g
	}
	return cp, nil
}

// regoSources reads every Rego file of a policy tree but its tests, by path.
func regoSources(fsys fs.FS) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || strings.HasSuffix(path, "_test.rego") {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		out[path] = b
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("engine: load policies: %w", err)
	}
	return out, nil
}

// FileOwner is the directory after handoff/ of a policy file: "core", a pack's name, or
// "" for a file outside handoff/<name>/. The directory mirrors the package.
func FileOwner(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) < 3 || parts[0] != "handoff" {
		return ""
	}
	return parts[1]
}

// parse parses policy files as the loader does.
func parse(path string, src []byte) (*ast.Module, error) {
	m, err := ast.ParseModuleWithOpts(path, string(src), ast.ParserOptions{
		RegoVersion: ast.RegoV1, ProcessAnnotation: true, Capabilities: Capabilities(),
	})
	if err != nil {
		return nil, fmt.Errorf("engine: load policies: %w", policyError(err))
	}
	return m, nil
}

// Modules is every module of the bundle, parsed: for the reason catalog and
// explanations.
func (cp *Policies) Modules() (map[string]*ast.Module, error) {
	cp.parsedOnce.Do(func() {
		cp.parsed = map[string]*ast.Module{}
		for path, src := range cp.sources {
			m, err := parse(path, src)
			if err != nil {
				cp.parseErr = err
				return
			}
			cp.parsed[path] = m
		}
	})
	return cp.parsed, cp.parseErr
}

// Tables gives the data documents that come from the contracts, by their path in
// the data tree.
type Tables interface {
	CoreDocuments() (map[string]any, error)
	PackDocuments(pack string) (map[string]any, error)
	PackNames() []string
}

// overlay returns docs with every table set at its path. docs is not changed: the
// objects on each path are copied.
func overlay(docs, tables map[string]any) (map[string]any, error) {
	out := maps.Clone(docs)
	for _, path := range slices.Sorted(maps.Keys(tables)) {
		if err := setDocument(out, strings.Split(path, "/"), tables[path]); err != nil {
			return nil, fmt.Errorf("engine: policy data: %w", err)
		}
	}
	return out, nil
}

// setDocument puts v at path in the data tree docs, copying the objects on the way (and
// making those missing) so that no other tree sharing them changes.
func setDocument(docs map[string]any, path []string, v any) error {
	for _, seg := range path[:len(path)-1] {
		next, ok := docs[seg].(map[string]any)
		if !ok {
			if _, taken := docs[seg]; taken {
				return fmt.Errorf("data %s is not an object", seg)
			}
		}
		next = maps.Clone(next)
		if next == nil {
			next = map[string]any{}
		}
		docs[seg] = next
		docs = next
	}
	docs[path[len(path)-1]] = v
	return nil
}

// moduleOwner is the third segment of a module's package path: "core" or a pack name
// for data.handoff.core... and data.handoff.<pack>...; anything else is shared.
func moduleOwner(m *ast.Module) string {
	path := m.Package.Path
	if len(path) < 3 || !path[1].Equal(ast.StringTerm("handoff")) {
		return ""
	}
	s, ok := path[2].Value.(ast.String)
	if !ok {
		return ""
	}
	return string(s)
}

// newStore holds data documents as OPA's values: a policy reading a table gets it as
// is, where a store of Go values converts every object it is read through, on every
// evaluation (a sixth of an evaluation's allocations).
func newStore(docs map[string]any) storage.Store {
	return inmem.NewFromObjectWithOpts(docs, inmem.OptReturnASTValuesOnRead(true))
}

// Store holds the data documents the policies read: every table with compilation at
// once; with lazy compilation, the core tables (a pack's join a store of its group's).
func (cp *Policies) Store() storage.Store { return cp.store }

// Query returns the prepared query of an entrypoint, compiling its group the first time:
// for a pack, the query with its constant rules folded (see fold.go); it decides as
// UnfoldedQuery does, with less work per request.
func (cp *Policies) Query(ctx context.Context, entrypoint string) (rego.PreparedEvalQuery, error) {
	g, err := cp.group(ctx, entrypoint)
	if err != nil {
		return rego.PreparedEvalQuery{}, err
	}
	if q, ok := g.folded[entrypoint]; ok {
		return q, nil
	}
	return g.queries[entrypoint], nil
}

// UnfoldedQuery returns the prepared query of an entrypoint over the policies as
// written, every rule evaluated on every request: a trace of it lists the rules of the
// sources, as explanations need.
func (cp *Policies) UnfoldedQuery(ctx context.Context, entrypoint string) (rego.PreparedEvalQuery, error) {
	g, err := cp.group(ctx, entrypoint)
	if err != nil {
		return rego.PreparedEvalQuery{}, err
	}
	return g.queries[entrypoint], nil
}

// Folded returns the number of documents an entrypoint's query has folded, compiling
// its group if need be; with none, the error says why (the query is then the unfolded
// one).
func (cp *Policies) Folded(ctx context.Context, entrypoint string) (int, error) {
	g, err := cp.group(ctx, entrypoint)
	if err != nil {
		return 0, err
	}
	if err := g.foldErrs[entrypoint]; err != nil {
		return 0, err
	}
	if _, ok := g.folded[entrypoint]; !ok {
		return 0, errors.New("engine: " + entrypoint + " is not folded")
	}
	return g.folds[entrypoint], nil
}

// group returns the compiled group of an entrypoint, compiling it the first time.
func (cp *Policies) group(ctx context.Context, entrypoint string) (*policyGroup, error) {
	g, ok := cp.groups[entrypoint]
	if !ok {
		return nil, fmt.Errorf("engine: no entrypoint %s", entrypoint)
	}
	g.once.Do(func() {
		// The compile serves every later call: the one that asked for it must not cut
		// it short.
		g.err = g.compile(context.WithoutCancel(ctx), cp)
	})
	return g, g.err
}

func (g *policyGroup) compile(ctx context.Context, cp *Policies) error {
	compiler, store, err := g.compileModules(cp)
	if err != nil {
		return err
	}
	g.queries = map[string]rego.PreparedEvalQuery{}
	for _, ep := range g.entrypoints {
		q, err := prepare(ctx, compiler, store, ep)
		if err != nil {
			return err
		}
		g.queries[ep] = q
	}
	// Each pack is folded on its own compile: they run side by side.
	g.folded, g.foldErrs, g.folds = map[string]rego.PreparedEvalQuery{}, map[string]error{}, map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, ep := range g.entrypoints {
		pack, ok := entrypointPack(ep)
		if !ok || !cp.fold {
			continue
		}
		wg.Go(func() {
			q, n, err := foldQuery(ctx, compiler, store, g.modules, pack, ep)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				g.foldErrs[ep] = err
				return
			}
			g.folded[ep], g.folds[ep] = q, n
		})
	}
	wg.Wait()
	return nil
}

// compileModules parses the group's files if need be and compiles them, and returns
// the compiler and the store of the group's data.
func (g *policyGroup) compileModules(cp *Policies) (*ast.Compiler, storage.Store, error) {
	if g.modules == nil {
		g.modules = map[string]*ast.Module{}
		for _, path := range g.files {
			m, err := parse(path, cp.sources[path])
			if err != nil {
				return nil, nil, err
			}
			// A module declares the package of its directory: a pack's files are
			// compiled only with that pack.
			if o := moduleOwner(m); o != FileOwner(path) && FileOwner(path) != "" {
				return nil, nil, fmt.Errorf("engine: %s/%s declares package %s, outside its directory", policiesDir, path, m.Package.Path)
			}
			g.modules[path] = m
		}
	}
	hint, err := ast.ParseModuleWithOpts(memoHintFile, memoHint, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, nil, fmt.Errorf("engine: %w", err)
	}
	g.modules[memoHintFile] = hint
	compiler := ast.NewCompiler().WithCapabilities(Capabilities()).WithStrict(true).WithEnablePrintStatements(false)
	if compiler.Compile(g.modules); compiler.Failed() {
		return nil, nil, fmt.Errorf("engine: compile policies: %v", PolicyErrors(compiler.Errors, policiesDir))
	}
	store := cp.store
	if g.owner != "" && g.owner != "core" {
		pack, err := cp.tables.PackDocuments(g.owner)
		if err != nil {
			return nil, nil, err
		}
		docs, err := overlay(cp.data, pack)
		if err != nil {
			return nil, nil, err
		}
		store = newStore(docs)
	}
	return compiler, store, nil
}

func prepare(ctx context.Context, compiler *ast.Compiler, store storage.Store, entrypoint string) (rego.PreparedEvalQuery, error) {
	ref, err := ast.ParseRef(entrypoint)
	if err != nil {
		return rego.PreparedEvalQuery{}, fmt.Errorf("engine: entrypoint %s: %w", entrypoint, err)
	}
	if len(compiler.GetRulesExact(ref)) == 0 {
		return rego.PreparedEvalQuery{}, fmt.Errorf("engine: no rule %s: a pack's policy must define decision", entrypoint)
	}
	q, err := rego.New(
		rego.Query(entrypoint),
		rego.Compiler(compiler),
		rego.Store(store),
		rego.StrictBuiltinErrors(true),
	).PrepareForEval(ctx)
	if err != nil {
		return rego.PreparedEvalQuery{}, fmt.Errorf("engine: prepare %s: %w", entrypoint, err)
	}
	return q, nil
}

// OPA's type checker asks, for every rule whose type holds an empty collection
// (`else := []`, `"events": []`), which rules a `with` could replace. It keeps the
// answer only when it is not empty, so a bundle without a `with` walks every module once
// per such rule: more than half of compiling the shipped packs. One `with` on a rule of
// its own makes the answer non-empty, computed once.
const (
	memoHintFile = "handoff-engine/compile-memo.rego"
	memoHint     = `package handoff_engine.compile_memo

target := true

uses_with if target with data.handoff_engine.compile_memo.target as false
`
)

// PackEntrypoint is the rule a pack's decisions come from.
func PackEntrypoint(pack string) string {
	return "data.handoff." + pack + ".decision"
}
