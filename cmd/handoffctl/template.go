package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"
)

var templateCmd = &command{
	name:  "template",
	args:  "PACK KIND [--target AGENT] [--source AGENT]",
	short: "print a request skeleton from the pack's CUE contract",
	long: `Template prints a skeleton of a request of kind KIND for pack PACK, walked from the
pack's CUE request definition (#Requests.KIND): every required field with its CUE doc
comment above it and a placeholder value that satisfies the field's constraint (an id
named after the field, "<text>" for free text, the first value of an enumeration, whose
other values the comment lists), workflow_id and trace_id, and a comment that lists the
optional fields left out. Artifact references are "${ref:TYPE@latest}": submit, eval
and validate resolve each to the {id, type, version, hash} of the latest recorded version
of the request's workflow (write ${ref:TYPE@N} to cite another; 'handoffctl next' lists
the versions to cite).

The text form is JSON with // comment lines (JSONC). With -o json: one JSON document,
the same skeleton without comments, which 'handoffctl validate' accepts once, for a
kind other than start, workflow_id names a recorded workflow of the pack (its
${ref:...} placeholders are resolved against it).

For a handoff, --target AGENT makes the skeleton of a handoff to AGENT: source_agent is
the agent that hands to it (--source AGENT chooses when several do), task_type its
task, output the artifact type the source produces for AGENT's edge (its context
package) with the artifact contract's content, and input_artifacts the types that
output requires (the pack's required_inputs, else the approved types the source
consumes). An unknown PACK, KIND or AGENT is a usage error that lists the closest names.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		target := fs.String("target", "", "a handoff to `AGENT`: its source, output and inputs")
		source := fs.String("source", "", "with --target, the handoff's source `AGENT` when several hand to the target")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) != 2 {
				return usagef("template takes a PACK and a request KIND")
			}
			b, err := c.loadBundle()
			if err != nil {
				return err
			}
			sk, err := requestSkeleton(b.Contracts, args[0], args[1], *target, *source)
			if err != nil {
				return err
			}
			if c.json() {
				_, err := io.WriteString(c.stdout, sk.render(false, ""))
				return err
			}
			_, err = io.WriteString(c.stdout, sk.render(true, ""))
			return err
		}
	},
}

// skel is one node of a request skeleton: an object, a list or a value.
type skel struct {
	fields   []skelField // an object's fields, in the definition's order
	optional []string    // an object's optional fields left out
	object   bool
	list     bool
	elems    []*skel
	value    any // a scalar placeholder or constant
}

type skelField struct {
	name string
	doc  string // the CUE doc comment, and what the skeleton adds
	val  *skel
}

// render writes the skeleton as JSON, with // comment lines when comments is set.
func (s *skel) render(comments bool, indent string) string {
	var b strings.Builder
	s.write(&b, comments, indent)
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
		if len(s.elems) == 0 {
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

// packInfo is what template reads of a pack's tables.
type packInfo struct {
	Agents map[string]struct {
		Tasks    []string `json:"tasks"`
		Produces []string `json:"produces"`
		Consumes []string `json:"consumes"`
		HandsTo  []string `json:"hands_to"`
	} `json:"agents"`
	Artifacts map[string]struct {
		RequiresApproval bool `json:"requires_approval"`
	} `json:"artifacts"`
	Context map[string]struct {
		From string `json:"from"`
	} `json:"context"`
}

// requestSkeleton walks the pack's request definition of kind.
func requestSkeleton(contracts fs.FS, pack, kind, target, source string) (*skel, error) {
	packs, err := contractPacks(contracts)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(packs, pack) {
		return nil, usagef("no pack %q in the bundle%s", pack, nearestNames(pack, packs))
	}
	ctx := cuecontext.New()
	inst := load.Instances([]string{"./" + pack}, &load.Config{FS: contracts, Dir: "/"})[0]
	if inst.Err != nil {
		return nil, fmt.Errorf("load contracts ./%s: %s", pack, cueerrors.Details(inst.Err, nil))
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("compile contracts ./%s: %s", pack, cueerrors.Details(err, nil))
	}
	reqs := v.LookupPath(cue.MakePath(cue.Def("Requests")))
	var kinds []string
	it, err := reqs.Fields()
	if err != nil {
		return nil, fmt.Errorf("pack %s: #Requests: %w", pack, err)
	}
	for it.Next() {
		kinds = append(kinds, it.Selector().Unquoted())
	}
	if !slices.Contains(kinds, kind) {
		return nil, usagef("pack %s has no request kind %q%s", pack, kind, nearestNames(kind, kinds))
	}
	var info packInfo
	if err := v.LookupPath(cue.ParsePath("pack")).Decode(&info); err != nil {
		return nil, fmt.Errorf("pack %s tables: %w", pack, err)
	}
	var required map[string][]string
	if r := v.LookupPath(cue.ParsePath("config.required_inputs")); r.Exists() {
		_ = r.Decode(&required) // without it, a handoff cites the approved types its source consumes
	}
	w := &walker{ctx: ctx, set: map[string]any{}, note: map[string]string{}}
	if kind != "start" {
		w.always = []string{"workflow_id"}
	}
	w.always = append(w.always, "trace_id")
	w.set["kind"] = kind
	if kind == "start" {
		w.set["pack"] = pack
	}
	if target != "" {
		if kind != "handoff" {
			return nil, usagef("--target makes a handoff's skeleton, not a %s's", kind)
		}
		if err := w.handoffTo(&info, required, target, source); err != nil {
			return nil, err
		}
		w.content = v.LookupPath(cue.MakePath(cue.Def("Artifacts"), cue.Str(w.output)))
	} else if source != "" {
		return nil, usagef("--source goes with --target")
	}
	return w.walk(reqs.LookupPath(cue.MakePath(cue.Str(kind))), "", ""), nil
}

// contractPacks lists the pack directories of a contracts module.
func contractPacks(contracts fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(contracts, ".")
	if err != nil {
		return nil, fmt.Errorf("read contracts: %w", err)
	}
	var packs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "cue.mod" && e.Name() != "core" {
			packs = append(packs, e.Name())
		}
	}
	return packs, nil
}

// walker makes a skeleton of a CUE definition.
type walker struct {
	ctx *cue.Context
	// set are values the skeleton gives top-level fields; note the comment added to them.
	set  map[string]any
	note map[string]string
	// always are optional top-level fields the skeleton keeps.
	always []string
	// output and content are a handoff's output type and its content definition;
	// inputs its input artifact types.
	output  string
	content cue.Value
	inputs  []string
}

// handoffTo sets what a handoff to target carries.
func (w *walker) handoffTo(info *packInfo, required map[string][]string, target, source string) error {
	var sources []string
	for _, name := range sortedKeys(info.Agents) {
		if slices.Contains(info.Agents[name].HandsTo, target) {
			sources = append(sources, name)
		}
	}
	if len(sources) == 0 {
		return usagef("no agent hands work to %q%s", target, nearestNames(target, handTargets(info)))
	}
	switch {
	case source != "" && !slices.Contains(sources, source):
		return usagef("%q does not hand work to %s (its sources: %s)", source, target, strings.Join(sources, ", "))
	case source == "" && len(sources) > 1:
		return usagef("several agents hand work to %s: %s; choose one with --source", target, strings.Join(sources, ", "))
	case source == "":
		source = sources[0]
	}
	a := info.Agents[source]
	if len(a.Produces) == 0 {
		return usagef("%s produces no artifact type", source)
	}
	var outs []string // the types of source's context packages for target
	for _, k := range sortedKeys(info.Context) {
		edge := source + ">" + target
		if (k == edge || strings.HasPrefix(k, edge+"/") || strings.HasPrefix(k, edge+":")) && slices.Contains(a.Produces, info.Context[k].From) {
			outs = append(outs, info.Context[k].From)
		}
	}
	if len(outs) == 0 {
		outs = a.Produces
	}
	sort.SliceStable(outs, func(i, j int) bool {
		return slices.Index(a.Produces, outs[i]) < slices.Index(a.Produces, outs[j])
	})
	outs = slices.Compact(outs)
	w.output = outs[0]
	w.set["source_agent"], w.set["target_agent"] = source, target
	w.note["source_agent"] = "the agent that hands work to " + target
	if len(a.Tasks) > 0 {
		w.set["task_type"] = a.Tasks[len(a.Tasks)-1]
		if len(a.Tasks) > 1 {
			w.note["task_type"] = "one of " + source + "'s tasks: " + strings.Join(a.Tasks, ", ")
		}
	}
	if len(outs) > 1 {
		w.note["output"] = fmt.Sprintf("%s also hands %s to %s", source, strings.Join(outs[1:], ", "), target)
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
	w.always = append(w.always, "output")
	return nil
}

// handTargets are the agents some agent hands work to.
func handTargets(info *packInfo) []string {
	var out []string
	for _, a := range info.Agents {
		out = append(out, a.HandsTo...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// walk makes the skeleton of v, the value of field name at path.
func (w *walker) walk(v cue.Value, name, path string) *skel {
	if path == "output.content" && w.content.Exists() {
		return w.walk(w.content, name, "output.content.")
	}
	if path == "output.type" && w.output != "" {
		return &skel{value: w.output}
	}
	if path == "actor.id" && w.set["source_agent"] != nil {
		return &skel{value: w.set["source_agent"]}
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
		if path == "input_artifacts" {
			for _, t := range w.inputs {
				s.elems = append(s.elems, &skel{value: "${ref:" + t + "@latest}"})
			}
			return s
		}
		if w.valid(v, []any{}) {
			return s
		}
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
	for it.Next() {
		name := it.Selector().Unquoted()
		full := name
		if path != "" && path != "output.content." {
			full = path + "." + name
		} else if path == "output.content." {
			full = "output.content." + name
		}
		optional := it.Selector().ConstraintType() == cue.OptionalConstraint
		if optional && !(path == "" && slices.Contains(w.always, name)) {
			s.optional = append(s.optional, name)
			continue
		}
		f := skelField{name: name, doc: docOf(it.Value())}
		if c, ok := w.set[name]; ok && path == "" {
			f.val = &skel{value: c}
		} else {
			f.val = w.walk(it.Value(), name, full)
		}
		if n := w.note[name]; n != "" && path == "" {
			f.doc = strings.TrimSpace(f.doc + "\n" + n)
		}
		if o := enumDoc(it.Value()); o != "" && f.val.value != nil {
			f.doc = strings.TrimSpace(f.doc + "\n" + o)
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

// enumDoc lists the values of a disjunction of constants.
func enumDoc(v cue.Value) string {
	op, args := disjuncts(v)
	if op != cue.OrOp || len(args) < 2 {
		return ""
	}
	var vals []string
	for _, a := range args {
		if err := a.Validate(cue.Concrete(true)); err != nil {
			return ""
		}
		var x any
		if a.Decode(&x) != nil {
			return ""
		}
		vals = append(vals, jsonText(x))
	}
	return "one of " + strings.Join(vals, ", ")
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

// nearestNames lists the three names nearest to name, for a usage error.
func nearestNames(name string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	sorted := slices.Clone(names)
	sort.SliceStable(sorted, func(i, j int) bool {
		return editDistance(name, sorted[i]) < editDistance(name, sorted[j])
	})
	if len(sorted) > 3 {
		sorted = sorted[:3]
	}
	return "; closest: " + strings.Join(sorted, ", ")
}
