package service

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/store"
)

// storeReady answers /health/ready: 200 when the store can record a decision now
// (reachable, writable, at this version's schema), else 503 NOT_READY naming the cause.
// The answer is public, so it says which cause and never the store's error, whose
// detail stays in the server's log.
func (h *Handler) storeReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	err := h.e.Ready(ctx)
	if err == nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		return
	}
	h.opts.Logger.Warn("not ready", "error", err.Error())
	e := handoff.Error{Status: http.StatusServiceUnavailable, Code: handoff.CodeNotReady, Message: "the store cannot record decisions", Hint: "the server's log says why"}
	switch {
	case errors.Is(err, store.ErrReadOnly):
		e.Message, e.Hint = "the store accepts no writes", "the database is a hot standby or read-only: point the server at the primary"
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		e.Message, e.Hint = "the store's database cannot be reached", "ready again once the database is back"
	case errors.Is(err, store.ErrSchema):
		e.Message, e.Hint = "the store's database schema is not this version's", "run handoffctl migrate with this version"
	case errors.Is(err, store.ErrPermission):
		e.Message, e.Hint = "the database refuses the store's role", "check the role and its rights"
	case errors.Is(err, store.ErrClosed):
		e.Message, e.Hint = "the store is closed", "the server is shutting down"
	}
	writeError(w, e)
}

func (h *Handler) health(w http.ResponseWriter, _ *http.Request, _ *Principal) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// healthReady answers 200 when the store can record a decision (storeReady).
func (h *Handler) healthReady(w http.ResponseWriter, r *http.Request, _ *Principal) {
	h.storeReady(w, r)
}
