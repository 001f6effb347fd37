package contract

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/handoff-dev/handoff"
)

// schema is a CUE definition compiled once into plain Go checks (compileSchema): the
// decision path validates against it without a cue.Context, so without a lock and with
// few allocations. A schema is immutable once compiled and safe for concurrent use.
// Every schema node checks all of its parts: kinds, constants, scalar constraints, struct
// fields, list elements and, when set, one of its alternatives.
type schema struct {
	kinds  jsonKinds
	consts []any // the value must equal one of these: string, bool, nil or numConst

	// Scalar constraints.
	bounds   []bound
	notEq    []any
	regex    []*regexp.Regexp
	notRegex []*regexp.Regexp
	minRunes int // -1: none
	maxRunes int // -1: none

	// Struct: declared fields, patterns for other keys, and whether others are refused.
	fields   map[string]*field
	required []string // in definition order
	patterns []pattern
	closed   bool

	// List: the first elements' schemas, the rest's, and the length bounds.
	list   bool
	prefix []*schema
	rest   *schema // nil: no more elements than prefix
	minLen int

	// anyOf holds a disjunction's alternatives: the value must match one.
	anyOf []*schema
	// discriminators are, per alternative of a struct disjunction, its fields with a
	// constant value: they pick the alternative whose errors are reported.
	discriminators []map[string]any

	// fallback marks a constraint the compiled form cannot express (a value that depends
	// on another field of the request): a value reaching it is checked by CUE.
	fallback bool

	// name and doc are a named definition's name and doc comment, and key the definition
	// itself ("import path:#Name"), for the JSON Schema the contract is served as
	// (JSONSchema); validation reads none of them.
	name, doc, key string
}

type field struct {
	s        *schema
	required bool
	doc      string // the field's doc comment
}

type pattern struct {
	key   *schema // the constraint a key must meet
	value *schema
}

// bound is one numeric bound (>=1, <1.5), kept as an exact rational.
type bound struct {
	op    string // ">=", ">", "<=", "<"
	rat   *big.Rat
	i     int64 // rat as int64 when isInt
	isInt bool
}

// jsonKinds is a set of JSON value kinds as CUE distinguishes them.
type jsonKinds uint8

const (
	kNull jsonKinds = 1 << iota
	kBool
	kInt
	kFloat
	kString
	kList
	kStruct
	kAny = kNull | kBool | kInt | kFloat | kString | kList | kStruct
)

// String names the kinds as CUE does: int|float is number.
func (k jsonKinds) String() string {
	var names []string
	for _, n := range []struct {
		k    jsonKinds
		name string
	}{{kNull, "null"}, {kBool, "bool"}, {kInt | kFloat, "number"}, {kInt, "int"}, {kFloat, "float"}, {kString, "string"}, {kList, "list"}, {kStruct, "struct"}} {
		if k&n.k == n.k {
			names = append(names, n.name)
			k &^= n.k
		}
	}
	return strings.Join(names, "|")
}

// kindOf returns the kind of a decoded JSON value. A number is an int when its literal
// has no fraction and no exponent, as CUE reads JSON.
func kindOf(v any) jsonKinds {
	switch x := v.(type) {
	case nil:
		return kNull
	case bool:
		return kBool
	case string:
		return kString
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return kFloat
		}
		return kInt
	case int, int64, int32:
		return kInt
	case float64, float32:
		return kFloat
	case []any:
		return kList
	case map[string]any:
		return kStruct
	}
	return 0
}

// check is one validation: the errors found and whether a fallback node was reached.
type check struct {
	out      []handoff.ValidationError // nil when only the answer is wanted
	report   bool
	fallback bool
}

// fail records an error; callers test c.report first so that a probe formats nothing.
func (c *check) fail(code, path, format string, args ...any) {
	c.out = append(c.out, handoff.ValidationError{Code: code, Path: path, Message: fmt.Sprintf(format, args...)})
}

// at is the path of a child, built only when errors are reported.
func (c *check) at(path, key string) string {
	if !c.report {
		return ""
	}
	return joinPath(path, key)
}

// validate checks data and reports every error with its path into c; ok is false when
// data does not match.
func (s *schema) validate(data any, path string, c *check) (ok bool) {
	if s.fallback {
		c.fallback = true
		return true
	}
	k := kindOf(data)
	if s.kinds&k == 0 {
		if c.report {
			c.fail("SCHEMA_INVALID", path, "conflicting values %s and %s (mismatched types %s and %s)", short(data), s.kinds, k, s.kinds)
		}
		return false
	}
	if len(s.consts) > 0 && !matchesConst(s.consts, data) {
		if c.report {
			if len(s.consts) == 1 {
				c.fail("SCHEMA_INVALID", path, "conflicting values %s and %s", short(data), short(s.consts[0]))
			} else {
				c.fail("SCHEMA_INVALID", path, "invalid value %s (want one of %s)", short(data), constList(s.consts))
			}
		}
		return false
	}
	ok = true
	switch x := data.(type) {
	case string:
		ok = s.validateString(x, path, c)
	case map[string]any:
		if s.fields != nil {
			ok = s.validateStruct(x, path, c)
		}
	case []any:
		if s.list {
			ok = s.validateList(x, path, c)
		}
	case nil, bool:
		ok = s.validateNotEq(data, path, c)
	default:
		ok = s.validateNumber(data, path, c)
	}
	if ok && len(s.anyOf) > 0 {
		return s.validateAnyOf(data, path, c)
	}
	return ok
}

