package guide

import (
	"encoding/json"
	"fmt"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue"

	"github.com/handoff-dev/handoff/engine/internal/contract"
)

// TemplateOptions say which request a template is for. The zero value is a request of
// the kind with nothing more chosen.
type TemplateOptions struct {
	// Target, for a handoff, makes the skeleton of a handoff to this agent or role: its
	// source, task, output (with the artifact contract's content) and inputs.
	Target string
	// Source chooses the handoff's source when several agents hand work to Target.
	Source string
	// Output chooses the output type when the source hands several types to Target.
	Output string
}

// Template is a request skeleton walked from a pack's CUE request definition: every
// required field with a placeholder its constraint accepts, and the optional fields a
// request of the kind needs in practice (workflow_id, organization_id, trace_id, and a
// handoff's assumptions, limitations and confidence_score).
type Template struct {
	root *skel
	// enums are the values of each field whose constraint is an enumeration, by path
	// (dotted, from the request's top).
	enums map[string][]any
	// optional are the skeletons of the top-level optional fields left out.
	optional map[string]*skel
}

// Enums are the values of each field whose constraint is an enumeration, by dotted path
// from the request's top ("class", "actor.type", "output.content.channel").
// The map is the caller's: templates are shared.
func (t *Template) Enums() map[string][]any {
	out := make(map[string][]any, len(t.enums))
	for k, v := range t.enums {
		out[k] = slices.Clone(v)
	}
	return out
}

// optionalValue is the plain JSON value of the skeleton of a top-level optional field
// the template leaves out.
func (t *Template) optionalValue(field string) (any, bool) {
	sk, ok := t.optional[field]
	if !ok {
		return nil, false
	}
	var v any
	return v, json.Unmarshal([]byte(sk.render(false)), &v) == nil
}

// listOfText says whether the field at a top-level path is a list of strings.
func (t *Template) listOfText(path string) bool {
	for _, f := range t.root.fields {
		if f.name == path {
			_, text := f.val.elem().value.(string)
			return f.val.list && text
		}
	}
	return false
}

// elem is a list's item skeleton, or an empty one.
func (s *skel) elem() *skel {
	if len(s.elems) == 0 {
		return &skel{}
	}
	return s.elems[0]
}

// JSONC is the skeleton as JSON with // comment lines: each field's CUE doc comment
// and what the skeleton adds, the values of an enumeration, the optional fields left
// out, and one item of every list.
func (t *Template) JSONC() string { return t.root.render(true) }

// JSON is the skeleton as plain JSON: the JSONC without its comments, with the lists
// that may be empty left empty.
func (t *Template) JSON() []byte { return []byte(t.root.render(false)) }

// TemplateError says a template asks for a pack, request kind or agent the bundle does
// not have, or for options that do not go together. Name and Known, when set, are the
// name not found and the names there are.
type TemplateError struct {
	Msg   string
	Name  string
	Known []string
}

func (e *TemplateError) Error() string { return "engine: " + e.Msg }

// TemplateFor returns the skeleton of a request of kind for pack, walked once per pack,
// kind and options and kept in cc (a Template is read only). It fails with a
// *TemplateError for an unknown pack, kind or agent. TemplateFor is safe for concurrent
// use.
func TemplateFor(cc *contract.Contracts, pack, kind string, opts TemplateOptions) (*Template, error) {
	key := strings.Join([]string{pack, kind, opts.Target, opts.Source, opts.Output}, "\x00")
	if t, ok := cc.Templates.Load(key); ok {
		return t.(*Template), nil
	}
	t, err := walkTemplate(cc, pack, kind, opts)
	if err != nil {
		return nil, err
	}
	cc.Templates.Store(key, t)
	return t, nil
}

