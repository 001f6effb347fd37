package service

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Request bodies are bounded in size (the engine's limit) and in time: a body must
// arrive within bodyFloor plus its length at minBodyRate, so a client that stalls or
// trickles holds a connection for seconds, not for the server's read timeout.
const (
	minBodyRate = 256 << 10 // bytes per second: 4 s per MiB
	bodyFloor   = 5 * time.Second
	// A body past the limit is read and thrown away, up to drainMax bytes within
	// drainTime, before the connection closes: a client that writes its whole body
	// before it reads then gets the 413, not a reset connection.
	drainMax  = 32 << 20
	drainTime = 5 * time.Second
)

// bodyDeadline is how long a body of n bytes may take to arrive.
func bodyDeadline(n int64) time.Duration {
	return bodyFloor + time.Duration(n)*time.Second/minBodyRate
}

// readBody reads a request's body within the engine's limit and the body's deadline. A
// body past the limit is answered 413, one that does not arrive in time 408, one that
// cannot be read 400; ok is false then.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	rc := http.NewResponseController(w)
	if r.ContentLength > h.limit {
		// Declared too large: nothing is read, unless the client sends it anyway.
		h.tooLarge(w, r, rc, !strings.EqualFold(r.Header.Get("Expect"), "100-continue"))
		return nil, false
	}
	n := h.limit
	if r.ContentLength >= 0 {
		n = r.ContentLength
	}
	_ = rc.SetReadDeadline(time.Now().Add(bodyDeadline(n)))
	body, err := io.ReadAll(io.LimitReader(r.Body, h.limit+1))
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, apiError{Code: codeTimeout,
			Message: fmt.Sprintf("the request body did not arrive within %s", bodyDeadline(n).Round(time.Second)),
			Hint:    fmt.Sprintf("send the whole body at once: the server waits %s plus 1 s per %d KiB", bodyFloor, minBodyRate>>10)})
		return nil, false
	case err != nil:
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusBadRequest, apiError{Code: codeBadRequest, Message: "the request body could not be read",
			Hint: "send the whole body its Content-Length or chunked encoding announces"})
		return nil, false
	case int64(len(body)) > h.limit:
		h.tooLarge(w, r, rc, true)
		return nil, false
	}
	// The body is in; lift its deadline, or a read of the connection the server keeps
	// pending while the decision is made would fail at it and cancel the call's context.
	_ = rc.SetReadDeadline(time.Time{})
	return body, true
}

// tooLarge answers 413 to a body past the limit and, with drain, then reads and throws
// away what the client still sends, within drainMax and drainTime, before the
// connection closes.
func (h *Handler) tooLarge(w http.ResponseWriter, r *http.Request, rc *http.ResponseController, drain bool) {
	_ = rc.EnableFullDuplex() // read the rest of the body after the answer is sent
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusRequestEntityTooLarge, apiError{Code: codeTooLarge,
		Message: fmt.Sprintf("the request body is larger than %d bytes, the engine's limit", h.limit),
		Hint:    fmt.Sprintf("a request is at most %d bytes (engine.Limits.MaxBytes)", h.limit)})
	if !drain {
		return
	}
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(drainTime))
	_, _ = io.CopyN(io.Discard, r.Body, drainMax)
}
