package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"

	"github.com/handoff-dev/handoff/engine/internal/scan"
)

// packContract is one pack's compiled CUE: its request and artifact definitions and its
// tables, compiled once at Open.
type packContract struct {
	name      string
	requests  map[string]*validator // kind -> closed request definition
	artifacts map[string]*validator // artifact type -> closed content definition
	tables    map[string]any        // the exported pack value, fields filled in
	config    map[string]any        // the pack's optional config value, exported beside tables
	initial   string
	terminal  map[string]bool
	window    int
}

// compiledContracts is the whole CUE side of a bundle: the core package, compiled at
// once, and each pack's, compiled at once or on first use.
type compiledContracts struct {
	ctx        *cue.Context
	fsys       fs.FS
	core       cue.Value // the core package
	names      []string  // the pack directories, sorted
	slots      map[string]*packSlot
	guardrails any // the core tables
	scanner    *scan.Scanner
	result     *validator // core.#PolicyResult
	checker    *cueChecker
	templates  sync.Map // request skeletons by pack, kind and options (Decider.Template)
}

// packSlot is one pack's contracts, compiled once.
type packSlot struct {
	once sync.Once
	pc   *packContract
	err  error
}

// compileContracts loads the CUE module of a bundle: core and every pack directory.
// With lazy, a pack is compiled when first needed (pack): a process that decides for one
// pack builds only its CUE, and a pack that does not compile fails its own requests.
func compileContracts(fsys fs.FS, lazy bool) (*compiledContracts, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("engine: read contracts: %w", err)
	}
	ctx := cuecontext.New()
	cc := &compiledContracts{ctx: ctx, fsys: fsys, slots: map[string]*packSlot{}, checker: newCUEChecker(ctx)}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "cue.mod" && e.Name() != "core" {
			cc.names = append(cc.names, e.Name())
			cc.slots[e.Name()] = &packSlot{}
		}
	}
	sort.Strings(cc.names)
	v, err := cc.build("core")
	if err != nil {
		return nil, err
	}
	cc.core = v
	g := v.LookupPath(cue.ParsePath("guardrails"))
	if err := g.Validate(cue.Concrete(true)); err != nil {
		return nil, contractError("engine: core guardrails", err)
	}
	if err := g.Decode(&cc.guardrails); err != nil {
		return nil, fmt.Errorf("engine: core guardrails: %w", err)
	}
	if cc.scanner, err = scan.New(cc.guardrails); err != nil {
		return nil, err
	}
	result := v.LookupPath(cue.ParsePath("#PolicyResult"))
	if !result.Exists() {
		return nil, fmt.Errorf("engine: core contracts have no #PolicyResult")
	}
	cc.result = newValidator(result, cc.checker)
	if !lazy {
		for _, name := range cc.names {
			if _, err := cc.pack(name); err != nil {
				return nil, err
			}
		}
	}
	return cc, nil
}

// build loads and builds one directory of the module. The caller holds the checker's
// lock or is the only user of the context.
func (cc *compiledContracts) build(dir string) (cue.Value, error) {
	inst := load.Instances([]string{"./" + dir}, &load.Config{FS: cc.fsys, Dir: "/"})[0]
	if inst.Err != nil {
		return cue.Value{}, contractError("engine: load "+contractsDir+"/"+dir, inst.Err)
	}
	v := cc.ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cue.Value{}, contractError("engine: compile "+contractsDir+"/"+dir, err)
	}
	return v, nil
}

// pack returns a pack's compiled contracts, compiling them on first use. A name the
// bundle has no directory for returns nil and no error.
func (cc *compiledContracts) pack(name string) (*packContract, error) {
	s, ok := cc.slots[name]
	if !ok {
		return nil, nil
	}
	s.once.Do(func() {
		// The context is shared with the validators' CUE fallback.
		cc.checker.mu.Lock()
		defer cc.checker.mu.Unlock()
		s.pc, s.err = cc.compilePackDir(name)
	})
	return s.pc, s.err
}