// walkTemplate walks the skeleton of a request of kind for pack.
func walkTemplate(cc *contract.Contracts, pack, kind string, opts TemplateOptions) (*Template, error) {
	names := cc.PackNames()
	if !slices.Contains(names, pack) {
		return nil, &TemplateError{Msg: fmt.Sprintf("no pack %q in the bundle", pack), Name: pack, Known: names}
	}
	pc, err := cc.Pack(pack)
	if err != nil {
		return nil, err
	}
	def, ok := pc.Requests[kind]
	if !ok {
		return nil, &TemplateError{Msg: fmt.Sprintf("pack %s has no request kind %q", pack, kind), Name: kind, Known: sortedNames(pc.Requests)}
	}
	var info packTables
	if err := decodeVia(pc.Tables, &info); err != nil {
		return nil, fmt.Errorf("engine: pack %s tables: %w", pack, err)
	}
	var cfg struct {
		RequiredInputs map[string][]string `json:"required_inputs"`
	}
	_ = decodeVia(pc.Config, &cfg) // without required_inputs, a handoff cites the approved types its source consumes
	var rules guardrailKinds
	_ = decodeVia(cc.Guardrails, &rules) // without the tables, no actor type is implied
	w := &walker{ctx: cc.CUE, set: map[string]any{}, note: map[string]string{}, enums: map[string][]any{},
		optional: map[string]*skel{}}
	w.set["kind"] = kind
	if kind == "start" {
		w.set["pack"] = pack
	} else {
		w.always = []string{"workflow_id"}
	}
	w.always = append(w.always, "organization_id", "trace_id")
	w.note["organization_id"] = "the workflow's organization: required when the workflow has one"
	switch kind {
	case "review":
		w.always = append(w.always, "report") // what a verdict rests on, where the pack asks for it
	case "approval":
		w.always = append(w.always, "stage")
		w.note["stage"] = "the stage 'handoffctl next' names; leave it out when it names none"
	}
	w.actor = actorOf(kind, &info, &rules)
	switch {
	case opts.Target != "":
		if kind != "handoff" {
			return nil, &TemplateError{Msg: fmt.Sprintf("a target makes a handoff's skeleton, not a %s's", kind)}
		}
		if err := w.handoffTo(&info, cfg.RequiredInputs, opts); err != nil {
			return nil, err
		}
		if a := pc.Artifacts[w.output]; a != nil {
			w.content = a.Def()
		}
	case opts.Source != "" || opts.Output != "":
		return nil, &TemplateError{Msg: "a source or an output type goes with a target"}
	}
	cc.Lock() // the CUE context is shared with the validators
	defer cc.Unlock()
	root := w.walk(def.Def(), "", "")
	return &Template{root: root, enums: w.enums, optional: w.optional}, nil
}

// guardrailKinds is what a template reads of the core tables: who may send which kind.
type guardrailKinds struct {
	HumanOnly      []string `json:"human_only_kinds"`
	AgentOnly      []string `json:"agent_only_kinds"`
	AgentForbidden []string `json:"agent_forbidden_kinds"`
}

// actorSkel is the actor a template gives a kind, and why.
type actorSkel struct {
	typ   string
	roles []string // the pack's roles that may send it, for a person
	note  string
}

// actorOf says who sends a request of kind: a person with a role for the kinds only
// people send (an approval by a role that approves, a resolution by one that resolves
// conflicts), an agent for the kinds only agents send and for a handoff, and the host
// (a system actor) for the rest: starts, failures, outcomes and cancels.
func actorOf(kind string, info *packTables, rules *guardrailKinds) actorSkel {
	switch {
	case slices.Contains(rules.HumanOnly, kind):
		var roles []string
		for _, name := range sortedNames(info.Roles) {
			r := info.Roles[name]
			if kind == "resolution" && r.ResolvesConflicts || kind != "resolution" && len(r.Approves) > 0 {
				roles = append(roles, name)
			}
		}
		return actorSkel{typ: "human", roles: roles,
			note: fmt.Sprintf("%s is a person's (guardrails human_only_kinds): type human, a person's id and a role of the pack", withArticle(kind))}
	case slices.Contains(rules.AgentOnly, kind), kind == "handoff":
		return actorSkel{typ: "agent", note: fmt.Sprintf("%s is an agent's: type agent and the agent's id", withArticle(kind))}
	default:
		note := fmt.Sprintf("%s is the host's: type system and the host's service id", withArticle(kind))
		if slices.Contains(rules.AgentForbidden, kind) {
			note += " (or a person's); never an agent's (guardrails agent_forbidden_kinds)"
		}
		return actorSkel{typ: "system", note: note}
	}
}

