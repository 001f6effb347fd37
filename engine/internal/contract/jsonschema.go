package contract

import (
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strconv"
)

// JSONSchemaDraft is the JSON Schema dialect the contracts are served in.
const JSONSchemaDraft = "https://json-schema.org/draft/2020-12/schema"

// Defs collects the named definitions a set of JSON Schemas refers to, each once, under
// the names its references use.
type Defs struct {
	// Prefix is what a reference puts before a definition's name: "#/$defs/" in a JSON
	// Schema document, "#/components/schemas/" in an OpenAPI document.
	Prefix string
	// Schemas are the definitions, by name.
	Schemas map[string]any
	// Qualifier is put before a name another definition (or a reserved name) has.
	Qualifier string
	// Written says the schemas describe values the engine writes rather than reads:
	// every field but an optional one (label?) is present, where a request may leave out
	// a regular field CUE completes (an empty list). A definition wanted both ways gets
	// a name for each.
	Written   bool
	reserved  map[string]bool
	names     map[string]string // definition key -> its name here
	artifacts map[string]string // artifact type -> the name of its content's schema
}

// Reserve keeps names for definitions written elsewhere in the same document.
func (d *Defs) Reserve(names ...string) {
	if d.reserved == nil {
		d.reserved = map[string]bool{}
	}
	for _, n := range names {
		d.reserved[n] = true
	}
}

// NewDefs returns an empty set of definitions referred to with prefix.
func NewDefs(prefix string) *Defs {
	return &Defs{Prefix: prefix, Schemas: map[string]any{}, names: map[string]string{}, artifacts: map[string]string{}}
}

// Ref returns a reference to the definition name.
func (d *Defs) Ref(name string) map[string]any { return map[string]any{"$ref": d.Prefix + name} }

// JSONSchema is the validator's definition as a JSON Schema (2020-12), built from the
// compiled form the engine validates with, so that the two agree: whatever the schema
// refuses, the engine refuses. Named CUE definitions become definitions in defs,
// fields carry their CUE doc comments as descriptions. A part of the definition the
// compiled form leaves to CUE (a value that depends on another field) is left open,
// with a comment saying the engine checks it.
func (v *Validator) JSONSchema(defs *Defs) map[string]any {
	return defs.emit(v.Compiled(), false)
}

// emit writes s; named says whether a named definition may be referred to rather than
// written out (false for the definition itself).
func (d *Defs) emit(s *schema, named bool) map[string]any {
	if s.name != "" && named {
		mode := d.mode(s)
		name, ok := d.names[mode]
		if !ok {
			name = d.unique(s.name)
			d.names[mode] = name
			d.Schemas[name] = nil // taken before its body: a recursive definition refers to it
			body := d.emit(s, false)
			d.Schemas[name] = body
			// Read and written alike (every field always there): one definition.
			otherMode := s.key + " written"
			if mode != s.key {
				otherMode = s.key
			}
			if other, ok := d.names[otherMode]; ok && reflect.DeepEqual(d.Schemas[other], body) {
				delete(d.Schemas, name)
				name, d.names[mode] = other, other
			}
		}
		return d.Ref(name)
	}
	out := map[string]any{}
	if s.doc != "" {
		out["description"] = s.doc
	}
	if s.fallback {
		out["$comment"] = "checked by the engine against the CUE contract: it depends on other fields"
		return out
	}
	if t := jsonTypes(s.kinds); t != nil {
		out["type"] = t
	}
	if enum, ok := constEnum(s); ok {
		out["enum"] = enum
		return out
	}
	switch len(s.consts) {
	case 0:
	case 1:
		out["const"] = jsonConst(s.consts[0])
	default:
		out["enum"] = jsonConsts(s.consts)
	}
	var all []any
	for _, b := range s.bounds {
		key := map[string]string{">=": "minimum", ">": "exclusiveMinimum", "<=": "maximum", "<": "exclusiveMaximum"}[b.op]
		n := ratNumber(b.rat)
		if _, dup := out[key]; dup {
			all = append(all, map[string]any{key: n})
			continue
		}
		out[key] = n
	}
	switch len(s.notEq) {
	case 0:
	case 1:
		out["not"] = map[string]any{"const": jsonConst(s.notEq[0])}
	default:
		out["not"] = map[string]any{"enum": jsonConsts(s.notEq)}
	}
	for i, re := range s.regex {
		if i == 0 {
			out["pattern"] = re.String()
			continue
		}
		all = append(all, map[string]any{"pattern": re.String()})
	}
	for _, re := range s.notRegex {
		all = append(all, map[string]any{"not": map[string]any{"pattern": re.String()}})
	}
	if s.minRunes >= 0 {
		out["minLength"] = s.minRunes
	}
	if s.maxRunes >= 0 {
		out["maxLength"] = s.maxRunes
	}
	if s.fields != nil {
		d.emitStruct(s, out)
	}
	if s.list {
		d.emitList(s, out)
	}
	if len(s.anyOf) > 0 {
		// The Go type of a union of structs (wiregen's Event) leaves out an empty field
		// that not every member has: a member's regular fields may be absent.
		written := d.Written
		d.Written = false
		alts := make([]any, len(s.anyOf))
		for i, a := range s.anyOf {
			alts[i] = d.emit(a, true)
		}
		d.Written = written
		out["anyOf"] = alts
	}
	if len(all) > 0 {
		out["allOf"] = all
	}
	return out
}

