package contract

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"

	"github.com/handoff-dev/handoff/internal/canary"
)

// maxSchemaDepth bounds the nesting compileSchema follows; deeper is left to CUE.
const maxSchemaDepth = 48

// probeKey is a field name no contract declares: a struct that refuses it is closed.
const probeKey = "zz_handoff_closedness_probe"

// compileSchema compiles a CUE definition into a schema. Whatever it does not recognize
// becomes a fallback node, checked by CUE when a value reaches it: the compiled form
// never accepts what CUE refuses because of a construct it did not understand.
func compileSchema(v cue.Value, memo map[string]*schema) *schema {
	c := &compiler{memo: memo}
	return c.compileValue(v, 0)
}

// compiler compiles definitions, each named definition once: a reference to one is
// compiled on first sight and shared after (definitions are closed whatever refers to
// them, so their schema does not depend on the context).
type compiler struct {
	memo map[string]*schema // "import path:definition path" -> schema
}

// compileValue compiles v, from the memo when v is a reference to a definition.
func (c *compiler) compileValue(v cue.Value, depth int) *schema {
	root, path := v.ReferencePath()
	inst := root.BuildInstance()
	sels := path.Selectors()
	if !root.Exists() || inst == nil || len(sels) == 0 || !sels[len(sels)-1].IsDefinition() {
		return c.compileNew(v, depth)
	}
	key := inst.ImportPath + ":" + path.String()
	if s, ok := c.memo[key]; ok {
		return s
	}
	s := c.compileNew(v, depth)
	if !s.fallback {
		named := *s
		named.name, named.doc, named.key = strings.TrimPrefix(sels[len(sels)-1].String(), "#"), docOf(root.LookupPath(path)), key
		s = &named
	}
	c.memo[key] = s
	return s
}

// docOf is the doc comment of a value's declaration, as one text.
func docOf(v cue.Value) string {
	var parts []string
	for _, g := range v.Doc() {
		parts = append(parts, strings.TrimSpace(g.Text()))
	}
	return strings.Join(parts, "\n")
}

func fallbackSchema() *schema {
	return &schema{kinds: kAny, fallback: true, minRunes: -1, maxRunes: -1}
}

func newSchema(k jsonKinds) *schema { return &schema{kinds: k, minRunes: -1, maxRunes: -1} }

func (c *compiler) compileNew(v cue.Value, depth int) *schema {
	if depth > maxSchemaDepth || v.Err() != nil {
		return fallbackSchema()
	}
	kinds, ok := kindsOf(v.IncompleteKind())
	if !ok {
		return fallbackSchema()
	}
	// A disjunction: its alternatives as written, through a reference (references to
	// definitions keep their closedness), else as evaluated (a struct embedding one).
	op, alts := v.Expr()
	if root, path := v.ReferencePath(); op != cue.OrOp && root.Exists() {
		if d := root.LookupPath(path); d.Exists() {
			op, alts = d.Expr()
		}
	}
	if op == cue.OrOp {
		return c.compileDisjunction(alts, depth)
	}
	if kinds == kStruct {
		if op, alts := v.Eval().Expr(); op == cue.OrOp {
			// Evaluated alternatives do not tell they are closed; the disjunction does.
			d := c.compileDisjunction(alts, depth)
			if isClosed(v) && !canary.OpenDefinitions {
				for _, a := range d.anyOf {
					a.closed = a.closed || a.fields != nil
				}
			}
			return d
		}
	}
	switch {
	case kinds == kStruct:
		return c.compileStruct(v, depth)
	case kinds == kList:
		return c.compileList(v, depth)
	case kinds&(kStruct|kList) != 0 && !v.IsConcrete() && kinds != kAny:
		return fallbackSchema() // a struct or list mixed with scalars, not as a disjunction
	}
	if v.IsConcrete() {
		c, ok := constOf(v)
		if !ok {
			return fallbackSchema()
		}
		s := newSchema(kinds)
		s.consts = []any{c}
		return s
	}
	s := newSchema(kinds)
	if !c.addScalar(s, v, depth) {
		return fallbackSchema()
	}
	return s
}

// kindsOf maps a CUE kind to the JSON kinds it admits (bytes and functions have no JSON
// value); ok is false when it admits none, as for bottom.
func kindsOf(k cue.Kind) (jsonKinds, bool) {
	var out jsonKinds
	for _, m := range []struct {
		c cue.Kind
		j jsonKinds
	}{{cue.NullKind, kNull}, {cue.BoolKind, kBool}, {cue.IntKind, kInt}, {cue.FloatKind, kFloat}, {cue.StringKind, kString}, {cue.ListKind, kList}, {cue.StructKind, kStruct}} {
		if k&m.c != 0 {
			out |= m.j
		}
	}
	if out == 0 {
		return 0, false
	}
	return out, true
}

