package service

import (
	"fmt"

	"github.com/handoff-dev/handoff/engine"
)

// PackOpenAPI is the OpenAPI 3.1 document of the API for one pack of dc: the service's
// document (OpenAPI), its schemas in JSON Schema 2020-12 as 3.1 has them, with the
// bodies of /v1/requests and /v1/evaluate the pack's request kinds, a oneOf chosen by
// kind, each generated from the pack's CUE like the schemas at
// /v1/packs/{pack}/schemas. A host in any language builds valid requests from it alone.
func PackOpenAPI(dc *engine.Decider, pack string) ([]byte, error) {
	ps, err := dc.Schemas(pack)
	if err != nil {
		return nil, err
	}
	doc, err := buildOpenAPI(dc, pack)
	if err != nil {
		return nil, err
	}
	info := doc["info"].(map[string]any)
	info["title"] = "Handoff: the " + pack + " pack"
	info["version"] = ps.Version
	info["description"] = fmt.Sprintf("%s\n\nThis document is the service's for the %s pack (version %s): the bodies of POST /v1/requests and /v1/evaluate are its request kinds, each artifact's content typed from its CUE contract. The pack's limits, gates and configuration are at /v1/packs/%s/schemas.",
		info["description"], pack, ps.Version, pack)
	return marshalDocument(doc)
}
