package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
)

// servedSchemas compiles every pack's served request schemas with an independent JSON
// Schema (2020-12) validator, by pack and kind.
type servedSchemas struct {
	dc      *Decider
	schemas map[string]map[string]*jsonschema.Schema
}

func compileServedSchemas(t *testing.T) *servedSchemas {
	t.Helper()
	dc, err := NewDecider(context.Background(), DeciderOptions{})
	require.NoError(t, err)
	out := &servedSchemas{dc: dc, schemas: map[string]map[string]*jsonschema.Schema{}}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, info := range dc.Packs() {
		ps, err := dc.Schemas(info.Name)
		require.NoError(t, err)
		out.schemas[info.Name] = map[string]*jsonschema.Schema{}
		for kind, doc := range ps.Requests {
			url := "https://handoff.invalid/v1/packs/" + info.Name + "/schemas/" + kind
			require.NoError(t, c.AddResource(url, decodeForSchema(t, doc)))
			s, err := c.Compile(url)
			require.NoError(t, err, "%s %s", info.Name, kind)
			out.schemas[info.Name][kind] = s
		}
	}
	return out
}

// decodeForSchema reads a value as the JSON Schema validator does (numbers exact).
func decodeForSchema(t tester, v any) any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	return out
}

// engineAccepts says whether the engine's contract check accepts req as a request of
// its kind for pack: the kind's definition, and the output's content against its
// artifact type's. An output of a type the pack does not have fails the schema (its
// content has no schema to follow); the engine refuses it too, by policy.
func engineAccepts(p *contract.Pack, req map[string]any) (ok bool, fallbackOnly bool) {
	v := p.Requests[req["kind"].(string)]
	errs := v.Validate(req)
	if out, isOut := req["output"].(map[string]any); isOut && len(errs) == 0 {
		typ, _ := out["type"].(string)
		content, ok := p.Artifacts[typ]
		if !ok {
			return false, false
		}
		errs = append(errs, content.Validate(out["content"])...)
	}
	return len(errs) == 0, len(errs) > 0 && allIn(errs, fallbackPaths)
}

// fallbackPaths are where the compiled contract defers to CUE (a constraint that reads
// another field: the assessment pack's tools_used may name only the tools the Tool
// Registry grants the source_agent); the schema leaves them open and says so.
var fallbackPaths = []string{"tools_used"}

func allIn(errs []handoff.ValidationError, paths []string) bool {
	for _, e := range errs {
		in := false
		for _, p := range paths {
			in = in || e.Path == p || strings.HasPrefix(e.Path, p+"[") || strings.HasPrefix(e.Path, p+".")
		}
		if !in {
			return false
		}
	}
	return true
}

// agreeWithSchema checks that the served schema and the engine's contract check give
// req the same answer, for every pack that has its kind.
func (s *servedSchemas) agreeWithSchema(t tester, req map[string]any) (accepted int) {
	kind, _ := req["kind"].(string)
	for pack, kinds := range s.schemas {
		schema, ok := kinds[kind]
		if !ok {
			continue
		}
		p, err := s.dc.pack(pack)
		require.NoError(t, err)
		want, deferred := engineAccepts(p, req)
		err = schema.Validate(decodeForSchema(t, req))
		var verr *jsonschema.ValidationError
		if err != nil && !errors.As(err, &verr) {
			t.Fatalf("%s %s: %v", pack, kind, err)
		}
		got := err == nil
		if got != want && !(got && deferred) {
			b, _ := json.Marshal(req)
			t.Fatalf("%s/%s: schema accepts=%v, engine accepts=%v\nschema: %v\nrequest: %s", pack, kind, got, want, err, b)
		}
		if want {
			accepted++
		}
	}
	return accepted
}

// TestServedSchemasAgreeWithTheEngine: every request of the scenarios, golden files and
// adversarial corpus gets the same answer from the pack's served JSON Schema (read by
// an independent validator) as from the engine's contract check, for every pack that
// has its kind; every scenario request the engine takes passes its pack's schema.
func TestServedSchemasAgreeWithTheEngine(t *testing.T) {
	s := compileServedSchemas(t)
	accepted, checked := 0, 0
	for _, req := range seedRequests(t) {
		if _, ok := req["kind"].(string); !ok {
			continue
		}
		checked++
		accepted += s.agreeWithSchema(t, req)
	}
	t.Logf("%d requests, %d accepted by a pack", checked, accepted)
	require.Greater(t, accepted, 300, "the seeds include valid requests")
}

// TestServedSchemasAgreeOnMutations: the seeds mutated (fields dropped or added, values
// of the wrong kind, out of range, off the enum, failing a pattern) get the same answer
// from the schema as from the engine.
func TestServedSchemasAgreeOnMutations(t *testing.T) {
	s := compileServedSchemas(t)
	seeds := seedRequests(t)
	pool := scalarPool(seeds)
	names := fieldNames(seeds)
	rapid.Check(t, func(rt *rapid.T) {
		seed := seeds[rapid.IntRange(0, len(seeds)-1).Draw(rt, "seed")]
		if _, ok := seed["kind"].(string); !ok {
			return
		}
		req := deepCopy(rt, seed)
		for range rapid.IntRange(1, 3).Draw(rt, "mutations") {
			req = mutate(rt, req, pool, names)
		}
		if _, ok := req["kind"].(string); !ok {
			return
		}
		s.agreeWithSchema(rt, req)
	})
}

// ServedSchemas and CheckServedSchema let the scenario tests (package engine_test,
// which imports engine/scenario) ask the same question of played requests.
type ServedSchemas = servedSchemas

func CompileServedSchemas(t *testing.T) *ServedSchemas { return compileServedSchemas(t) }

// CheckServedSchema validates req against the schema of its kind for pack: the schema's
// error (nil when it accepts), whether the engine's contract check accepts it, and
// whether its refusal lies only where the schema defers to the engine. ok is false when
// the pack has no schema for the request's kind.
func CheckServedSchema(t *testing.T, s *ServedSchemas, pack string, req map[string]any) (schemaErr error, accepts, deferred, ok bool) {
	kind, _ := req["kind"].(string)
	schema, ok := s.schemas[pack][kind]
	if !ok {
		return nil, false, false, false
	}
	p, err := s.dc.pack(pack)
	require.NoError(t, err)
	b, err := json.Marshal(req)
	require.NoError(t, err)
	v, err := pipeline.DecodeJSON(b) // numbers as the engine reads them
	require.NoError(t, err)
	accepts, deferred = engineAccepts(p, v.(map[string]any))
	return schema.Validate(decodeForSchema(t, req)), accepts, deferred, true
}

// Decider is the Decider the schemas were served by.
func (s *ServedSchemas) Decider() *Decider { return s.dc }