func (c *compiler) compileDisjunction(alts []cue.Value, depth int) *schema {
	s := newSchema(0)
	discriminated := true
	for _, a := range alts {
		as := c.compileValue(a, depth+1)
		if as.fallback {
			return fallbackSchema()
		}
		s.kinds |= as.kinds
		s.anyOf = append(s.anyOf, as)
		d := constFields(as)
		if len(d) == 0 {
			discriminated = false
		}
		s.discriminators = append(s.discriminators, d)
	}
	if !discriminated {
		s.discriminators = nil
	}
	return s
}

// constFields are a struct schema's required fields with one constant value.
func constFields(s *schema) map[string]any {
	out := map[string]any{}
	for name, f := range s.fields {
		if f.required && len(f.s.consts) == 1 && len(f.s.anyOf) == 0 {
			out[name] = f.s.consts[0]
		}
	}
	return out
}

func (c *compiler) compileStruct(v cue.Value, depth int) *schema {
	s := newSchema(kStruct)
	s.fields = map[string]*field{}
	s.closed = isClosed(v) && !canary.OpenDefinitions
	it, err := v.Fields(cue.Optional(true), cue.Patterns(true))
	if err != nil {
		return fallbackSchema()
	}
	for it.Next() {
		sel := it.Selector()
		switch sel.ConstraintType() {
		case cue.PatternConstraint:
			key := c.compileValue(sel.Pattern(), depth+1)
			if key.fallback {
				return fallbackSchema()
			}
			s.patterns = append(s.patterns, pattern{key: key, value: c.compileValue(it.Value(), depth+1)})
			continue
		case cue.OptionalConstraint:
		case cue.RequiredConstraint:
			s.required = append(s.required, sel.Unquoted())
		default:
			// A regular field must be given unless CUE can complete it alone (a
			// constant, a default, an empty list or struct).
			if it.Value().Validate(cue.Concrete(true)) != nil {
				s.required = append(s.required, sel.Unquoted())
			}
		}
		name := sel.Unquoted()
		s.fields[name] = &field{s: c.compileValue(it.Value(), depth+1), required: sel.ConstraintType() == cue.RequiredConstraint, doc: docOf(it.Value())}
	}
	for _, name := range s.required {
		s.fields[name].required = true
	}
	if !s.closed && len(s.patterns) == 0 && v.LookupPath(cue.MakePath(cue.AnyString)).Exists() {
		// An open struct with a constraint on every other field ("...T") is beyond the
		// compiled form unless the constraint is top.
		if other := c.compileValue(v.LookupPath(cue.MakePath(cue.AnyString)), depth+1); other.kinds != kAny || !other.isTop() {
			return fallbackSchema()
		}
	}
	return s
}

// isClosed says whether v refuses a field it does not declare. Value.Allows answers
// yes for a closed definition unified with an open struct ({...} & #A), so the probe
// field is unified in and CUE's own error is looked for.
func isClosed(v cue.Value) bool {
	err := v.Unify(v.Context().CompileString("{" + probeKey + ": _}")).Validate()
	for _, e := range cueerrors.Errors(err) {
		p := e.Path()
		format, args := e.Msg()
		if len(p) > 0 && p[len(p)-1] == probeKey && strings.Contains(fmt.Sprintf(format, args...), "not allowed") {
			return true
		}
	}
	return false
}

// isTop says whether a schema accepts every value.
func (s *schema) isTop() bool {
	return s.kinds == kAny && !s.fallback && len(s.consts) == 0 && len(s.bounds) == 0 && len(s.notEq) == 0 &&
		len(s.regex) == 0 && len(s.notRegex) == 0 && s.minRunes < 0 && s.maxRunes < 0 && len(s.anyOf) == 0 &&
		s.fields == nil && !s.list
}

// compileList reads a list's element schemas and its minimum length, the way CUE's
// JSON Schema generator does: [a, b, ...T] has a length of int & >=2.
func (c *compiler) compileList(v cue.Value, depth int) *schema {
	s := newSchema(kList)
	s.list = true
	rest := v.LookupPath(cue.MakePath(cue.AnyIndex))
	n, ok := int64(0), true
	if rest.Exists() {
		op, args := v.Len().Expr()
		if op != cue.AndOp || len(args) != 2 {
			return fallbackSchema()
		}
		op, args = args[1].Expr()
		if op != cue.GreaterThanEqualOp || len(args) != 1 {
			return fallbackSchema()
		}
		var err error
		if n, err = args[0].Int64(); err != nil {
			return fallbackSchema()
		}
	} else {
		var err error
		n, err = v.Len().Int64()
		ok = err == nil
	}
	if !ok || n > 1024 {
		return fallbackSchema()
	}
	for i := range n {
		e := v.LookupPath(cue.MakePath(cue.Index(i)))
		if !e.Exists() {
			return fallbackSchema()
		}
		s.prefix = append(s.prefix, c.compileValue(e, depth+1))
	}
	s.minLen = int(n)
	if rest.Exists() {
		s.rest = c.compileValue(rest, depth+1)
	}
	return s
}

