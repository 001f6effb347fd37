package engine

import (
	"fmt"

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

// SchemaComponents returns the pack's request schemas and every definition they refer
// to, named for an OpenAPI document's components (#/components/schemas/NAME): kinds
// maps each request kind to its schema's component name. Names in reserved are left to
// the document's other components; a definition that has one is named after the pack.
func (dc *Decider) SchemaComponents(pack string, reserved []string) (kinds map[string]string, components map[string]any, err error) {
	p, err := dc.pack(pack)
	if err != nil {
		return nil, nil, err
	}
	defs := contract.NewDefs("#/components/schemas/")
	defs.Qualifier = exported(pack)
	defs.Reserve(reserved...)
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
