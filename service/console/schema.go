package console

import "strings"

// schema is one node of a pack's JSON Schema of an artifact's content, with the
// document it belongs to, so that a "$ref" to "#/$defs/Name" can be followed.
type schema struct {
	doc  map[string]any
	node map[string]any
}

// maxRefs bounds the "$ref"s followed from one node: a definition that refers to
// itself ends there.
const maxRefs = 8

// newSchema is the root of a schema document; nil when the document is not an object.
func newSchema(doc any) schema {
	m, _ := doc.(map[string]any)
	return schema{doc: m, node: m}
}

// resolved follows the node's "$ref"s to the definition they name, keeping the
// first description met: a field's own words come before its type's. A scalar
// definition's words (#ID, #Hash, #Time) say how its values are spelled, not what a
// field means: they label nothing.
func (s schema) resolved() (schema, string) {
	desc := s.own("description")
	for range maxRefs {
		ref, _ := s.node["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			break
		}
		defs, _ := s.doc["$defs"].(map[string]any)
		next, _ := defs[name].(map[string]any)
		if next == nil {
			break
		}
		s.node = next
		if desc == "" && (s.own("type") == "object" || s.own("type") == "array") {
			desc = strings.TrimPrefix(s.own("description"), "#")
		}
	}
	return s, desc
}

// own is a text keyword of the node itself, its lines joined: a doc comment's line
// breaks are the source's, not the reader's.
func (s schema) own(key string) string {
	v, _ := s.node[key].(string)
	return strings.Join(strings.Fields(v), " ")
}

// alternatives are the node and the schemas of its anyOf, oneOf and allOf, resolved:
// a field that may be a date or null is described by the date's schema.
func (s schema) alternatives() []schema {
	r, _ := s.resolved()
	out := []schema{r}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		list, _ := r.node[key].([]any)
		for _, alt := range list {
			if m, ok := alt.(map[string]any); ok {
				a, _ := schema{doc: s.doc, node: m}.resolved()
				out = append(out, a)
			}
		}
	}
	return out
}

// property is the schema of an object's field name: a declared property, or the
// schema of the extra keys the object allows.
func (s schema) property(name string) schema {
	for _, a := range s.alternatives() {
		if props, ok := a.node["properties"].(map[string]any); ok {
			if p, ok := props[name].(map[string]any); ok {
				return schema{doc: s.doc, node: p}
			}
		}
	}
	for _, a := range s.alternatives() {
		if extra, ok := a.node["additionalProperties"].(map[string]any); ok {
			return schema{doc: s.doc, node: extra}
		}
	}
	return schema{doc: s.doc}
}

// items is the schema of a list's elements.
func (s schema) items() schema {
	for _, a := range s.alternatives() {
		if it, ok := a.node["items"].(map[string]any); ok {
			return schema{doc: s.doc, node: it}
		}
	}
	return schema{doc: s.doc}
}

// order is the order an object's fields are read in: the required fields as the
// contract declares them, then its other properties.
func (s schema) order() []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range s.alternatives() {
		req, _ := a.node["required"].([]any)
		for _, r := range req {
			if name, ok := r.(string); ok && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}
