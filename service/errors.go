package service

import (
	"encoding/json"
	"net/http"

	"github.com/handoff-dev/handoff/engine"
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
	codeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	codeNoDecision       = "NO_DECISION"
	codeInternal         = "INTERNAL"
	codeNotSupported     = "NOT_SUPPORTED"
	codeStoreUnavailable = "STORE_UNAVAILABLE"
)

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
