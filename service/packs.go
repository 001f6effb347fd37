package service

import (
	"fmt"
	"net/http"

	"github.com/handoff-dev/handoff"
)

func (h *Handler) packs(w http.ResponseWriter, r *http.Request, _ *Principal) {
	writeJSON(w, http.StatusOK, map[string]any{"bundle_digest": h.e.Decider().BundleDigest(), "packs": h.e.Decider().Packs()})
}

// contract answers one pack's contract tables as exported from its CUE (the data its
// Rego reads): agents and what each produces, artifact contracts and their fields,
// context packages, limits, the workflow, and its configuration tables. Hosts derive
// their agents' tools from it.
func (h *Handler) contract(w http.ResponseWriter, r *http.Request, _ *Principal) {
	pack := r.PathValue("pack")
	tables, ok := h.e.Decider().Tables(pack)
	if !ok {
		writeError(w, handoff.Error{Status: http.StatusNotFound, Code: handoff.CodeNotFound, Message: fmt.Sprintf("no pack %q", pack), Hint: "the packs are listed at /v1/packs"})
		return
	}
	answer := map[string]any{"bundle_digest": h.e.Decider().BundleDigest(), "pack": pack, "tables": tables}
	if config, ok := h.e.Decider().Config(pack); ok {
		answer["config"] = config
	}
	writeJSON(w, http.StatusOK, answer)
}

func (h *Handler) reasons(w http.ResponseWriter, r *http.Request, _ *Principal) {
	writeJSON(w, http.StatusOK, map[string]any{"bundle_digest": h.e.Decider().BundleDigest(), "reasons": h.e.Decider().Reasons()})
}
