package handoff

import (
	"errors"
	"net/http"
)

// Error is the body of every error answer of the HTTP API (handoffctl serve): a stable
// code, a message and a hint of what to do next. An IDENTITY_MISMATCH answer carries
// the recorded decision too. Status is the HTTP status it came with.
type Error struct {
	Status   int       `json:"-"`
	Code     string    `json:"code"`
	Message  string    `json:"message"`
	Hint     string    `json:"hint,omitempty"`
	Decision *Decision `json:"decision,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is matches the errors the answer stands for in the table AnswerFor reads: a
// NOT_FOUND answer is ErrNotFound and ErrDecisionNotFound, a STORE_UNAVAILABLE one
// ErrUnavailable, and so on.
func (e *Error) Is(target error) bool {
	for _, a := range errorAnswers {
		if a.Code == e.Code && a.Status == e.Status && a.matches(target) {
			return true
		}
	}
	return false
}

// Error codes of the API. The reasons of a decision have codes of their own, the
// policies'.
const (
	CodeUnauthenticated  = "UNAUTHENTICATED"
	CodeForbidden        = "FORBIDDEN"
	CodeNotFound         = "NOT_FOUND"
	CodeBadRequest       = "BAD_REQUEST"
	CodeTooLarge         = "PAYLOAD_TOO_LARGE"
	CodeTimeout          = "REQUEST_TIMEOUT"
	CodeUnsupportedMedia = "UNSUPPORTED_MEDIA_TYPE"
	CodeIdentityMismatch = "IDENTITY_MISMATCH"
	CodeNoDecision       = "NO_DECISION"
	CodeInternal         = "INTERNAL"
	CodeNotSupported     = "NOT_SUPPORTED"
	CodeStoreUnavailable = "STORE_UNAVAILABLE"
	CodeStoreBusy        = "STORE_BUSY"
	CodeStoreReadOnly    = "STORE_READ_ONLY"
	CodeStoreRefused     = "STORE_REFUSED"
	CodeUnrecordable     = "UNRECORDABLE"
	CodeNotReady         = "NOT_READY"
)

// errorAnswer is one class of errors and the answer the API gives them.
type errorAnswer struct {
	Errs []error // the errors of the class, matched with errors.Is
	Error
}

func (a errorAnswer) matches(err error) bool {
	for _, t := range a.Errs {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// errorAnswers map the errors of the engine and the store to their answer, first match
// first: the server answers every error through it, and the Go client reads an answer
// back into the errors it stands for, so one class of error has one status and code on
// every route. No error's own text (a socket address, a database message) reaches a
// client: the server's log has it.
var errorAnswers = []errorAnswer{
	{[]error{ErrUnavailable, ErrClosed}, Error{Status: http.StatusServiceUnavailable, Code: CodeStoreUnavailable,
		Message: "the store cannot be reached: nothing was read, decided or recorded",
		Hint:    "try again once it is back; a request is treated as blocked until then, and sent again with the same request_id"}},
	{[]error{ErrBusy}, Error{Status: http.StatusServiceUnavailable, Code: CodeStoreBusy,
		Message: "the store's database is busy: nothing was decided or recorded",
		Hint:    "try again shortly; a request is treated as blocked until then, and sent again with the same request_id"}},
	// What a resend cannot cure says so: its hint names who must act instead.
	{[]error{ErrReadOnly}, Error{Status: http.StatusServiceUnavailable, Code: CodeStoreReadOnly,
		Message: "the store takes no writes (a hot standby or a read-only store): nothing was recorded",
		Hint:    "sending again will not help until the server writes to the primary; treat the request as blocked"}},
	{[]error{ErrPermission, ErrSchema, ErrInconsistent}, Error{Status: http.StatusInternalServerError, Code: CodeStoreRefused,
		Message: "the store refused the work: its database denies the role, holds another version's schema, or its files disagree",
		Hint:    "sending again will not help: an operator must act (the server's log says which); treat the request as blocked"}},
	{[]error{ErrUnrecordable}, Error{Status: http.StatusBadRequest, Code: CodeUnrecordable,
		Message: "a field the log is keyed by (request_id, tenant_id or workflow_id) holds a secret: nothing was recorded",
		Hint:    "the request is refused as it is; send it with ids that hold no secret"}},
	{[]error{ErrDecisionNotFound}, DecisionNotFound},
	{[]error{ErrNotFound}, Error{Status: http.StatusNotFound, Code: CodeNotFound,
		Message: "no such workflow in this tenant", Hint: "GET /v1/tenants/{tenant}/workflows lists them"}},
	{[]error{ErrUnsupported}, Error{Status: http.StatusNotImplemented, Code: CodeNotSupported,
		Message: "this store cannot stream a backup",
		Hint:    "back a PostgreSQL store up with pg_dump, or copy it to a directory with handoffctl copy"}},
	{[]error{ErrTampered}, Error{Status: http.StatusInternalServerError, Code: CodeInternal,
		Message: "the store holds a record that disagrees with its hash chain",
		Hint:    "the store was altered outside the engine: handoffctl verify tells where"}},
}

// DecisionNotFound answers a decision id no log holds, or another tenant's: its
// existence is its tenant's business.
var DecisionNotFound = Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "no decision with this id", Hint: "decision ids are in every decision and log entry"}

// AnswerFor returns the answer errorAnswers give err; ok is false when no class names
// err.
func AnswerFor(err error) (ans Error, ok bool) {
	for _, a := range errorAnswers {
		if a.matches(err) {
			return a.Error, true
		}
	}
	return Error{}, false
}
