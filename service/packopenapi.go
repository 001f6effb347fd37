package service

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/handoff-dev/handoff/engine"
)

// PackOpenAPI is the OpenAPI 3.1 document of the API for one pack of dc: the service's
// document (OpenAPI), its schemas in JSON Schema 2020-12 as 3.1 has them, with the
// bodies of /v1/requests and /v1/evaluate the pack's request kinds, a oneOf chosen by
// kind, each generated from the pack's CUE like the schemas at
// /v1/packs/{pack}/schemas. A host in any language builds valid requests from it alone.
func PackOpenAPI(dc *engine.Decider, pack string) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		return nil, fmt.Errorf("service: the OpenAPI document: %w", err)
	}
	doc = toOpenAPI31(doc).(map[string]any)
	doc["openapi"] = "3.1.0"
	ps, err := dc.Schemas(pack)
	if err != nil {
		return nil, err
	}
	info := doc["info"].(map[string]any)
	info["title"] = "Handoff: the " + pack + " pack"
	info["version"] = ps.Version
	info["description"] = fmt.Sprintf("%s\n\nThis document is the service's for the %s pack (version %s): the bodies of POST /v1/requests and /v1/evaluate are its request kinds, each artifact's content typed from its CUE contract. The pack's limits, gates and configuration are at /v1/packs/%s/schemas.",
		info["description"], pack, ps.Version, pack)
	components := doc["components"].(map[string]any)
	schemas := components["schemas"].(map[string]any)
	kinds, generated, err := dc.OpenAPIComponents(nil, pack, slices.Collect(maps.Keys(schemas)))
	if err != nil {
		return nil, err
	}
	maps.Copy(schemas, generated)
	request := "PackRequest"
	var alts []any
	mapping := map[string]any{}
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		ref := "#/components/schemas/" + kinds[kind]
		alts = append(alts, map[string]any{"$ref": ref})
		mapping[kind] = ref
	}
	schemas[request] = map[string]any{
		"description":   "a request of the " + pack + " pack: kind chooses its body",
		"oneOf":         alts,
		"discriminator": map[string]any{"propertyName": "kind", "mapping": mapping},
	}
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/v1/requests", "/v1/evaluate"} {
		body := paths[p].(map[string]any)["post"].(map[string]any)["requestBody"].(map[string]any)
		body["content"].(map[string]any)["application/json"].(map[string]any)["schema"] = map[string]any{"$ref": "#/components/schemas/" + request}
	}
	return json.MarshalIndent(doc, "", "  ")
}

// toOpenAPI31 rewrites OpenAPI 3.0 schemas as 3.1 has them: nullable becomes a "null"
// type.
func toOpenAPI31(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["nullable"].(bool); ok {
			delete(x, "nullable")
			if t, ok := x["type"].(string); ok && n {
				x["type"] = []any{t, "null"}
			}
		}
		for k, e := range x {
			x[k] = toOpenAPI31(e)
		}
	case []any:
		for i, e := range x {
			x[i] = toOpenAPI31(e)
		}
	}
	return v
}
