package engine

import (
	"fmt"
	"sort"
	"strconv"

	"cuelang.org/go/cue"
)

// shape is a CUE definition with the answers walkFields needs, looked up once: the
// definition's declared fields and their shapes, its required fields, its pattern
// constraint and its list elements. Lookups in a CUE value cost microseconds each and a
// request has dozens of fields, so the engine keeps one shape tree per definition. A
// shape grows only with the fields its definition declares; keys a request makes up
// are answered from the definition each time. Like the cue.Context it comes from, a
// shape is not safe for concurrent use.
type shape struct {
	def      cue.Value
	kind     cue.Kind
	declared map[string]bool   // regular, optional and required fields
	required []string          // in definition order
	fields   map[string]*shape // declared field -> its shape (nil: no definition to recurse into)
	pattern  *shape            // the shape of keys allowed by a pattern (nil: none)
	patDone  bool
	elems    map[int]*shape // list element -> its shape (nil: none)
}

// maxShapeIndex bounds the list positions a shape remembers.
const maxShapeIndex = 256

func newShape(def cue.Value) *shape {
	s := &shape{def: def, kind: def.IncompleteKind(), declared: map[string]bool{}, fields: map[string]*shape{}, elems: map[int]*shape{}}
	if s.kind&cue.StructKind != 0 {
		if it, err := def.Fields(cue.Optional(true)); err == nil {
			for it.Next() {
				sel := it.Selector()
				name := sel.Unquoted()
				s.declared[name] = true
				if sel.ConstraintType() == cue.RequiredConstraint {
					s.required = append(s.required, name)
				}
			}
		}
	}
	return s
}

func shapeOf(v cue.Value) *shape {
	if !v.Exists() {
		return nil
	}
	return newShape(v)
}

// field returns the shape of field k; known is false when the definition does not allow k.
func (s *shape) field(k string) (child *shape, known bool) {
	if s.declared[k] {
		if c, ok := s.fields[k]; ok {
			return c, true
		}
		c, _ := fieldDef(s.def, k)
		s.fields[k] = shapeOf(c)
		return s.fields[k], true
	}
	for _, sel := range []cue.Selector{cue.Str(k), cue.Str(k).Optional()} {
		if c := s.def.LookupPath(cue.MakePath(sel)); c.Exists() {
			return shapeOf(c), true
		}
	}
	if !s.def.Allows(cue.Str(k)) {
		return nil, false
	}
	if !s.patDone {
		s.pattern, s.patDone = shapeOf(s.def.LookupPath(cue.MakePath(cue.AnyString))), true
	}
	return s.pattern, true
}

// elem returns the shape of list element i.
func (s *shape) elem(i int) *shape {
	if c, ok := s.elems[i]; ok {
		return c
	}
	e := s.def.LookupPath(cue.MakePath(cue.Index(i)))
	if !e.Exists() {
		e = s.def.LookupPath(cue.MakePath(cue.AnyIndex))
	}
	c := shapeOf(e)
	if i < maxShapeIndex {
		s.elems[i] = c
	}
	return c
}

// walk reports unknown fields and missing required fields of objects, recursing into
// nested objects and lists the definition describes.
func (s *shape) walk(data any, path string, out *[]ValidationError) {
	switch d := data.(type) {
	case map[string]any:
		if s.kind&cue.StructKind == 0 {
			return
		}
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			child, known := s.field(k)
			if !known {
				*out = append(*out, ValidationError{Code: "UNKNOWN_FIELD", Path: joinPath(path, k), Message: fmt.Sprintf("field %q is not allowed", k)})
				continue
			}
			if child != nil {
				child.walk(d[k], joinPath(path, k), out)
			}
		}
		for _, name := range s.required {
			if _, ok := d[name]; !ok {
				*out = append(*out, ValidationError{Code: "SCHEMA_INVALID", Path: joinPath(path, name), Message: fmt.Sprintf("required field %q is missing", name)})
			}
		}
	case []any:
		if s.kind&cue.ListKind == 0 {
			return
		}
		for i, e := range d {
			if c := s.elem(i); c != nil {
				c.walk(e, path+"["+strconv.Itoa(i)+"]", out)
			}
		}
	}
}

