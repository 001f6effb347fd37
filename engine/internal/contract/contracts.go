package contract

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

// Pack is one pack's compiled CUE: its request and artifact definitions and its
// tables, compiled once at Open.
type Pack struct {
	Name      string
	Requests  map[string]*Validator // kind -> closed request definition
	Artifacts map[string]*Validator // artifact type -> closed content definition
	Tables    map[string]any        // the exported pack value, fields filled in
	Config    map[string]any        // the pack's optional config value, exported beside tables
	Initial   string
	Terminal  map[string]bool
	Window    int
}

// Contracts is the whole CUE side of a bundle: the core package, compiled at
// once, and each pack's, compiled at once or on first use.
type Contracts struct {
	// CUE is the context every value was built in. It is not safe for concurrent use:
	// hold Lock while using it once Compile returned.
	CUE        *cue.Context
	fsys       fs.FS
	core       cue.Value // the core package
	names      []string  // the pack directories, sorted
	slots      map[string]*packSlot
	Guardrails any // the core tables
	Scanner    *scan.Scanner
	Result     *Validator // core.#PolicyResult
	checker    *Checker
	Templates  sync.Map // request skeletons by pack, kind and options (guide.TemplateFor)
	Decoded    sync.Map // a pack's tables as guide reads them, by pack name (guide.Acting)
}

// packSlot is one pack's contracts, compiled once.
type packSlot struct {
	once sync.Once
	pc   *Pack
	err  error
}

// Compile loads the CUE module of a bundle: core and every pack directory.
// With lazy, a pack is compiled when first needed (Pack): a process that decides for one
// pack builds only its CUE, and a pack that does not compile fails its own requests.
func Compile(fsys fs.FS, lazy bool) (*Contracts, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("engine: read contracts: %w", err)
	}
	ctx := cuecontext.New()
	cc := &Contracts{CUE: ctx, fsys: fsys, slots: map[string]*packSlot{}, checker: NewChecker(ctx)}
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
		return nil, NewContractError("engine: core guardrails", err)
	}
	if err := g.Decode(&cc.Guardrails); err != nil {
		return nil, fmt.Errorf("engine: core guardrails: %w", err)
	}
	if cc.Scanner, err = scan.New(cc.Guardrails); err != nil {
		return nil, err
	}
	if !lazy {
		// A bundle whose secret rules cannot be built fails its load. With lazy
		// compilation they are built beside the rest, and text the scanner cannot
		// clear is held as a secret.
		if err := cc.Scanner.Ready(); err != nil {
			return nil, err
		}
	}
	result := v.LookupPath(cue.ParsePath("#PolicyResult"))
	if !result.Exists() {
		return nil, fmt.Errorf("engine: core contracts have no #PolicyResult")
	}
	cc.Result = NewValidator(result, cc.checker)
	if !lazy {
		for _, name := range cc.names {
			if _, err := cc.Pack(name); err != nil {
				return nil, err
			}
		}
	}
	return cc, nil
}

// build loads and builds one directory of the module. The caller holds the checker's
// lock or is the only user of the context.
func (cc *Contracts) build(dir string) (cue.Value, error) {
	inst := load.Instances([]string{"./" + dir}, &load.Config{FS: cc.fsys, Dir: "/"})[0]
	if inst.Err != nil {
		return cue.Value{}, NewContractError("engine: load "+contractsDir+"/"+dir, inst.Err)
	}
	v := cc.CUE.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cue.Value{}, NewContractError("engine: compile "+contractsDir+"/"+dir, err)
	}
	return v, nil
}

// Pack returns a pack's compiled contracts, compiling them on first use. A name the
// bundle has no directory for returns nil and no error.
func (cc *Contracts) Pack(name string) (*Pack, error) {
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

func (cc *Contracts) compilePackDir(dir string) (*Pack, error) {
	v, err := cc.build(dir)
	if err != nil {
		return nil, err
	}
	pc, err := compilePack(v, cc.checker)
	if err != nil {
		return nil, fmt.Errorf("engine: pack %s: %w", dir, err)
	}
	if pc.Name != dir {
		return nil, fmt.Errorf("engine: pack in directory %s is named %q: the directory and pack.name must agree", dir, pc.Name)
	}
	return pc, nil
}

// PackNames are the bundle's packs, sorted.
func (cc *Contracts) PackNames() []string { return cc.names }

// HasPack says the bundle has a directory for the pack.
func (cc *Contracts) HasPack(name string) bool {
	_, ok := cc.slots[name]
	return ok
}

// Lock and Unlock serialize the use of the CUE context, which the validators share.
func (cc *Contracts) Lock()   { cc.checker.mu.Lock() }
func (cc *Contracts) Unlock() { cc.checker.mu.Unlock() }

// compilePack reads one pack instance and compiles its request and content definitions.
func compilePack(v cue.Value, checker *Checker) (*Pack, error) {
	packRequests := v.LookupPath(cue.ParsePath("#Requests"))
	p := v.LookupPath(cue.ParsePath("pack"))
	if !p.Exists() {
		return nil, fmt.Errorf("no value named pack")
	}
	if err := p.Validate(cue.Concrete(true)); err != nil {
		return nil, NewContractError("pack tables", err)
	}
	pc := &Pack{Requests: map[string]*Validator{}, Artifacts: map[string]*Validator{}, Terminal: map[string]bool{}}
	var tables map[string]any
	if err := p.Decode(&tables); err != nil {
		return nil, err
	}
	pc.Tables = tables
	if c := v.LookupPath(cue.ParsePath("config")); c.Exists() {
		if err := c.Validate(cue.Concrete(true)); err != nil {
			return nil, NewContractError("pack config", err)
		}
		if err := c.Decode(&pc.Config); err != nil {
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
	pc.Name, pc.Initial, pc.Window = head.Name, head.Workflow.Initial, head.Limits.LoopWindow
	for _, t := range head.Workflow.Terminal {
		pc.Terminal[t] = true
	}
	if err := checkStateMachine(head.Workflow.Statuses, head.Workflow.Terminal, head.Workflow.Initial, head.Workflow.Transitions); err != nil {
		return nil, packError(p, pc.Name, err, "workflow.transitions", "workflow.statuses", "workflow")
	}
	if !packRequests.Exists() {
		return nil, fmt.Errorf("no #Requests definition (write #Requests: core.#Requests)")
	}
	it, err := packRequests.Fields(cue.Definitions(false))
	if err != nil {
		return nil, err
	}
	for it.Next() {
		pc.Requests[it.Selector().Unquoted()] = NewValidator(it.Value(), checker)
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
			pc.Artifacts[name] = NewValidator(it.Value(), checker)
			fields[name] = artifactFields(it.Value())
		}
	}
	if contracts, ok := tables["artifacts"].(map[string]any); ok {
		for name, c := range contracts {
			if _, ok := pc.Artifacts[name]; !ok {
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

func NewContractError(prefix string, err error) *ContractError {
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

// TablesJSON is the canonical committed form of an exported table: sorted keys, two-space
// indent, trailing newline.
func TablesJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// CoreValidator returns a validator of a core definition ("#State") and the
// definition's key, as the JSON Schemas of the contracts name it; false when core has
// none.
func (cc *Contracts) CoreValidator(def string) (v *Validator, key string, ok bool) {
	d := cc.core.LookupPath(cue.ParsePath(def))
	if !d.Exists() {
		return nil, "", false
	}
	return NewValidator(d, cc.checker), definitionKey(cc.core.BuildInstance().ImportPath, def), true
}
