package service

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3 document of the API, served at /v1/openapi.json. A test
// holds every route and every response to it.
//
//go:embed openapi.json
var OpenAPI []byte

func (h *Handler) openapi(w http.ResponseWriter, _ *http.Request, _ *Principal) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPI)
}
