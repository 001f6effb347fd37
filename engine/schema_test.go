package engine

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	cuejson "cuelang.org/go/encoding/json"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// tester is what both *testing.T and *rapid.T offer.
type tester interface {
	require.TestingT
	Helper()
	Fatalf(format string, args ...any)
}

// cueAccepts is the reference: data unified with the whole definition by CUE, numbers
// read from their JSON literals.
func cueAccepts(t tester, ctx *cue.Context, def cue.Value, data any) bool {
	b, err := json.Marshal(data)
	require.NoError(t, err)
	expr, err := cuejson.Extract("data", b)
	require.NoError(t, err)
	return def.Unify(ctx.BuildExpr(expr)).Validate(cue.Concrete(true)) == nil
}

// definition is one definition the engine validates against at run time.
type definition struct {
	name string
	v    *contract.Validator
}

// seedRequests are the requests of the scenario files, the golden files and the
// adversarial corpus, decoded as the engine decodes them.
func seedRequests(t testing.TB) []map[string]any {
	raws := scenarioRequests(t)
	for _, pattern := range []string{"testdata/golden/*.txtar", "../reliability/testdata/corpus/*/*.txtar"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, f := range files {
			a, err := txtar.ParseFile(f)
			require.NoError(t, err)
			for _, file := range a.Files {
				if file.Name == "request" || strings.HasSuffix(file.Name, ".request.json") {
					raws = append(raws, file.Data)
				}
			}
		}
	}
	var out []map[string]any
	for _, raw := range raws {
		v, err := pipeline.DecodeJSON(raw)
		if m, ok := v.(map[string]any); err == nil && ok {
			out = append(out, m)
		}
	}
	return out
}

// definitionsFor are the pack definitions a request is checked against: its kind's in
// every pack, and its output content's artifact type's.
func definitionsFor(cc *contract.Contracts, req map[string]any) []definition {
	kind, _ := req["kind"].(string)
	var typ string
	if out, ok := req["output"].(map[string]any); ok {
		typ, _ = out["type"].(string)
	}
	var defs []definition
	for _, name := range cc.PackNames() {
		p, _ := cc.Pack(name) // compiled at once: no error left
		if v, ok := p.Requests[kind]; ok {
			defs = append(defs, definition{name + "/request/" + kind, v})
		}
		if v, ok := p.Artifacts[typ]; ok {
			defs = append(defs, definition{name + "/artifact/" + typ, v})
		}
	}
	return defs
}

// agree checks that the validator and CUE agree on data.
func agree(t tester, ctx *cue.Context, d definition, data any) bool {
	errs := d.v.Validate(data)
	want := cueAccepts(t, ctx, d.v.Def(), data)
	if (len(errs) == 0) != want {
		b, _ := json.Marshal(data)
		t.Fatalf("%s: validator accepts=%v, CUE accepts=%v\nerrors: %v\ndata: %s", d.name, len(errs) == 0, want, errs, b)
	}
	return want
}

func contentOf(req any) any {
	if m, ok := req.(map[string]any); ok {
		if out, ok := m["output"].(map[string]any); ok {
			return out["content"]
		}
	}
	return nil
}

func checkAgainst(t tester, ctx *cue.Context, defs []definition, req any) (accepted int) {
	for _, d := range defs {
		data := req
		if strings.Contains(d.name, "/artifact/") {
			if data = contentOf(req); data == nil {
				continue
			}
		}
		if agree(t, ctx, d, data) {
			accepted++
		}
	}
	return accepted
}

// TestSchemaAgreesWithCUEOnSeeds: every request of the scenarios, golden files and
// adversarial corpus gets the same answer from the compiled schema as from CUE, against
// every pack's definition of its kind and its content's artifact type.
func TestSchemaAgreesWithCUEOnSeeds(t *testing.T) {
	cc, err := contract.Compile(os.DirFS("../contracts"), false)
	require.NoError(t, err)
	seeds := seedRequests(t)
	accepted, checked := 0, 0
	for _, req := range seeds {
		defs := definitionsFor(cc, req)
		checked += len(defs)
		accepted += checkAgainst(t, cc.CUE, defs, req)
	}
	t.Logf("%d seeds, %d checks, %d accepted", len(seeds), checked, accepted)
	require.Greater(t, accepted, 300, "the seeds include valid requests")
	require.Greater(t, checked-accepted, 300, "the seeds include invalid requests")
}

// TestSchemaAgreesWithCUEOnMutations mutates the seed requests (fields dropped or added,
// values of the wrong kind, out of range, off the enum, failing a pattern) and checks
// that the compiled schema and CUE agree on every one.
func TestSchemaAgreesWithCUEOnMutations(t *testing.T) {
	cc, err := contract.Compile(os.DirFS("../contracts"), false)
	require.NoError(t, err)
	seeds := seedRequests(t)
	pool := scalarPool(seeds)
	names := fieldNames(seeds)
	rapid.Check(t, func(rt *rapid.T) {
		seed := seeds[rapid.IntRange(0, len(seeds)-1).Draw(rt, "seed")]
		defs := definitionsFor(cc, seed)
		if len(defs) == 0 {
			return
		}
		req := deepCopy(rt, seed)
		for range rapid.IntRange(1, 3).Draw(rt, "mutations") {
			req = mutate(rt, req, pool, names)
		}
		checkAgainst(rt, cc.CUE, defs, req)
	})
}

