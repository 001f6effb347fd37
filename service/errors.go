package service

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// apiError is the body of every error answer: a stable code, a message and a hint of
// what to do next. An IDENTITY_MISMATCH answer carries the recorded decision too.
type apiError struct {
	Code     string           `json:"code"`
	Message  string           `json:"message"`
	Hint     string           `json:"hint,omitempty"`
	Decision *engine.Decision `json:"decision,omitempty"`
}

// Error codes of the API (the decision's reason codes are the engine's).
const (
	codeUnauthenticated  = "UNAUTHENTICATED"
	codeForbidden        = "FORBIDDEN"
	codeNotFound         = "NOT_FOUND"
	codeBadRequest       = "BAD_REQUEST"
	codeTooLarge         = "PAYLOAD_TOO_LARGE"
	codeTimeout          = "REQUEST_TIMEOUT"
	codeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	codeIdentityMismatch = "IDENTITY_MISMATCH"
	codeNoDecision       = "NO_DECISION"
	codeInternal         = "INTERNAL"
	codeNotSupported     = "NOT_SUPPORTED"
	codeStoreUnavailable = "STORE_UNAVAILABLE"
	codeStoreBusy        = "STORE_BUSY"
	codeStoreReadOnly    = "STORE_READ_ONLY"
	codeStoreRefused     = "STORE_REFUSED"
	codeUnrecordable     = "UNRECORDABLE"
	codeNotReady         = "NOT_READY"
)

// answer is the status and body of an error answer.
type answer struct {
	status int
	body   apiError
}

// errorAnswers map the errors of the engine and the store to their answer, first match
// first. Every handler answers an error through this table (Handler.fail), so one class
// of error has one status and code on every route, and no error's own text (a socket
// address, a database message) reaches a client: the server's log has it.
var errorAnswers = []struct {
	is func(error) bool
	answer
}{
	{isAny(store.ErrUnavailable, store.ErrClosed), answer{http.StatusServiceUnavailable, apiError{Code: codeStoreUnavailable,
		Message: "the store cannot be reached: nothing was read, decided or recorded",
		Hint:    "try again once it is back; a request is treated as blocked until then, and sent again with the same request_id"}}},
	{isAny(store.ErrBusy), answer{http.StatusServiceUnavailable, apiError{Code: codeStoreBusy,
		Message: "the store's database is busy: nothing was decided or recorded",
		Hint:    "try again shortly; a request is treated as blocked until then, and sent again with the same request_id"}}},
	// What a resend cannot cure says so: its hint names who must act instead.
	{isAny(store.ErrReadOnly), answer{http.StatusServiceUnavailable, apiError{Code: codeStoreReadOnly,
		Message: "the store takes no writes (a hot standby or a read-only store): nothing was recorded",
		Hint:    "sending again will not help until the server writes to the primary; treat the request as blocked"}}},
	{isAny(store.ErrPermission, store.ErrSchema, store.ErrInconsistent), answer{http.StatusInternalServerError, apiError{Code: codeStoreRefused,
		Message: "the store refused the work: its database denies the role, holds another version's schema, or its files disagree",
		Hint:    "sending again will not help: an operator must act (the server's log says which); treat the request as blocked"}}},
	{isAny(engine.ErrUnrecordable), answer{http.StatusBadRequest, apiError{Code: codeUnrecordable,
		Message: "a field the log is keyed by (request_id, tenant_id or workflow_id) holds a secret: nothing was recorded",
		Hint:    "the request is refused as it is; send it with ids that hold no secret"}}},
	{isAny(engine.ErrDecisionNotFound), answer{http.StatusNotFound, decisionNotFound}},
	{isAny(store.ErrNotFound), answer{http.StatusNotFound, apiError{Code: codeNotFound,
		Message: "no such workflow in this tenant", Hint: "GET /v1/tenants/{tenant}/workflows lists them"}}},
	{isAny(store.ErrUnsupported), answer{http.StatusNotImplemented, apiError{Code: codeNotSupported,
		Message: "this store cannot stream a backup",
		Hint:    "back a PostgreSQL store up with pg_dump, or copy it to a directory with handoffctl copy"}}},
	{isAny(store.ErrTampered), answer{http.StatusInternalServerError, apiError{Code: codeInternal,
		Message: "the store holds a record that disagrees with its hash chain",
		Hint:    "the store was altered outside the engine: handoffctl verify tells where"}}},
}

// decisionNotFound answers a decision id no log holds, or another tenant's: its
// existence is its tenant's business.
var decisionNotFound = apiError{Code: codeNotFound, Message: "no decision with this id", Hint: "decision ids are in every decision and log entry"}

func isAny(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// answerFor is the answer to err: the table's, or otherwise.
func answerFor(err error, otherwise answer) answer {
	for _, a := range errorAnswers {
		if a.is(err) {
			return a.answer
		}
	}
	return otherwise
}

// internalError answers an error no entry of the table names.
var internalError = answer{http.StatusInternalServerError, apiError{Code: codeInternal,
	Message: "the server failed to answer", Hint: "the server's log has the cause; try again"}}

// fail answers err by the table (a read's unknown error is 500 INTERNAL) and logs it,
// unless the client went away first.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	h.failAs(w, r, err, internalError)
}

// failAs is fail with the answer to an error the table does not name.
func (h *Handler) failAs(w http.ResponseWriter, r *http.Request, err error, otherwise answer) {
	h.answerError(w, r, err, answerFor(err, otherwise))
}

// answerError answers a, and logs err when the fault is the server's.
func (h *Handler) answerError(w http.ResponseWriter, r *http.Request, err error, a answer) {
	if a.status >= 500 && !errors.Is(r.Context().Err(), context.Canceled) {
		h.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "call failed", slog.String("route", r.Pattern),
			slog.Int("status", a.status), slog.String("error", err.Error()))
	}
	writeError(w, a.status, a.body)
}

func writeError(w http.ResponseWriter, status int, e apiError) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="handoff"`)
	}
	writeJSON(w, status, e)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
