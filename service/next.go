package service

import (
	"fmt"
	"net/http"
	"time"

	"github.com/handoff-dev/handoff"
)

// next answers what a workflow waits for, as handoffctl next -o json: who may act, what
// each may send and cite, and what the policy says of each step at the time asked (the
// query's at, RFC 3339 with a zone; default now).
func (h *Handler) next(w http.ResponseWriter, r *http.Request, t string) {
	at := time.Now()
	if q := r.URL.Query().Get("at"); q != "" {
		var err error
		if at, err = time.Parse(time.RFC3339Nano, q); err != nil {
			writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest,
				Message: fmt.Sprintf("at %q is not an RFC 3339 time with a zone", q),
				Hint:    "write at as 2026-11-02T09:30:00Z, or leave it out for now"})
			return
		}
	}
	st, err := h.e.State(r.Context(), t, r.PathValue("workflow"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	waiting, err := h.e.Decider().WaitingAt(r.Context(), st, at)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, waiting)
}

// ownNext is next for the calling principal's own tenant.
func (h *Handler) ownNext(w http.ResponseWriter, r *http.Request, p *Principal) {
	h.next(w, r, p.Tenant)
}