// addScalar adds the constraints of a non-concrete scalar value to s: a conjunction of
// basic types, bounds, regular expressions and the string length builtins. ok is false
// on anything else.
func (c *compiler) addScalar(s *schema, v cue.Value, depth int) bool {
	if depth > maxSchemaDepth {
		return false
	}
	if root, path := v.ReferencePath(); root.Exists() {
		return c.addScalar(s, root.LookupPath(path), depth+1)
	}
	op, args := v.Expr()
	switch op {
	case cue.AndOp:
		for _, a := range args {
			k, ok := kindsOf(a.IncompleteKind())
			if !ok {
				return false
			}
			s.kinds &= k
			if !c.addScalar(s, a, depth+1) {
				return false
			}
		}
		return true
	case cue.OrOp:
		alt := c.compileDisjunction(args, depth+1)
		if alt.fallback || len(s.anyOf) > 0 {
			return false
		}
		s.anyOf = alt.anyOf
		s.discriminators = alt.discriminators
		return true
	case cue.NoOp:
		if v.IsConcrete() {
			c, ok := constOf(v)
			if !ok {
				return false
			}
			s.consts = append(s.consts, c)
			return len(s.consts) == 1 // two constants in one conjunction: leave it to CUE
		}
		// A basic type (int, string, number, _): its kind is the whole constraint. The
		// argument is the type without a default (bool for bool | *false).
		name := fmt.Sprint(v)
		if len(args) == 1 {
			name = fmt.Sprint(args[0])
		}
		switch name {
		case "_", "null", "bool", "int", "float", "number", "string":
			return true
		}
		return false
	case cue.GreaterThanEqualOp, cue.GreaterThanOp, cue.LessThanEqualOp, cue.LessThanOp:
		if len(args) != 1 || !args[0].IsConcrete() {
			return false
		}
		k := args[0].Kind()
		if k != cue.IntKind && k != cue.FloatKind {
			return false // string bounds: rare, left to CUE
		}
		r, ok := new(big.Rat).SetString(fmt.Sprint(args[0]))
		if !ok {
			return false
		}
		b := bound{op: map[cue.Op]string{cue.GreaterThanEqualOp: ">=", cue.GreaterThanOp: ">", cue.LessThanEqualOp: "<=", cue.LessThanOp: "<"}[op], rat: r}
		if r.IsInt() && r.Num().IsInt64() {
			b.i, b.isInt = r.Num().Int64(), true
		}
		s.bounds = append(s.bounds, b)
		return true
	case cue.NotEqualOp:
		if len(args) != 1 || !args[0].IsConcrete() {
			return false
		}
		c, ok := constOf(args[0])
		if !ok {
			return false
		}
		s.notEq = append(s.notEq, c)
		return true
	case cue.RegexMatchOp, cue.NotRegexMatchOp:
		if len(args) != 1 {
			return false
		}
		src, err := args[0].String()
		if err != nil {
			return false
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return false
		}
		if op == cue.RegexMatchOp {
			s.regex = append(s.regex, re)
		} else {
			s.notRegex = append(s.notRegex, re)
		}
		return true
	case cue.CallOp:
		if len(args) != 2 {
			return false
		}
		n, err := args[1].Int64()
		if err != nil || n < 0 {
			return false
		}
		switch fmt.Sprint(args[0]) {
		case "strings.MinRunes":
			s.minRunes = max(s.minRunes, int(n))
		case "strings.MaxRunes":
			if s.maxRunes < 0 || int(n) < s.maxRunes {
				s.maxRunes = int(n)
			}
		default:
			return false
		}
		return true
	}
	return false
}

// constOf returns a concrete scalar as the schema keeps constants.
func constOf(v cue.Value) (any, bool) {
	switch v.Kind() {
	case cue.NullKind:
		return nil, true
	case cue.BoolKind:
		b, err := v.Bool()
		return b, err == nil
	case cue.StringKind:
		s, err := v.String()
		return s, err == nil
	case cue.IntKind, cue.FloatKind:
		r, ok := new(big.Rat).SetString(fmt.Sprint(v))
		if !ok {
			return nil, false
		}
		k := kInt
		if v.Kind() == cue.FloatKind {
			k = kFloat
		}
		return numConst{rat: r, kind: k}, true
	}
	return nil, false
}
