package service

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/handoff-dev/handoff"
)

// internalError answers an error the table of handoff.AnswerFor does not name.
var internalError = handoff.Error{Status: http.StatusInternalServerError, Code: handoff.CodeInternal,
	Message: "the server failed to answer", Hint: "the server's log has the cause; try again"}

// answerFor is the answer handoff.AnswerFor gives err, or otherwise. Every handler
// answers an error through it (Handler.fail), so one class of error has one status and
// code on every route.
func answerFor(err error, otherwise handoff.Error) handoff.Error {
	if a, ok := handoff.AnswerFor(err); ok {
		return a
	}
	return otherwise
}

// fail answers err by the table (a read's unknown error is 500 INTERNAL) and logs it,
// unless the client went away first.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	h.failAs(w, r, err, internalError)
}

// failAs is fail with the answer to an error the table does not name.
func (h *Handler) failAs(w http.ResponseWriter, r *http.Request, err error, otherwise handoff.Error) {
	h.answerError(w, r, err, answerFor(err, otherwise))
}

// answerError answers a, and logs err when the fault is the server's.
func (h *Handler) answerError(w http.ResponseWriter, r *http.Request, err error, a handoff.Error) {
	if a.Status >= 500 && !errors.Is(r.Context().Err(), context.Canceled) {
		h.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "call failed", slog.String("route", r.Pattern),
			slog.Int("status", a.Status), slog.String("error", err.Error()))
	}
	writeError(w, a)
}

func writeError(w http.ResponseWriter, e handoff.Error) {
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="handoff"`)
	}
	writeJSON(w, e.Status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
