package service

import (
	"errors"
	"net/http"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

func (h *Handler) audit(w http.ResponseWriter, r *http.Request, t string) {
	entries := []engine.Entry{}
	err := h.e.Audit(r.Context(), t, func(e engine.Entry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) { // no audit stream yet: an empty one
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenant_id": t, "entries": entries})
}
