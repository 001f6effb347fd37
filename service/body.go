package service

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/handoff-dev/handoff"
)

// Request bodies are bounded in size (the engine's limit) and in time: a body must
// arrive within bodyFloor plus its length at minBodyRate, so a client that stalls or
// trickles holds a connection for seconds, not for the server's read timeout.
const (
	minBodyRate = 256 << 10 // bytes per second: 4 s per MiB
	bodyFloor   = 5 * time.Second
	// A body left unread by the answer (past the limit, or refused before it was read:
	// 401, 415) is read and thrown away, up to drainMax bytes within drainTime, before
	// the connection closes: a client that writes its whole body before it reads then
	// gets the answer, not a reset connection.
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
		h.tooLarge(w)
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
		writeError(w, handoff.Error{Status: http.StatusRequestTimeout, Code: handoff.CodeTimeout,
			Message: fmt.Sprintf("the request body did not arrive within %s", bodyDeadline(n).Round(time.Second)),
			Hint:    fmt.Sprintf("send the whole body at once: the server waits %s plus 1 s per %d KiB", bodyFloor, minBodyRate>>10)})
		return nil, false
	case err != nil:
		w.Header().Set("Connection", "close")
		writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest, Message: "the request body could not be read",
			Hint: "send the whole body its Content-Length or chunked encoding announces"})
		return nil, false
	case int64(len(body)) > h.limit:
		h.tooLarge(w)
		return nil, false
	}
	// The body is in; lift its deadline, or a read of the connection the server keeps
	// pending while the decision is made would fail at it and cancel the call's context.
	_ = rc.SetReadDeadline(time.Time{})
	return body, true
}

// tooLarge answers 413 to a body past the limit; what is left of it is drained.
func (h *Handler) tooLarge(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	writeError(w, handoff.Error{Status: http.StatusRequestEntityTooLarge, Code: handoff.CodeTooLarge,
		Message: fmt.Sprintf("the request body is larger than %d bytes, the engine's limit", h.limit),
		Hint:    fmt.Sprintf("a request is at most %d bytes (engine.Limits.MaxBytes)", h.limit)})
}

// drainedBody is a request body that can be drained once the call is answered.
type drainedBody struct {
	io.ReadCloser
	started bool  // a read was asked for: the client was told to send (100 Continue)
	err     error // the error that ended reading: io.EOF when it was all read
}

// takeBody makes r's body drainable; the full duplex mode lets it be read after the
// answer is sent.
func takeBody(w http.ResponseWriter, r *http.Request) *drainedBody {
	_ = http.NewResponseController(w).EnableFullDuplex() // HTTP/2 is full duplex anyway
	b := &drainedBody{ReadCloser: r.Body}
	r.Body = b
	return b
}

func (b *drainedBody) Read(p []byte) (int, error) {
	b.started = true
	n, err := b.ReadCloser.Read(p)
	if err != nil && b.err == nil {
		b.err = err
	}
	return n, err
}

// drain sends the answer, then reads and throws away what the client still sends of
// the body, within drainMax and drainTime. A body that failed to arrive (a deadline, a
// broken encoding) is not waited for again, nor one the client holds back until told
// to send it.
func (b *drainedBody) drain(w http.ResponseWriter, r *http.Request) {
	expects := strings.EqualFold(r.Header.Get("Expect"), "100-continue")
	if b.err != nil || r.ContentLength == 0 || expects && !b.started {
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now().Add(drainTime))
	_, _ = io.CopyN(io.Discard, b.ReadCloser, drainMax)
}
