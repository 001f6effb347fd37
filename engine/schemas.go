package engine

import (
	"fmt"
	"strings"

	"github.com/handoff-dev/handoff/engine/internal/contract"
)

// PackSchemas is a pack's contract as JSON Schemas (2020-12), one self-contained
// document per request kind, built from the same compiled CUE the engine validates
// with: a request the engine's contract check refuses fails its schema, and the
// descriptions are the CUE doc comments. A handoff's output.content is typed by
// output.type. Beside them, the values a valid request depends on that a schema cannot
// say: the pack's limits, gates and configuration (evidence sources, completion
// criteria, task graph), for a host to read rather than learn from refusals.
type PackSchemas struct {
	Pack       string `json:"pack"`
	Version    string `json:"version"`
	PackDigest string `json:"pack_digest"`
	// Requests maps each request kind to its JSON Schema.
	Requests map[string]any `json:"requests"`
	// Artifacts maps each artifact type to the JSON Schema of its content.
	Artifacts map[string]any `json:"artifacts"`
	Limits    any            `json:"limits,omitempty"`
	Gates     any            `json:"gates,omitempty"`
	Config    map[string]any `json:"config,omitempty"`
}

// Schemas returns the pack's JSON Schemas, built once per Decider. The answer is
// shared: read it, do not change it. It fails for a pack the bundle does not have or
// whose contracts do not compile.
func (dc *Decider) Schemas(pack string) (*PackSchemas, error) {
	if s, ok := dc.schemas.Load(pack); ok {
		return s.(*PackSchemas), nil
	}
	p, err := dc.pack(pack)
	if err != nil {
		return nil, err
	}
	out := &PackSchemas{Pack: pack, PackDigest: dc.PackDigest(pack), Requests: map[string]any{}, Artifacts: map[string]any{}, Config: p.Config,
		Limits: p.Tables["limits"], Gates: p.Tables["gates"]}
	out.Version, _ = p.Tables["version"].(string)
	for _, kind := range p.Kinds() {
		defs := contract.NewDefs("#/$defs/")
		s, _ := p.RequestSchema(kind, defs)
		out.Requests[kind] = document(s, defs, fmt.Sprintf("/v1/packs/%s/schemas/%s", pack, kind))
	}
	for _, typ := range p.ArtifactTypes() {
		defs := contract.NewDefs("#/$defs/")
		name := p.ArtifactSchemaName(typ, defs)
		s := defs.Schemas[name].(map[string]any)
		delete(defs.Schemas, name)
		out.Artifacts[typ] = document(s, defs, fmt.Sprintf("/v1/packs/%s/schemas#/artifacts/%s", pack, typ))
	}
	got, _ := dc.schemas.LoadOrStore(pack, out)
	return got.(*PackSchemas), nil
}

// OpenAPIComponents returns JSON Schemas named for an OpenAPI document's components
// (#/components/schemas/NAME): the core definitions named in core ("#State", under
// "State"), so that the document's wire shapes come from the contracts, and, for a
// pack (pack not ""), its request kinds, kinds mapping each to its component's name;
// with every definition they refer to, each once. Names in reserved are the
// document's own components: a definition that has one is named after the pack, or
// with a "Core" prefix.
func (dc *Decider) OpenAPIComponents(core []string, pack string, reserved []string) (kinds map[string]string, components map[string]any, err error) {
	defs := contract.NewDefs("#/components/schemas/")
	defs.Qualifier = "Core"
	defs.Reserve(reserved...)
	for _, def := range core {
		v, key, ok := dc.contracts.CoreValidator(def)
		if !ok {
			return nil, nil, fmt.Errorf("engine: core has no definition %s", def)
		}
		defs.Define(key, strings.TrimPrefix(def, "#"), v)
	}
	if pack == "" {
		return nil, defs.Schemas, nil
	}
	p, err := dc.pack(pack)
	if err != nil {
		return nil, nil, err
	}
	defs.Qualifier = exported(pack)
	kinds = map[string]string{}
	for _, kind := range p.Kinds() {
		s, _ := p.RequestSchema(kind, defs)
		name := exported(pack) + exported(kind) + "Request"
		defs.Schemas[name] = s
		kinds[kind] = name
	}
	return kinds, defs.Schemas, nil
}

// document makes a schema a JSON Schema document of its own, with its definitions.
func document(s map[string]any, defs *contract.Defs, id string) map[string]any {
	out := map[string]any{"$schema": contract.JSONSchemaDraft, "$id": id}
	for k, v := range s {
		out[k] = v
	}
	if len(defs.Schemas) > 0 {
		out["$defs"] = defs.Schemas
	}
	return out
}

// pack returns a pack's compiled contracts.
func (dc *Decider) pack(name string) (*contract.Pack, error) {
	if !dc.contracts.HasPack(name) {
		return nil, fmt.Errorf("engine: no pack %q", name)
	}
	return dc.contracts.Pack(name)
}

// exported capitalizes a name's first letter: support -> Support.
func exported(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