func (s *schema) validateNotEq(data any, path string, c *check) bool {
	for _, ne := range s.notEq {
		if matchesConst([]any{ne}, data) {
			if c.report {
				c.fail("SCHEMA_INVALID", path, "invalid value %s (out of bound !=%s)", short(data), short(ne))
			}
			return false
		}
	}
	return true
}

func (s *schema) validateString(x, path string, c *check) bool {
	if !s.validateNotEq(x, path, c) {
		return false
	}
	for _, re := range s.regex {
		if !re.MatchString(x) {
			if c.report {
				c.fail("SCHEMA_INVALID", path, "invalid value %s (out of bound =~%q)", short(x), re.String())
			}
			return false
		}
	}
	for _, re := range s.notRegex {
		if re.MatchString(x) {
			if c.report {
				c.fail("SCHEMA_INVALID", path, "invalid value %s (out of bound !~%q)", short(x), re.String())
			}
			return false
		}
	}
	if s.minRunes >= 0 || s.maxRunes >= 0 {
		n := utf8.RuneCountInString(x)
		if s.minRunes >= 0 && n < s.minRunes {
			if c.report {
				c.fail("SCHEMA_INVALID", path, "invalid value %s (does not satisfy strings.MinRunes(%d))", short(x), s.minRunes)
			}
			return false
		}
		if s.maxRunes >= 0 && n > s.maxRunes {
			if c.report {
				c.fail("SCHEMA_INVALID", path, "invalid value %s (does not satisfy strings.MaxRunes(%d))", short(x), s.maxRunes)
			}
			return false
		}
	}
	return true
}

// validateNumber compares exactly: an int literal that fits int64 against an integral
// bound directly, anything else as a rational, so 1.00000000000000000001 is above 1.
func (s *schema) validateNumber(data any, path string, c *check) bool {
	if len(s.bounds) == 0 && len(s.notEq) == 0 {
		return true
	}
	lit := numberLiteral(data)
	i, intErr := strconv.ParseInt(lit, 10, 64)
	var r *big.Rat
	for _, b := range s.bounds {
		var cmp int
		if intErr == nil && b.isInt {
			cmp = compareInt(i, b.i)
		} else {
			if r == nil {
				var ok bool
				if r, ok = new(big.Rat).SetString(lit); !ok {
					if c.report {
						c.fail("SCHEMA_INVALID", path, "invalid number %s", lit)
					}
					return false
				}
			}
			cmp = r.Cmp(b.rat)
		}
		if !b.holds(cmp) {
			if c.report {
				c.fail("SCHEMA_INVALID", path, "invalid value %s (out of bound %s%s)", lit, b.op, b.rat.RatString())
			}
			return false
		}
	}
	return s.validateNotEq(data, path, c)
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (b bound) holds(cmp int) bool {
	switch b.op {
	case ">=":
		return cmp >= 0
	case ">":
		return cmp > 0
	case "<=":
		return cmp <= 0
	default:
		return cmp < 0
	}
}

func numberLiteral(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return fmt.Sprint(v)
}

func (s *schema) validateStruct(m map[string]any, path string, c *check) bool {
	ok := true
	if !c.report {
		for k, v := range m {
			if !s.validateKey(k, v, path, c) {
				return false
			}
		}
	} else {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys) // errors in a stable order
		for _, k := range keys {
			if !s.validateKey(k, m[k], path, c) {
				ok = false
			}
		}
	}
	for _, name := range s.required {
		if _, found := m[name]; !found {
			if c.report {
				c.fail("SCHEMA_INVALID", joinPath(path, name), "required field %q is missing", name)
			}
			ok = false
		}
	}
	return ok
}

// validateKey checks one key of a struct and its value.
func (s *schema) validateKey(k string, v any, path string, c *check) bool {
	if f, found := s.fields[k]; found {
		return f.s.validate(v, c.at(path, k), c)
	}
	ok, matched := true, false
	for _, p := range s.patterns {
		if p.key.validate(k, "", &check{}) {
			matched = true
			if !p.value.validate(v, c.at(path, k), c) {
				ok = false
			}
		}
	}
	if !matched && s.closed {
		if c.report {
			c.fail("UNKNOWN_FIELD", joinPath(path, k), "field %q is not allowed", k)
		}
		return false
	}
	return ok
}