// shapeFor returns the shape of a definition, made on first use and kept under key.
// The caller holds cueMu.
func (e *Engine) shapeFor(key string, def cue.Value) *shape {
	if e.shapes == nil {
		e.shapes = map[string]*shape{}
	}
	s, ok := e.shapes[key]
	if !ok {
		s = newShape(def)
		e.shapes[key] = s
	}
	return s
}

// resultShapes checks policy results: #PolicyResult without its events, and each event
// against the one alternative of the #Event disjunction its type names. The
// alternatives are closed and each requires its own type literal, so an event with
// type T can only match the alternative of type T: the check is the same as unifying
// the whole result, without trying every alternative for every event. An event whose
// type names no alternative is checked against the whole disjunction.
type resultShapes struct {
	rest   *shape            // #PolicyResult & {events: []}
	event  *shape            // #Event
	byType map[string]*shape // event type -> its alternative
}

func newResultShapes(result, event cue.Value) *resultShapes {
	whole := &resultShapes{rest: newShape(result)}
	op, alts := event.Expr()
	if op != cue.OrOp {
		return whole
	}
	rs := &resultShapes{byType: map[string]*shape{}, event: newShape(event)}
	rs.rest = newShape(result.FillPath(cue.ParsePath("events"), []any{}))
	for _, alt := range alts {
		if root, path := alt.ReferencePath(); root.Exists() {
			alt = root.LookupPath(path)
		} else {
			return whole // only a disjunction of named definitions
		}
		t, ok := typeLiteral(alt)
		if !ok || rs.byType[t] != nil {
			return whole // not a union discriminated by type
		}
		rs.byType[t] = newShape(alt)
	}
	return rs
}

// typeLiteral returns the string a struct definition, or every alternative of a
// disjunction of them, requires its type field to be.
func typeLiteral(def cue.Value) (string, bool) {
	if op, alts := def.Expr(); op == cue.OrOp {
		lit := ""
		for i, alt := range alts {
			t, ok := typeLiteral(alt.Eval())
			if !ok || (i > 0 && t != lit) {
				return "", false
			}
			lit = t
		}
		return lit, len(alts) > 0
	}
	if op, parts := def.Expr(); op == cue.AndOp {
		lit, found := "", false
		for _, p := range parts {
			if t, ok := typeLiteral(p); ok {
				if found && t != lit {
					return "", false
				}
				lit, found = t, true
			}
		}
		return lit, found
	}
	it, err := def.Fields(cue.Optional(true))
	if err != nil {
		return "", false
	}
	for it.Next() {
		if it.Selector().Unquoted() == "type" {
			s, err := it.Value().String()
			return s, err == nil && it.Value().IsConcrete()
		}
	}
	return "", false
}

// check validates a decoded policy result.
func (rs *resultShapes) check(ctx *cue.Context, result any) []ValidationError {
	obj, ok := result.(map[string]any)
	events, isList := obj["events"].([]any)
	if !ok || !isList || rs.event == nil {
		return validateShape(ctx, rs.rest, result)
	}
	rest := make(map[string]any, len(obj))
	for k, v := range obj {
		rest[k] = v
	}
	rest["events"] = []any{}
	out := validateShape(ctx, rs.rest, rest)
	for i, ev := range events {
		s := rs.event
		if m, ok := ev.(map[string]any); ok {
			if t, ok := m["type"].(string); ok && rs.byType[t] != nil {
				s = rs.byType[t]
			}
		}
		prefix := "events[" + strconv.Itoa(i) + "]"
		for _, e := range validateShape(ctx, s, ev) {
			if e.Path == "" {
				e.Path = prefix
			} else if e.Path[0] == '[' {
				e.Path = prefix + e.Path
			} else {
				e.Path = prefix + "." + e.Path
			}
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