// TestSchemaAgreesWithCUEOnPolicyResults does the same for #PolicyResult, from a result
// with one event of every type.
func TestSchemaAgreesWithCUEOnPolicyResults(t *testing.T) {
	cc, err := contract.Compile(os.DirFS("../contracts"), false)
	require.NoError(t, err)
	d := definition{"#PolicyResult", cc.Result}
	ref := map[string]any{"id": "a-1", "type": "NOTE", "version": 1, "hash": "sha256:" + fmt.Sprintf("%064d", 0)}
	events := []any{
		map[string]any{"type": "artifact_recorded", "ref": ref, "status": "draft", "producer": "writer", "based_on": []any{}, "assumptions": []any{}, "limitations": []any{}, "content": map[string]any{"text": "x"}, "meta": map[string]any{}},
		map[string]any{"type": "artifact_status", "artifact": "NOTE", "version": 1, "status": "approved"},
		map[string]any{"type": "handoff_accepted", "source": "writer", "target": "reader", "input_hash": ref["hash"], "stage": "OPEN"},
		map[string]any{"type": "counter", "name": "n", "delta": 1},
		map[string]any{"type": "counter", "name": "n", "value": 0},
		map[string]any{"type": "conflict_opened", "id": "c-1", "conflict_type": "facts", "artifacts": []any{ref}, "raised_by": "writer"},
		map[string]any{"type": "conflict_resolved", "id": "c-1", "by": "maria", "rationale": "r", "chosen": ref},
		map[string]any{"type": "approval_recorded", "decision": "APPROVE", "by": "maria", "artifacts": []any{ref}, "stage": "OPEN"},
		map[string]any{"type": "effect", "id": "e-1", "status": "pending"},
		map[string]any{"type": "task", "id": "T1", "status": "done", "agent": "writer", "depends_on": []any{"T0"}},
	}
	result := map[string]any{"outcome": "revise", "reasons": []any{map[string]any{"code": "QA_FAILED", "message": "m", "gate": "HG-1", "path": "a.b", "outcome": "revise"}},
		"status_after": "OPEN", "next": []any{map[string]any{"agent": "writer", "task": "t", "context": map[string]any{"must_know": map[string]any{"a": 1}, "may_know": map[string]any{}}}},
		"retry": map[string]any{"attempt": 1, "max_attempts": 3, "delay_ms": 100, "task": "t"}, "revise": []any{map[string]any{"artifact": "NOTE", "producer": "writer", "defects": []any{"D-1"}}},
		"conflict_id": "c-1", "requires_human_review": true, "events": events}
	seed := roundTrip(t, result)
	require.True(t, agree(t, cc.CUE, d, seed), "the seed result is valid")
	seeds := []map[string]any{seed.(map[string]any)}
	pool := scalarPool(seeds)
	pool = append(pool, "counter", "task", "effect", "no_such_type", "allow", "block", "S1")
	names := fieldNames(seeds)
	rapid.Check(t, func(rt *rapid.T) {
		r := deepCopy(rt, seeds[0])
		for range rapid.IntRange(1, 3).Draw(rt, "mutations") {
			r = mutate(rt, r, pool, names)
		}
		agree(rt, cc.CUE, d, r)
	})
}

// TestSchemaComparesNumbersExactly: a decimal a hair above a bound is above it, however
// many digits it takes, and an int field refuses a number written with a fraction.
func TestSchemaComparesNumbersExactly(t *testing.T) {
	cc, err := contract.Compile(os.DirFS("../contracts"), false)
	require.NoError(t, err)
	def := definition{"campaign/request/handoff", compiledPack(t, cc, "campaign").Requests["handoff"]}
	var handoff map[string]any
	for _, s := range seedRequests(t) {
		if s["kind"] == "handoff" && s["confidence_score"] != nil && contentOf(s) != nil && cueAccepts(t, cc.CUE, def.v.Def(), s) {
			handoff = s
			break
		}
	}
	require.NotNil(t, handoff)
	for lit, ok := range map[string]bool{
		"1": true, "1.0": true, "0": true, "0.99999999999999999999": true, "1.00000000000000000001": false,
		"-0.00000000000000000001": false, "1e0": true, "1e-1": true, "10e-1": true, "100e-2": true, "1.5": false,
	} {
		req := deepCopy(t, handoff)
		req["confidence_score"] = json.Number(lit)
		require.Equal(t, ok, agree(t, cc.CUE, def, req), "confidence_score %s", lit)
	}
	for lit, ok := range map[string]bool{"1": true, "2": true, "1.0": false, "1e3": false, "0": false, "99999999999999999999999": true} {
		req := deepCopy(t, handoff)
		req["output"].(map[string]any)["version"] = json.Number(lit)
		require.Equal(t, ok, agree(t, cc.CUE, def, req), "output.version %s", lit)
	}
}