func (s *schema) validateList(l []any, path string, c *check) bool {
	if len(l) < s.minLen {
		if c.report {
			c.fail("SCHEMA_INVALID", path, "invalid value: %d elements, want at least %d", len(l), s.minLen)
		}
		return false
	}
	if s.rest == nil && len(l) > len(s.prefix) {
		if c.report {
			c.fail("SCHEMA_INVALID", path, "invalid value: %d elements, want at most %d", len(l), len(s.prefix))
		}
		return false
	}
	ok := true
	for i, e := range l {
		es := s.rest
		if i < len(s.prefix) {
			es = s.prefix[i]
		}
		ep := ""
		if c.report {
			ep = path + "[" + strconv.Itoa(i) + "]"
		}
		if !es.validate(e, ep, c) {
			ok = false
			if !c.report {
				return false
			}
		}
	}
	return ok
}

// validateAnyOf accepts data matching one alternative. Otherwise it reports the errors
// of the one alternative data was meant for (the only one of its kind, or the struct
// whose constant fields it carries), or says that none matches.
func (s *schema) validateAnyOf(data any, path string, c *check) bool {
	if alt := s.discriminated(data); alt != nil {
		probe := check{}
		if alt.validate(data, path, &probe) {
			c.fallback = c.fallback || probe.fallback
			return true
		}
	}
	for _, alt := range s.anyOf {
		probe := check{}
		if alt.validate(data, path, &probe) {
			c.fallback = c.fallback || probe.fallback
			return true
		}
		c.fallback = c.fallback || probe.fallback
	}
	if !c.report {
		return false
	}
	if alt := s.intended(data); alt != nil {
		n := len(c.out)
		alt.validate(data, path, c)
		if len(c.out) > n {
			return false
		}
	}
	if consts := s.allConsts(); consts != nil {
		if c.report {
			c.fail("SCHEMA_INVALID", path, "invalid value %s (want one of %s)", short(data), constList(consts))
		}
		return false
	}
	if c.report {
		c.fail("SCHEMA_INVALID", path, "invalid value %s (matches none of %d alternatives)", short(data), len(s.anyOf))
	}
	return false
}

// discriminated returns the first alternative whose constant fields data carries: for a
// union of events by type, the one to try first.
func (s *schema) discriminated(data any) *schema {
	m, ok := data.(map[string]any)
	if !ok || s.discriminators == nil {
		return nil
	}
	for i, d := range s.discriminators {
		if len(d) > 0 && carries(m, d) {
			return s.anyOf[i]
		}
	}
	return nil
}

func carries(m map[string]any, d map[string]any) bool {
	for k, want := range d {
		if v, ok := m[k]; !ok || !matchesConst([]any{want}, v) {
			return false
		}
	}
	return true
}

func (s *schema) intended(data any) *schema {
	k := kindOf(data)
	var byKind []int
	for i, alt := range s.anyOf {
		if alt.kinds&k != 0 && !(len(alt.consts) > 0 && !matchesConst(alt.consts, data)) {
			byKind = append(byKind, i)
		}
	}
	if len(byKind) == 1 {
		return s.anyOf[byKind[0]]
	}
	m, isStruct := data.(map[string]any)
	if !isStruct || s.discriminators == nil {
		return nil
	}
	var found *schema
	for _, i := range byKind {
		d := s.discriminators[i]
		if len(d) == 0 {
			return nil
		}
		if carries(m, d) {
			if found != nil {
				return nil
			}
			found = s.anyOf[i]
		}
	}
	return found
}

func (s *schema) allConsts() []any {
	var out []any
	for _, alt := range s.anyOf {
		if len(alt.consts) == 0 || len(alt.anyOf) > 0 {
			return nil
		}
		out = append(out, alt.consts...)
	}
	return out
}

// numConst is a numeric constant: its exact value and whether CUE reads it as an int
// or a float (1 and 1.0 do not unify).
type numConst struct {
	rat  *big.Rat
	kind jsonKinds
}

// matchesConst says whether v equals one of the constants: same kind, same value
// (numbers compared exactly).
func matchesConst(consts []any, v any) bool {
	for _, c := range consts {
		if n, ok := c.(numConst); ok {
			if kindOf(v) != n.kind || kindOf(v)&(kInt|kFloat) == 0 {
				continue
			}
			if r, ok := new(big.Rat).SetString(numberLiteral(v)); ok && r.Cmp(n.rat) == 0 {
				return true
			}
			continue
		}
		if c == v {
			return true
		}
	}
	return false
}

func constList(consts []any) string {
	parts := make([]string, len(consts))
	for i, c := range consts {
		parts[i] = short(c)
	}
	return strings.Join(parts, ", ")
}

// short renders a value for a message, cut to a readable length.
func short(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = strconv.Quote(x)
	case numConst:
		s = x.rat.RatString()
	case json.Number:
		s = string(x)
	case map[string]any:
		s = "{...}"
	case []any:
		s = "[...]"
	case nil:
		s = "null"
	case jsonKinds:
		s = x.String()
	default:
		s = fmt.Sprint(x)
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
