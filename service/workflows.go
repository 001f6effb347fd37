package service

import (
	"net/http"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
)

func (h *Handler) workflows(w http.ResponseWriter, r *http.Request, t string) {
	q := r.URL.Query()
	awaiting := q.Get("awaiting")
	if awaiting != "" && awaiting != "human" {
		writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest, Message: "awaiting must be human", Hint: "awaiting=human lists the workflows that wait for a person"})
		return
	}
	out, err := h.e.ListWorkflows(r.Context(), t, engine.WorkflowFilter{Pack: q.Get("pack"), Status: q.Get("status"), AwaitingHuman: awaiting == "human"})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenant_id": t, "workflows": out})
}

func (h *Handler) state(w http.ResponseWriter, r *http.Request, t string) {
	st, err := h.e.State(r.Context(), t, r.PathValue("workflow"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) history(w http.ResponseWriter, r *http.Request, t string) {
	wf := r.PathValue("workflow")
	if _, err := h.e.State(r.Context(), t, wf); err != nil {
		h.fail(w, r, err)
		return
	}
	entries := []engine.Entry{}
	err := h.e.History(r.Context(), t, wf, func(e engine.Entry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenant_id": t, "workflow_id": wf, "entries": entries})
}