func roundTrip(t tester, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := pipeline.DecodeJSON(b)
	require.NoError(t, err)
	return out
}

func deepCopy(t tester, m map[string]any) map[string]any {
	return roundTrip(t, m).(map[string]any)
}

// scalarPool is every scalar of the seeds plus values made to break constraints: enum
// values of other fields, ids that fail their pattern, numbers out of range.
func scalarPool(seeds []map[string]any) []any {
	set := map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		default:
			if s, ok := x.(string); ok && len(s) > 40 {
				return
			}
			set[fmt.Sprintf("%T %v", x, x)] = x
		}
	}
	for _, s := range seeds {
		walk(s)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pool := make([]any, 0, len(keys)+32)
	for _, k := range keys {
		pool = append(pool, set[k])
	}
	for _, n := range []string{"0", "1", "-1", "2", "5", "6", "64", "65", "0.5", "1.5", "-0.1", "1.0", "1e3", "1E-1",
		"1.00000000000000000001", "-0.00000000000000000001", "9223372036854775807", "9223372036854775808",
		"-9223372036854775809", "123456789012345678901234567890"} {
		pool = append(pool, json.Number(n))
	}
	return append(pool, nil, true, false, "", " ", "x", "bad id!", "UPPER_SNAKE", "lower", "sha256:00",
		"2026-01-02T03:04:05Z", "2026-01-02", strings.Repeat("é", 281), strings.Repeat("a", 1001), strings.Repeat("a", 129))
}

// fieldNames are the object keys of the seeds: an added key is often one that is
// declared elsewhere.
func fieldNames(seeds []map[string]any) []string {
	set := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				set[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, s := range seeds {
		walk(s)
	}
	out := []string{"extra", "Kind", "x-unknown"}
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out[3:])
	return out
}

// mutate changes one place of v: drops a field or element, adds a field, replaces a
// value by another scalar, list or object, or appends an element.
func mutate(rt *rapid.T, v map[string]any, pool []any, names []string) map[string]any {
	type place struct {
		m map[string]any
		k string
		l []any
		i int
	}
	var places []place
	var maps []map[string]any
	var lists []place
	var walk func(x any, parent place)
	walk = func(x any, parent place) {
		switch y := x.(type) {
		case map[string]any:
			maps = append(maps, y)
			keys := make([]string, 0, len(y))
			for k := range y {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := place{m: y, k: k}
				places = append(places, p)
				walk(y[k], p)
			}
		case []any:
			lists = append(lists, parent)
			for i := range y {
				p := place{l: y, i: i}
				places = append(places, p)
				walk(y[i], p)
			}
		}
	}
	walk(v, place{})
	value := func() any {
		switch rapid.IntRange(0, 9).Draw(rt, "value") {
		case 0:
			return []any{}
		case 1:
			return map[string]any{}
		case 2:
			return []any{rapid.SampledFrom(pool).Draw(rt, "elem")}
		default:
			return rapid.SampledFrom(pool).Draw(rt, "scalar")
		}
	}
	set := func(p place, x any) {
		if p.m != nil {
			p.m[p.k] = x
		} else if p.l != nil {
			p.l[p.i] = x
		}
	}
	switch op := rapid.IntRange(0, 3).Draw(rt, "op"); {
	case op == 0 && len(places) > 0:
		p := rapid.SampledFrom(places).Draw(rt, "drop")
		if p.m != nil {
			delete(p.m, p.k)
		} else {
			p.l[p.i] = nil // the list keeps its length; elements are dropped by op 3
		}
	case op == 1:
		m := rapid.SampledFrom(maps).Draw(rt, "into")
		m[rapid.SampledFrom(names).Draw(rt, "name")] = value()
	case op == 2 && len(places) > 0:
		set(rapid.SampledFrom(places).Draw(rt, "replace"), value())
	case op == 3 && len(lists) > 0:
		p := rapid.SampledFrom(lists).Draw(rt, "list")
		var l []any
		if p.m != nil {
			l, _ = p.m[p.k].([]any)
		} else if p.l != nil {
			l, _ = p.l[p.i].([]any)
		}
		if len(l) > 0 && rapid.Bool().Draw(rt, "shrink") {
			set(p, l[1:])
		} else if len(l) > 0 {
			set(p, append(l[:len(l):len(l)], l[0]))
		} else {
			set(p, append(l, value()))
		}
	}
	return v
}

// compiledPack is a pack of contracts compiled at once.
func compiledPack(t *testing.T, cc *contract.Contracts, name string) *contract.Pack {
	t.Helper()
	p, err := cc.Pack(name)
	require.NoError(t, err)
	require.NotNil(t, p, "pack %s", name)
	return p
}

// scenarioRequests returns every request of the shipped scenario files, as seeds.
func scenarioRequests(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	fsys := os.DirFS("../policies_test")
	require.NoError(t, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".scenario" {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		var sc struct {
			Steps []struct {
				Request json.RawMessage `json:"request"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(b, &sc); err != nil {
			return err
		}
		for _, st := range sc.Steps {
			out = append(out, st.Request)
		}
		return nil
	}))
	require.NotEmpty(t, out)
	return out
}
