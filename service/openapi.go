package service

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

// OpenAPI is the OpenAPI 3.1 document of the API, served at /v1/openapi.json: its
// source (openapi.src.json: the paths and the service's own shapes) with the wire
// shapes of coreWritten and coreRead generated from the core CUE contracts (GenerateOpenAPI). A
// test fails when it is stale, and holds every route and every response to it.
//
//go:embed openapi.json
var OpenAPI []byte

// openAPISource is the hand-written part of the document: everything but the shapes
// the contracts define.
//
//go:embed openapi.src.json
var openAPISource []byte

// coreWritten and coreRead are the core CUE definitions whose shapes the document
// serves, by component name, with every definition they refer to (named as in CUE,
// without #): what the server answers, and what a host sends.
var (
	coreWritten = map[string]string{"#Decision": "Decision", "#State": "State", "#Waiting": "Waiting", "#VerifyReport": "VerifyReport", "#WorkflowSummary": "WorkflowSummary", "#WorkflowRow": "WorkflowRow", "#Error": "Error"}
	coreRead    = map[string]string{"#Envelope": "Request"}
)

// openComponents are the generated components that take fields besides their own:
// Request is the envelope every kind embeds, each kind adding its body (the per-pack
// documents type the bodies).
var openComponents = []string{"Request"}

func (h *Handler) openapi(w http.ResponseWriter, _ *http.Request, _ *Principal) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPI)
}

// GenerateOpenAPI returns the service's OpenAPI document from its source and the core
// contracts of dc: what OpenAPI must be.
func GenerateOpenAPI(dc *engine.Decider) ([]byte, error) {
	doc, err := buildOpenAPI(dc, "")
	if err != nil {
		return nil, err
	}
	return marshalDocument(doc)
}

// buildOpenAPI is the document for pack, or the service's with pack "": the source's
// paths and components, the core definitions' components and, for a pack, its request
// kinds'.
func buildOpenAPI(dc *engine.Decider, pack string) (doc map[string]any, err error) {
	if err := json.Unmarshal(openAPISource, &doc); err != nil {
		return nil, fmt.Errorf("service: openapi.src.json: %w", err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	kinds, generated, err := dc.OpenAPIComponents(coreWritten, coreRead, pack, slices.Collect(maps.Keys(schemas)))
	if err != nil {
		return nil, err
	}
	for _, name := range openComponents {
		generated[name].(map[string]any)["additionalProperties"] = true
	}
	for name := range generated {
		if _, dup := schemas[name]; dup {
			return nil, fmt.Errorf("service: openapi.src.json writes %s, which the contracts define", name)
		}
	}
	maps.Copy(schemas, generated)
	if pack != "" {
		packRequest(doc, schemas, pack, kinds)
	}
	return doc, nil
}

// packRequest makes the bodies of /v1/requests and /v1/evaluate the pack's request
// kinds, a oneOf chosen by kind.
func packRequest(doc, schemas map[string]any, pack string, kinds map[string]string) {
	var alts []any
	mapping := map[string]any{}
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		ref := "#/components/schemas/" + kinds[kind]
		alts = append(alts, map[string]any{"$ref": ref})
		mapping[kind] = ref
	}
	schemas["PackRequest"] = map[string]any{
		"description":   "a request of the " + pack + " pack: kind chooses its body",
		"oneOf":         alts,
		"discriminator": map[string]any{"propertyName": "kind", "mapping": mapping},
	}
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/v1/requests", "/v1/evaluate"} {
		body := paths[p].(map[string]any)["post"].(map[string]any)["requestBody"].(map[string]any)
		body["content"].(map[string]any)["application/json"].(map[string]any)["schema"] = map[string]any{"$ref": "#/components/schemas/PackRequest"}
	}
}

// marshalDocument writes a document as the committed files have it: two-space indent,
// keys sorted, a final newline.
func marshalDocument(doc map[string]any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
