package contract

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/handoff-dev/handoff"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	cuejson "cuelang.org/go/encoding/json"
)

// Validator applies one closed CUE definition: its compiled schema answers, and CUE
// itself checks the values that reach a part of the definition the schema leaves to it.
// The schema is compiled on first use, so that a process deciding one request (the CLI)
// compiles only the definitions it needs. A Validator is safe for concurrent use; only
// the first use and the CUE part take a lock.
type Validator struct {
	def    cue.Value
	cue    *Checker
	once   sync.Once
	schema *schema
}

func NewValidator(def cue.Value, cc *Checker) *Validator {
	return &Validator{def: def, cue: cc}
}

// Def is the CUE definition the validator applies.
func (v *Validator) Def() cue.Value { return v.def }

// Compiled returns the schema, compiled on first use.
func (v *Validator) Compiled() *schema {
	v.once.Do(func() {
		v.cue.mu.Lock()
		defer v.cue.mu.Unlock()
		v.schema = compileSchema(v.def, v.cue.memo)
	})
	return v.schema
}

// Validate returns every error of data with its path, sorted by path: every missing and
// unknown field, and the first failed constraint of each other value.
func (v *Validator) Validate(data any) []handoff.ValidationError {
	s := v.Compiled()
	probe := check{}
	if s.validate(data, "", &probe) && !probe.fallback {
		return nil
	}
	c := check{report: true}
	s.validate(data, "", &c)
	out := c.out
	if c.fallback || probe.fallback {
		out = v.cue.addErrors(v.def, data, out)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Checker validates with CUE, serialized: a cue.Context is not safe for concurrent
// use. It also holds the schemas compiled so far, shared by every Validator.
type Checker struct {
	mu   sync.Mutex
	ctx  *cue.Context
	memo map[string]*schema // guarded by mu
}

func NewChecker(ctx *cue.Context) *Checker {
	return &Checker{ctx: ctx, memo: map[string]*schema{}}
}

// addErrors unifies data with def and adds CUE's errors at paths out does not name yet.
// Numbers reach CUE as their JSON literals, so they are compared exactly.
func (cc *Checker) addErrors(def cue.Value, data any, out []handoff.ValidationError) []handoff.ValidationError {
	b, err := json.Marshal(data)
	if err != nil {
		return append(out, handoff.ValidationError{Code: "SCHEMA_INVALID", Message: err.Error()})
	}
	expr, err := cuejson.Extract("request", b)
	if err != nil {
		return append(out, handoff.ValidationError{Code: "SCHEMA_INVALID", Message: err.Error()})
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	v := cc.ctx.BuildExpr(expr)
	if err := v.Err(); err != nil {
		return append(out, handoff.ValidationError{Code: "SCHEMA_INVALID", Message: err.Error()})
	}
	err = def.Unify(v).Validate(cue.Concrete(true))
	if err == nil {
		return out
	}
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
		out = append(out, handoff.ValidationError{Code: code, Path: path, Message: msg})
	}
	return out
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
