package service

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
)

// schemas answers a pack's contract as JSON Schemas (2020-12), one document per request
// kind and one per artifact type's content, with the limits, gates and configuration a
// valid request depends on.
func (h *Handler) schemas(w http.ResponseWriter, r *http.Request, _ *Principal) {
	ps, ok := h.packSchemas(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"bundle_digest": h.e.Decider().BundleDigest(), "schemas": ps})
}

// kindSchema answers the JSON Schema of one request kind of a pack, as a document a
// JSON Schema validator takes as it is.
func (h *Handler) kindSchema(w http.ResponseWriter, r *http.Request, _ *Principal) {
	ps, ok := h.packSchemas(w, r)
	if !ok {
		return
	}
	kind := r.PathValue("kind")
	doc, ok := ps.Requests[kind]
	if !ok {
		kinds := make([]string, 0, len(ps.Requests))
		for k := range ps.Requests {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		writeError(w, handoff.Error{Status: http.StatusNotFound, Code: handoff.CodeNotFound, Message: fmt.Sprintf("pack %s has no request kind %q", ps.Pack, kind), Hint: fmt.Sprintf("the kinds are %v", kinds)})
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

// packOpenAPI answers the OpenAPI document of the API for one pack: the service's, with
// the submit and evaluate bodies the pack's request kinds (a oneOf chosen by kind) and
// every artifact's content typed.
func (h *Handler) packOpenAPI(w http.ResponseWriter, r *http.Request, _ *Principal) {
	pack := r.PathValue("pack")
	if !h.knownPack(w, pack) {
		return
	}
	dc := h.e.Decider()
	key := dc.BundleDigest() + "/" + pack
	doc, ok := h.docs.Load(key)
	if !ok {
		b, err := PackOpenAPI(dc, pack)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		doc, _ = h.docs.LoadOrStore(key, b)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(doc.([]byte))
}

func (h *Handler) packSchemas(w http.ResponseWriter, r *http.Request) (*engine.PackSchemas, bool) {
	pack := r.PathValue("pack")
	if !h.knownPack(w, pack) {
		return nil, false
	}
	ps, err := h.e.Decider().Schemas(pack)
	if err != nil {
		h.fail(w, r, err)
		return nil, false
	}
	return ps, true
}

// knownPack answers 404 for a pack the bundle does not have.
func (h *Handler) knownPack(w http.ResponseWriter, pack string) bool {
	if _, ok := h.e.Decider().Tables(pack); ok {
		return true
	}
	writeError(w, handoff.Error{Status: http.StatusNotFound, Code: handoff.CodeNotFound, Message: fmt.Sprintf("no pack %q", pack), Hint: "the packs are listed at /v1/packs"})
	return false
}