func (cc *compiledContracts) compilePackDir(dir string) (*packContract, error) {
	v, err := cc.build(dir)
	if err != nil {
		return nil, err
	}
	pc, err := compilePack(v, cc.checker)
	if err != nil {
		return nil, fmt.Errorf("engine: pack %s: %w", dir, err)
	}
	if pc.name != dir {
		return nil, fmt.Errorf("engine: pack in directory %s is named %q: the directory and pack.name must agree", dir, pc.name)
	}
	return pc, nil
}

// packNames are the bundle's packs, sorted.
func (cc *compiledContracts) packNames() []string { return cc.names }

// compilePack reads one pack instance and compiles its request and content definitions.
func compilePack(v cue.Value, checker *cueChecker) (*packContract, error) {
	packRequests := v.LookupPath(cue.ParsePath("#Requests"))
	p := v.LookupPath(cue.ParsePath("pack"))
	if !p.Exists() {
		return nil, fmt.Errorf("no value named pack")
	}
	if err := p.Validate(cue.Concrete(true)); err != nil {
		return nil, contractError("pack tables", err)
	}
	pc := &packContract{requests: map[string]*validator{}, artifacts: map[string]*validator{}, terminal: map[string]bool{}}
	var tables map[string]any
	if err := p.Decode(&tables); err != nil {
		return nil, err
	}
	pc.tables = tables
	if c := v.LookupPath(cue.ParsePath("config")); c.Exists() {
		if err := c.Validate(cue.Concrete(true)); err != nil {
			return nil, contractError("pack config", err)
		}
		if err := c.Decode(&pc.config); err != nil {
			return nil, fmt.Errorf("pack config: %w", err)
		}
	}
	var head struct {
		Name     string `json:"name"`
		Workflow struct {
			Initial     string   `json:"initial"`
			Statuses    []string `json:"statuses"`
			Terminal    []string `json:"terminal"`
			Transitions []struct {
				From string `json:"from"`
				To   string `json:"to"`
			} `json:"transitions"`
		} `json:"workflow"`
		Limits struct {
			LoopWindow int `json:"loop_window"`
		} `json:"limits"`
	}
	if err := p.Decode(&head); err != nil {
		return nil, err
	}
	pc.name, pc.initial, pc.window = head.Name, head.Workflow.Initial, head.Limits.LoopWindow
	for _, t := range head.Workflow.Terminal {
		pc.terminal[t] = true
	}
	if err := checkStateMachine(head.Workflow.Statuses, head.Workflow.Terminal, head.Workflow.Initial, head.Workflow.Transitions); err != nil {
		return nil, packError(p, pc.name, err, "workflow.transitions", "workflow.statuses", "workflow")
	}
	if !packRequests.Exists() {
		return nil, fmt.Errorf("no #Requests definition (write #Requests: core.#Requests)")
	}
	it, err := packRequests.Fields(cue.Definitions(false))
	if err != nil {
		return nil, err
	}
	for it.Next() {
		pc.requests[it.Selector().Unquoted()] = newValidator(it.Value(), checker)
	}
	arts := v.LookupPath(cue.ParsePath("#Artifacts"))
	fields := map[string]any{}
	if arts.Exists() {
		it, err := arts.Fields()
		if err != nil {
			return nil, err
		}
		for it.Next() {
			name := it.Selector().Unquoted()
			pc.artifacts[name] = newValidator(it.Value(), checker)
			fields[name] = artifactFields(it.Value())
		}
	}
	if contracts, ok := tables["artifacts"].(map[string]any); ok {
		for name, c := range contracts {
			if _, ok := pc.artifacts[name]; !ok {
				return nil, fmt.Errorf("artifact %s has a contract but no #Artifacts.%s content definition", name, name)
			}
			if m, ok := c.(map[string]any); ok {
				m["fields"] = fields[name]
			}
		}
	}
	return pc, nil
}

// artifactFields lists a content definition's top-level fields and whether each is required.
func artifactFields(def cue.Value) map[string]any {
	out := map[string]any{}
	it, err := def.Fields(cue.Optional(true))
	if err != nil {
		return out
	}
	for it.Next() {
		out[it.Selector().Unquoted()] = map[string]any{"required": it.Selector().ConstraintType() == cue.RequiredConstraint}
	}
	return out
}

