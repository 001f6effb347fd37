package engine

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
)

// coreEntrypoint decides requests the engine cannot route to a pack: it always blocks.
const coreEntrypoint = "data.handoff.core.decision"

// removedBuiltins reach outside the process or are not deterministic. A policy that
// calls one fails to load, so a decision can always be replayed from its input. Every
// net.* and rand.* builtin is removed as well.
var removedBuiltins = map[string]bool{
	"http.send":              true,
	"opa.runtime":            true,
	"time.now_ns":            true,
	"uuid.rfc4122":           true,
	"providers.aws.sign_req": true,
	"io.jwt.encode_sign":     true, // ECDSA signatures are randomized
	"io.jwt.encode_sign_raw": true,
}

// capabilities are OPA's builtins less the removed ones.
func capabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if removedBuiltins[b.Name] || strings.HasPrefix(b.Name, "net.") || strings.HasPrefix(b.Name, "rand.") {
			continue
		}
		kept = append(kept, b)
	}
	caps.Builtins = kept
	caps.AllowNet = []string{}
	return caps
}

// compiledPolicies holds one prepared query per entrypoint, all sharing one compiler.
type compiledPolicies struct {
	queries map[string]rego.PreparedEvalQuery // entrypoint -> query
	data    map[string]any                    // the data documents (exported tables)
	modules map[string]*ast.Module
}

// compilePolicies loads every Rego module and JSON data file of the policy tree once and
// prepares the core entrypoint and one entrypoint per pack.
func compilePolicies(ctx context.Context, fsys fs.FS, packs []string) (*compiledPolicies, error) {
	caps := capabilities()
	res, err := loader.NewFileLoader().WithFS(fsys).WithCapabilities(caps).WithProcessAnnotation(true).
		Filtered([]string{"."}, func(abspath string, info fs.FileInfo, depth int) bool {
			return strings.HasSuffix(info.Name(), "_test.rego")
		})
	if err != nil {
		return nil, fmt.Errorf("engine: load policies: %w", err)
	}
	modules := res.ParsedModules()
	hint, err := ast.ParseModuleWithOpts(memoHintFile, memoHint, ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	modules[memoHintFile] = hint
	compiler := ast.NewCompiler().WithCapabilities(caps).WithStrict(true).WithEnablePrintStatements(false)
	if compiler.Compile(modules); compiler.Failed() {
		return nil, fmt.Errorf("engine: compile policies: %v", compiler.Errors)
	}
	store, err := res.Store()
	if err != nil {
		return nil, fmt.Errorf("engine: policy data: %w", err)
	}
	cp := &compiledPolicies{queries: map[string]rego.PreparedEvalQuery{}, data: res.Documents, modules: modules}
	entrypoints := []string{coreEntrypoint}
	for _, p := range packs {
		entrypoints = append(entrypoints, packEntrypoint(p))
	}
	for _, ep := range entrypoints {
		q, err := prepare(ctx, compiler, store, ep)
		if err != nil {
			return nil, err
		}
		cp.queries[ep] = q
	}
	return cp, nil
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

// packEntrypoint is the rule a pack's decisions come from.
func packEntrypoint(pack string) string {
	return "data.handoff." + pack + ".decision"
}