// emitStruct writes a struct's fields: properties with their doc comments, the required
// ones, the patterns other keys must meet, and whether other keys are refused.
func (d *Defs) emitStruct(s *schema, out map[string]any) {
	props := map[string]any{}
	for name, f := range s.fields {
		p := d.emit(f.s, true)
		if f.doc != "" {
			if _, ref := p["$ref"]; ref {
				p = map[string]any{"$ref": p["$ref"]}
			}
			p["description"] = f.doc
		}
		props[name] = p
	}
	if len(props) > 0 {
		out["properties"] = props
	}
	required := append([]string(nil), s.required...)
	if d.Written {
		var more []string
		for name, f := range s.fields {
			if !f.optional && !slices.Contains(required, name) {
				more = append(more, name)
			}
		}
		slices.Sort(more)
		required = append(required, more...)
	}
	if len(required) > 0 {
		out["required"] = required
	}
	var other any
	patterns := map[string]any{}
	for _, p := range s.patterns {
		value := d.emit(p.value, true)
		switch {
		case len(p.key.regex) == 1 && len(p.key.notRegex) == 0 && len(p.key.consts) == 0:
			patterns[p.key.regex[0].String()] = value
		case p.key.kinds&kString != 0 && len(p.key.regex) == 0 && len(p.key.notRegex) == 0 && len(p.key.consts) == 0:
			other = value
		default:
			// A key constraint a pattern cannot say: every key must meet it.
			out["propertyNames"] = d.emit(p.key, true)
			other = value
		}
	}
	if len(patterns) > 0 {
		out["patternProperties"] = patterns
	}
	switch {
	case other != nil:
		out["additionalProperties"] = other
	case s.closed:
		out["additionalProperties"] = false
	}
}

// emitList writes a list's element schemas and its minimum length.
func (d *Defs) emitList(s *schema, out map[string]any) {
	var rest any = false
	if s.rest != nil {
		rest = d.emit(s.rest, true)
	}
	items := make([]any, len(s.prefix))
	same := true // [_, ...T] is "at least one T": minItems says it alone
	for i, p := range s.prefix {
		items[i] = d.emit(p, true)
		same = same && reflect.DeepEqual(items[i], rest)
	}
	if len(items) > 0 && !same {
		out["prefixItems"] = items
	}
	out["items"] = rest
	if s.minLen > 0 {
		out["minItems"] = s.minLen
	}
}

// mode is a definition's key in the mode the schemas are written in: the same in both
// for a definition with no struct in it (a scalar's schema does not depend on it).
func (d *Defs) mode(s *schema) string {
	if d.Written && hasStruct(s, map[*schema]bool{}) {
		return s.key + " written"
	}
	return s.key
}

// hasStruct says whether s or a schema in it has fields.
func hasStruct(s *schema, seen map[*schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if s.fields != nil {
		return true
	}
	parts := append(append([]*schema{s.rest}, s.prefix...), s.anyOf...)
	for _, p := range s.patterns {
		parts = append(parts, p.value)
	}
	return slices.ContainsFunc(parts, func(p *schema) bool { return hasStruct(p, seen) })
}

// unique returns name, or name with a number when another definition has it.
func (d *Defs) unique(name string) string {
	if !d.taken(name) {
		return name
	}
	if q := d.Qualifier + name; d.Qualifier != "" && !d.taken(q) {
		return q
	}
	for i := 2; ; i++ {
		if n := name + strconv.Itoa(i); !d.taken(n) {
			return n
		}
	}
}

func (d *Defs) taken(name string) bool {
	_, ok := d.Schemas[name]
	return ok || d.reserved[name]
}

// constEnum says whether s is a disjunction of constants only ("a" | "b"), the values
// of an enum.
func constEnum(s *schema) ([]any, bool) {
	if len(s.anyOf) == 0 {
		return nil, false
	}
	var out []any
	for _, a := range s.anyOf {
		if len(a.consts) != 1 || a.name != "" || len(a.anyOf) > 0 || a.fields != nil || a.list {
			return nil, false
		}
		out = append(out, jsonConst(a.consts[0]))
	}
	return out, true
}

// jsonTypes names JSON Schema's types for a set of kinds: nil for any value.
func jsonTypes(k jsonKinds) any {
	if k == kAny {
		return nil
	}
	var out []string
	if k&kNull != 0 {
		out = append(out, "null")
	}
	if k&kBool != 0 {
		out = append(out, "boolean")
	}
	switch {
	case k&kFloat != 0:
		out = append(out, "number")
	case k&kInt != 0:
		out = append(out, "integer")
	}
	if k&kString != 0 {
		out = append(out, "string")
	}
	if k&kList != 0 {
		out = append(out, "array")
	}
	if k&kStruct != 0 {
		out = append(out, "object")
	}
	sort.Strings(out)
	if len(out) == 1 {
		return out[0]
	}
	return out
}

func jsonConst(c any) any {
	if n, ok := c.(numConst); ok {
		return ratNumber(n.rat)
	}
	return c
}

// ratNumber writes an exact number as JSON: an integer as one, a fraction in decimals
// (the contracts write decimal literals, so the expansion ends).
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	f, _ := r.FloatPrec()
	return json.Number(r.FloatString(max(f, 1)))
}

func jsonConsts(cs []any) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = jsonConst(c)
	}
	return out
}

// Define puts the JSON Schema of the definition v validates in d, under name, unless d
// has it already; key is the definition ("import path:#Name"), so that the definitions
// referring to it refer to name.
func (d *Defs) Define(key, name string, v *Validator) {
	keyed := *v.Compiled() // a definition looked up, not referred to, has no key yet
	keyed.key = key
	if _, ok := d.names[d.mode(&keyed)]; ok {
		return
	}
	d.names[d.mode(&keyed)] = name
	d.Schemas[name] = nil
	out := d.emit(&keyed, false)
	if out["description"] == nil {
		if doc := docOf(v.def); doc != "" {
			out["description"] = doc
		}
	}
	d.Schemas[name] = out
}