// checkStateMachine refuses a state machine with unknown statuses or a non-terminal
// status without an exit: every workflow must be able to finish.
func checkStateMachine(statuses, terminal []string, initial string, transitions []struct {
	From string `json:"from"`
	To   string `json:"to"`
}) error {
	known := map[string]bool{}
	for _, s := range statuses {
		known[s] = true
	}
	if !known[initial] {
		return fmt.Errorf("state machine: initial status %s is not a status", initial)
	}
	exits := map[string]bool{}
	for _, t := range transitions {
		if !known[t.From] || !known[t.To] {
			return fmt.Errorf("state machine: transition %s -> %s names an unknown status", t.From, t.To)
		}
		exits[t.From] = true
	}
	isTerminal := map[string]bool{}
	for _, s := range terminal {
		if !known[s] {
			return fmt.Errorf("state machine: terminal status %s is not a status", s)
		}
		isTerminal[s] = true
	}
	for _, s := range statuses {
		if !isTerminal[s] && !exits[s] {
			return fmt.Errorf("state machine: status %s is not terminal and has no exit", s)
		}
	}
	return nil
}

// contractsDir is the CUE module's directory in a bundle laid out as the repository is.
const contractsDir = "contracts"

// contractsFile names a file of the CUE module (loaded from its root, "/") under
// contractsDir.
func contractsFile(name string) string {
	if rest, ok := strings.CutPrefix(name, "/"); ok {
		return contractsDir + "/" + rest
	}
	return name
}

// packError places an error about a pack at the first of the fields that its own
// files define (rather than core's schema), or at its directory.
func packError(p cue.Value, pack string, err error, fields ...string) error {
	for _, f := range fields {
		v := p.LookupPath(cue.ParsePath(f))
		// A field of a pack is its value unified with core's schema: look at each part.
		vs := []cue.Value{v}
		if op, parts := v.Expr(); op == cue.AndOp {
			vs = append(vs, parts...)
		}
		for _, x := range vs {
			if pos := x.Pos().Position(); strings.HasPrefix(pos.Filename, "/"+pack+"/") {
				return &PositionError{File: contractsFile(pos.Filename), Line: pos.Line, Err: err}
			}
		}
	}
	return &PositionError{File: contractsDir + "/" + pack + "/", Err: err}
}

// cueErr formats every CUE error with its positions, the files named under contractsDir.
func cueErr(err error) string {
	return cueerrors.Details(err, &cueerrors.Config{Format: func(w io.Writer, format string, args ...any) {
		// Print writes each position as "    %s" with the file name, then its line.
		if format == "    %s" && len(args) == 1 {
			if name, ok := args[0].(string); ok {
				args[0] = contractsFile(name)
			}
		}
		fmt.Fprintf(w, format, args...)
	}})
}

// ContractError is a CUE contract that does not load, compile or validate: its message
// is every CUE error with its positions, and Errs the same errors one by one, each at
// its first position.
type ContractError struct {
	msg  string
	Errs []*PositionError
}

func (e *ContractError) Error() string { return e.msg }

func contractError(prefix string, err error) *ContractError {
	ce := &ContractError{msg: prefix + ": " + cueErr(err)}
	for _, e := range cueerrors.Errors(err) {
		pe := &PositionError{File: contractsDir, Err: errors.New(cueerrors.String(e))}
		if ps := cueerrors.Positions(e); len(ps) > 0 {
			pos := ps[0].Position()
			pe.File, pe.Line = contractsFile(pos.Filename), pos.Line
		}
		ce.Errs = append(ce.Errs, pe)
	}
	return ce
}

// PositionError is an error at a place in a bundle: File is named as in a bundle laid
// out as the repository is (contracts/..., policies/...).
type PositionError struct {
	File string
	Line int
	Err  error
}

func (e *PositionError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *PositionError) Unwrap() error { return e.Err }

// tablesJSON is the canonical committed form of an exported table: sorted keys, two-space
// indent, trailing newline.
func tablesJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