func withArticle(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// skel is one node of a request skeleton: an object, a list or a value.
type skel struct {
	fields   []skelField // an object's fields, in the definition's order
	optional []string    // an object's optional fields left out
	object   bool
	list     bool
	elems    []*skel
	// mayBeEmpty says the list may be empty: its item is shown with comments only.
	mayBeEmpty bool
	value      any // a scalar placeholder or constant
}

type skelField struct {
	name string
	doc  string // the CUE doc comment, and what the skeleton adds
	val  *skel
}

// render writes the skeleton as JSON, with // comment lines when comments is set.
func (s *skel) render(comments bool) string {
	var b strings.Builder
	s.write(&b, comments, "")
	b.WriteString("\n")
	return b.String()
}

func (s *skel) write(b *strings.Builder, comments bool, indent string) {
	in := indent + "  "
	switch {
	case s.object:
		if len(s.fields) == 0 && (!comments || len(s.optional) == 0) {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, f := range s.fields {
			if comments && f.doc != "" {
				for _, line := range strings.Split(strings.TrimSpace(f.doc), "\n") {
					fmt.Fprintf(b, "%s// %s\n", in, strings.TrimSpace(line))
				}
			}
			fmt.Fprintf(b, "%s%s: ", in, jsonText(f.name))
			f.val.write(b, comments, in)
			if i < len(s.fields)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		if comments && len(s.optional) > 0 {
			fmt.Fprintf(b, "%s// optional: %s\n", in, strings.Join(s.optional, ", "))
		}
		b.WriteString(indent + "}")
	case s.list:
		if len(s.elems) == 0 || s.mayBeEmpty && !comments {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range s.elems {
			b.WriteString(in)
			e.write(b, comments, in)
			if i < len(s.elems)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent + "]")
	default:
		b.WriteString(jsonText(s.value))
	}
}

// jsonText is v as JSON, with <, > and & as they are.
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// walker makes a skeleton of a CUE definition.
type walker struct {
	ctx *cue.Context
	// set are values the skeleton gives top-level fields; note the comment added to them.
	set  map[string]any
	note map[string]string
	// always are optional top-level fields the skeleton keeps.
	always []string
	actor  actorSkel
	// output and content are a handoff's output type and its content definition;
	// inputs its input artifact types.
	output   string
	content  cue.Value
	inputs   []string
	enums    map[string][]any
	optional map[string]*skel
}

// handoffTo sets what a handoff to opts.Target carries.
func (w *walker) handoffTo(info *packTables, required map[string][]string, opts TemplateOptions) error {
	target, source := opts.Target, opts.Source
	var sources []string
	for _, name := range sortedNames(info.Agents) {
		if slices.Contains(info.Agents[name].HandsTo, target) {
			sources = append(sources, name)
		}
	}
	if len(sources) == 0 {
		return &TemplateError{Msg: fmt.Sprintf("no agent hands work to %q", target), Name: target, Known: handTargets(info)}
	}
	switch {
	case source != "" && !slices.Contains(sources, source):
		return &TemplateError{Msg: fmt.Sprintf("%q does not hand work to %s (its sources: %s)", source, target, strings.Join(sources, ", "))}
	case source == "" && len(sources) > 1:
		return &TemplateError{Msg: fmt.Sprintf("several agents hand work to %s: %s; choose one with --source", target, strings.Join(sources, ", "))}
	case source == "":
		source = sources[0]
	}
	a := info.Agents[source]
	if len(a.Produces) == 0 {
		return &TemplateError{Msg: fmt.Sprintf("%s produces no artifact type", source)}
	}
	outs := info.edgeOutputs(source, target)
	if len(outs) == 0 {
		outs = a.Produces
	}
	switch {
	case opts.Output != "" && !slices.Contains(a.Produces, opts.Output):
		return &TemplateError{Msg: fmt.Sprintf("%s does not produce %q", source, opts.Output), Name: opts.Output, Known: a.Produces}
	case opts.Output != "":
		w.output = opts.Output
	default:
		w.output = outs[0]
	}
	w.set["source_agent"], w.set["target_agent"] = source, target
	w.note["source_agent"] = "the agent that hands work to " + target
	// A pack's envelope may restate the agents as sender and recipient.
	w.set["sender"], w.set["recipient"] = source, target
	if len(a.Tasks) > 0 {
		w.set["task_type"] = a.Tasks[len(a.Tasks)-1]
		if len(a.Tasks) > 1 {
			w.note["task_type"] = "one of " + source + "'s tasks: " + strings.Join(a.Tasks, ", ")
		}
	}
	if others := slices.DeleteFunc(slices.Clone(outs), func(t string) bool { return t == w.output }); len(others) > 0 {
		w.note["output"] = fmt.Sprintf("%s also hands %s to %s (--output TYPE)", source, strings.Join(others, ", "), target)
	}
	if req, ok := required[w.output]; ok {
		w.inputs = req
		w.note["input_artifacts"] = fmt.Sprintf("the inputs %s requires (required_inputs)", w.output)
	} else {
		for _, t := range a.Consumes {
			if info.Artifacts[t].RequiresApproval {
				w.inputs = append(w.inputs, t)
			}
		}
		w.note["input_artifacts"] = "the approved versions " + source + " works from"
	}
	// Every handoff with an output carries these (core MISSING_ASSUMPTIONS, ...), and
	// the context its target receives.
	w.always = append(w.always, "output", "assumptions", "limitations", "confidence_score", "context")
	w.note["limitations"] = "restate every limitation of the input versions ('handoffctl next' lists them)"
	return nil
}

// handTargets are the agents some agent hands work to.
func handTargets(info *packTables) []string {
	var out []string
	for _, a := range info.Agents {
		out = append(out, a.HandsTo...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// walk makes the skeleton of v, the value of field name at path.
func (w *walker) walk(v cue.Value, name, path string) *skel {
	switch path {
	case "output.content":
		if w.content.Exists() {
			return w.walk(w.content, name, "output.content.")
		}
	case "output.type":
		if w.output != "" {
			return &skel{value: w.output}
		}
	case "actor.type":
		if w.actor.typ != "" {
			return &skel{value: w.actor.typ}
		}
	case "actor.id":
		if src, ok := w.set["source_agent"]; ok {
			return &skel{value: src}
		}
	case "actor.roles":
		if len(w.actor.roles) > 0 {
			return &skel{list: true, elems: []*skel{{value: w.actor.roles[0]}}}
		}
	}
	if isArtifactRef(v) {
		typ := "TYPE"
		if path == "output" {
			typ = w.output
		}
		return &skel{value: "${ref:" + typ + "@latest}"}
	}
	if c, ok := w.constant(v); ok {
		return &skel{value: c}
	}
	switch v.IncompleteKind() {
	case cue.StructKind:
		return w.object(v, path)
	case cue.ListKind:
		s := &skel{list: true}
		if path == "input_artifacts" && w.output != "" {
			for _, t := range w.inputs {
				s.elems = append(s.elems, &skel{value: "${ref:" + t + "@latest}"})
			}
			return s
		}
		s.mayBeEmpty = w.valid(v, []any{})
		elem := v.LookupPath(cue.MakePath(cue.AnyIndex))
		s.elems = []*skel{w.walk(elem, name, path+"[]")}
		return s
	}
	return &skel{value: w.placeholder(v, name)}
}

// object makes the skeleton of a struct: its required and regular fields, and the
// optional ones the walker keeps.
func (w *walker) object(v cue.Value, path string) *skel {
	s := &skel{object: true}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return s
	}
	top := path == ""
	for it.Next() {
		name := it.Selector().Unquoted()
		full := name
		switch {
		case path == "output.content.":
			full = "output.content." + name
		case !top:
			full = path + "." + name
		}
		optional := it.Selector().ConstraintType() == cue.OptionalConstraint
		refStatus := isRefStatusList(it.Value())
		keep := top && slices.Contains(w.always, name) ||
			full == "actor.roles" && w.actor.typ == "human" ||
			path == "output" && w.output != "" && (name == "supersedes" || name == "justification") ||
			refStatus && w.output != ""
		if optional && !keep {
			s.optional = append(s.optional, name)
			if top {
				w.optional[name] = w.walk(it.Value(), name, full)
			}
			continue
		}
		f := skelField{name: name, doc: docOf(it.Value())}
		if c, ok := w.set[name]; ok && top {
			f.val = &skel{value: c}
		} else {
			f.val = w.walk(it.Value(), name, full)
		}
		if n := w.note[name]; n != "" && top {
			f.doc = strings.TrimSpace(f.doc + "\n" + n)
		}
		switch {
		case full == "actor.type" && w.actor.note != "":
			f.doc = strings.TrimSpace(f.doc + "\n" + w.actor.note)
		case full == "actor.roles" && len(w.actor.roles) > 1:
			f.doc = strings.TrimSpace(f.doc + "\none of the roles " + strings.Join(w.actor.roles, ", "))
		case path == "output" && name == "supersedes":
			f.doc = strings.TrimSpace(f.doc + "\nwith version 2 or more: the version before ('handoffctl next' names it); leave it and justification out of version 1")
		}
		if vals := enumValues(it.Value()); len(vals) > 1 && f.val.value != nil {
			w.enums[full] = vals
			f.doc = strings.TrimSpace(f.doc + "\none of " + enumText(vals))
		}
		switch {
		case refStatus:
			// It restates the versions the request cites: never left empty.
			f.val.mayBeEmpty = false
			f.doc = strings.TrimSpace(f.doc + "\none item per cited version, with the status 'handoffctl next' gives it")
		case f.val.list && f.val.mayBeEmpty && len(f.val.elems) > 0:
			f.doc = strings.TrimSpace(f.doc + "\none item is shown: the list may be empty")
		}
		s.fields = append(s.fields, f)
	}
	return s
}

// docOf is a value's CUE doc comment.
func docOf(v cue.Value) string {
	var parts []string
	for _, cg := range v.Doc() {
		parts = append(parts, strings.TrimSpace(cg.Text()))
	}
	return strings.Join(parts, "\n")
}

// enumValues are the values of a disjunction of constants, nil for any other value.
func enumValues(v cue.Value) []any {
	op, args := disjuncts(v)
	if op != cue.OrOp || len(args) < 2 {
		return nil
	}
	var vals []any
	for _, a := range args {
		if err := a.Validate(cue.Concrete(true)); err != nil {
			return nil
		}
		var x any
		if a.Decode(&x) != nil {
			return nil
		}
		vals = append(vals, x)
	}
	return vals
}

func enumText(vals []any) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = jsonText(v)
	}
	return strings.Join(out, ", ")
}

// disjuncts is v's expression, or that of the definition v refers to.
func disjuncts(v cue.Value) (cue.Op, []cue.Value) {
	op, args := v.Expr()
	if op == cue.SelectorOp {
		op, args = cue.Dereference(v).Expr()
	}
	return op, args
}

// constant is v's value when v is concrete or has a default, or the first value of a
// disjunction of constants.
func (w *walker) constant(v cue.Value) (any, bool) {
	if d, ok := v.Default(); ok {
		v = d
	}
	if v.IncompleteKind() == cue.StructKind || v.IncompleteKind() == cue.ListKind {
		return nil, false
	}
	var x any
	if v.Validate(cue.Concrete(true)) == nil && v.Decode(&x) == nil {
		return x, true
	}
	if op, args := disjuncts(v); op == cue.OrOp && len(args) > 0 {
		if args[0].Validate(cue.Concrete(true)) == nil && args[0].Decode(&x) == nil {
			return x, true
		}
	}
	return nil, false
}

// placeholder is the first candidate value v accepts: text named after the field, an
// id, an UPPER_SNAKE name, a time, a hash, a number or a bool.
func (w *walker) placeholder(v cue.Value, name string) any {
	candidates := []any{
		"<" + name + ">", name, strings.ToUpper(name), "2026-01-01T00:00:00Z",
		"sha256:" + strings.Repeat("0", 64), "x", "X", 1, 0, 0.5, 1.5, 100, false,
	}
	for _, c := range candidates {
		if w.valid(v, c) {
			return c
		}
	}
	for _, c := range exprCandidates(v, 0) {
		if w.valid(v, c) {
			return c
		}
	}
	return "<" + name + ">"
}

// exprCandidates are values read from v's expression: its constants, a sample of each
// pattern it must match, and null.
func exprCandidates(v cue.Value, depth int) []any {
	if depth > 8 {
		return nil
	}
	var out []any
	for _, re := range patterns(v) {
		if c, ok := sample(re); ok {
			out = append(out, c)
		}
	}
	var x any
	if v.Validate(cue.Concrete(true)) == nil && v.Decode(&x) == nil {
		out = append(out, x)
	}
	for _, e := range []cue.Value{v, cue.Dereference(v)} {
		if op, args := e.Expr(); op == cue.OrOp || op == cue.AndOp {
			for _, a := range args {
				out = append(out, exprCandidates(a, depth+1)...)
			}
		}
	}
	return append(out, nil)
}

// patterns are the regular expressions a string value must match (=~).
func patterns(v cue.Value) []string {
	var out []string
	for _, x := range []cue.Value{v, cue.Dereference(v)} {
		op, args := x.Expr()
		switch op {
		case cue.RegexMatchOp:
			for _, a := range args {
				if s, err := a.String(); err == nil {
					out = append(out, s)
				}
			}
		case cue.AndOp:
			for _, a := range args {
				out = append(out, patterns(a)...)
			}
		}
	}
	return out
}

// sample is a shortest string re matches, built from its syntax tree: the first
// character of every class, every repetition at its minimum, the first alternative.
func sample(re string) (string, bool) {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(t *syntax.Regexp) bool
	walk = func(t *syntax.Regexp) bool {
		switch t.Op {
		case syntax.OpLiteral:
			b.WriteString(string(t.Rune))
		case syntax.OpCharClass:
			if len(t.Rune) == 0 {
				return false
			}
			b.WriteRune(t.Rune[0])
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteString("x")
		case syntax.OpCapture:
			return walk(t.Sub[0])
		case syntax.OpConcat:
			for _, s := range t.Sub {
				if !walk(s) {
					return false
				}
			}
		case syntax.OpAlternate:
			return walk(t.Sub[0])
		case syntax.OpPlus:
			return walk(t.Sub[0])
		case syntax.OpRepeat:
			for range t.Min {
				if !walk(t.Sub[0]) {
					return false
				}
			}
		case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
			syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		default:
			return false
		}
		return true
	}
	ok := walk(t.Simplify())
	return b.String(), ok
}

// valid says whether x satisfies v.
func (w *walker) valid(v cue.Value, x any) bool {
	return v.Unify(w.ctx.Encode(x)).Validate(cue.Concrete(true)) == nil
}

// isRefStatusList says whether v is a list of versions with their status: items of
// exactly a ref (core.#ArtifactRef) and a status.
func isRefStatusList(v cue.Value) bool {
	if v.IncompleteKind() != cue.ListKind {
		return false
	}
	elem := v.LookupPath(cue.MakePath(cue.AnyIndex))
	if elem.IncompleteKind() != cue.StructKind {
		return false
	}
	var names []string
	ref := false
	it, err := elem.Fields(cue.Optional(true))
	if err != nil {
		return false
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		names = append(names, name)
		ref = ref || name == "ref" && isArtifactRef(it.Value())
	}
	sort.Strings(names)
	return ref && slices.Equal(names, []string{"ref", "status"})
}

// isArtifactRef says whether v is core.#ArtifactRef: a struct of id, type, version
// and hash.
func isArtifactRef(v cue.Value) bool {
	if v.IncompleteKind() != cue.StructKind {
		return false
	}
	var names []string
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return false
	}
	for it.Next() {
		names = append(names, it.Selector().Unquoted())
	}
	sort.Strings(names)
	return slices.Equal(names, []string{"hash", "id", "type", "version"})
}
