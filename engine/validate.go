package engine

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
)

// ValidationError is one contract violation found in a request, handed to the policy as
// input.validation.errors. Code is a reason code (SCHEMA_INVALID, UNKNOWN_FIELD, ...).
type ValidationError struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// validateAgainst checks a decoded request value against a closed CUE definition and
// returns every error with its path. CUE stops at the first kind of error, so missing
// and unknown fields are listed by walking the definition's fields first.
func validateAgainst(ctx *cue.Context, def cue.Value, data any) []ValidationError {
	return validateShape(ctx, newShape(def), data)
}

// validateShape is validateAgainst with the definition's shape kept from earlier calls.
func validateShape(ctx *cue.Context, s *shape, data any) []ValidationError {
	def := s.def
	var out []ValidationError
	s.walk(data, "", &out)
	v := ctx.Encode(toCUE(data))
	if err := v.Err(); err != nil {
		return append(out, ValidationError{Code: "SCHEMA_INVALID", Message: err.Error()})
	}
	u := def.Unify(v)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		seen := map[string]bool{}
		for _, e := range out {
			seen[e.Path] = true
		}
		prefix := len(def.Path().Selectors())
		for _, e := range cueerrors.Errors(err) {
			segs := e.Path()
			if len(segs) >= prefix {
				segs = segs[prefix:]
			}
			path := cuePathString(segs)
			if seen[path] {
				continue
			}
			seen[path] = true
			format, args := e.Msg()
			msg := fmt.Sprintf(format, args...)
			code := "SCHEMA_INVALID"
			if strings.Contains(msg, "not allowed") {
				code = "UNKNOWN_FIELD"
			}
			out = append(out, ValidationError{Code: code, Path: path, Message: msg})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// fieldDef finds the definition of field k of a struct definition: a regular, optional
// or required field, or a pattern constraint. known is false when the struct is closed
// and does not allow k.
func fieldDef(def cue.Value, k string) (child cue.Value, known bool) {
	for _, sel := range []cue.Selector{cue.Str(k), cue.Str(k).Optional()} {
		if c := def.LookupPath(cue.MakePath(sel)); c.Exists() {
			return c, true
		}
	}
	if !def.Allows(cue.Str(k)) {
		return cue.Value{}, false
	}
	return def.LookupPath(cue.MakePath(cue.AnyString)), true
}

// joinPath appends a field name to a request path (a.b, a["we ird"]).
func joinPath(path, key string) string {
	if isIdent(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

// cuePathString turns a CUE error path into the request path syntax.
func cuePathString(segs []string) string {
	path := ""
	for _, s := range segs {
		if strings.HasPrefix(s, "#") {
			continue
		}
		if n, err := strconv.Atoi(s); err == nil {
			path += "[" + strconv.Itoa(n) + "]"
			continue
		}
		path = joinPath(path, strings.Trim(s, `"`))
	}
	return path
}

// toCUE converts decoded JSON numbers to Go numbers CUE encodes exactly.
func toCUE(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = toCUE(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = toCUE(e)
		}
		return l
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if b, ok := new(big.Int).SetString(string(x), 10); ok {
			return b
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	default:
		return v
	}
}
