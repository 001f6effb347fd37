package contract

import (
	"fmt"
	"slices"
	"sort"
)

// RequestSchema is the JSON Schema of a request of kind for the pack, its definitions in
// defs: the kind's CUE definition, the kind required (it selects the definition), and,
// for a handoff, the output's content typed by the output's artifact type. ok is false
// for a kind the pack does not have.
func (p *Pack) RequestSchema(kind string, defs *Defs) (map[string]any, bool) {
	v, ok := p.Requests[kind]
	if !ok {
		return nil, false
	}
	out := v.JSONSchema(defs)
	out["title"] = fmt.Sprintf("%s request of the %s pack", kind, p.Name)
	req, _ := out["required"].([]string)
	if !slices.Contains(req, "kind") {
		out["required"] = append([]string{"kind"}, req...)
	}
	if props, ok := out["properties"].(map[string]any); ok {
		if o, ok := props["output"].(map[string]any); ok && len(p.Artifacts) > 0 {
			props["output"] = p.typedOutput(o, defs)
		}
	}
	return out, true
}

// typedOutput adds to a handoff's output schema the content each artifact type must
// have: one alternative per type, chosen by output.type.
func (p *Pack) typedOutput(output map[string]any, defs *Defs) map[string]any {
	var alts []any
	for _, t := range p.ArtifactTypes() {
		alts = append(alts, map[string]any{
			"properties": map[string]any{
				"type":    map[string]any{"const": t},
				"content": defs.Ref(p.ArtifactSchemaName(t, defs)),
			},
			"required": []string{"type"},
		})
	}
	desc := output["description"]
	delete(output, "description")
	out := map[string]any{"allOf": []any{output, map[string]any{"oneOf": alts}}}
	if desc != nil {
		out["description"] = desc
	}
	return out
}

// ArtifactSchemaName puts the JSON Schema of an artifact type's content in defs, under
// the type's name, and returns the name.
func (p *Pack) ArtifactSchemaName(typ string, defs *Defs) string {
	if name, ok := defs.artifacts[typ]; ok {
		return name
	}
	name := defs.unique(typ)
	defs.Schemas[name] = nil
	defs.artifacts[typ] = name
	s := p.Artifacts[typ].JSONSchema(defs)
	contracts, _ := p.Tables["artifacts"].(map[string]any)
	if c, ok := contracts[typ].(map[string]any); ok {
		if d, ok := c["description"].(string); ok && d != "" {
			s["description"] = d
		}
	}
	s["title"] = typ
	defs.Schemas[name] = s
	return name
}

// ArtifactTypes are the pack's artifact types, sorted.
func (p *Pack) ArtifactTypes() []string {
	out := make([]string, 0, len(p.Artifacts))
	for t := range p.Artifacts {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Kinds are the pack's request kinds, sorted.
func (p *Pack) Kinds() []string {
	out := make([]string, 0, len(p.Requests))
	for k := range p.Requests {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
