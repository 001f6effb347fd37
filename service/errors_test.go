package service

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// Every class of error has one answer, and its hint says to send again only what a
// resend can cure (store.Retryable).
func TestErrorAnswers(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
		code   string
	}{
		{store.ErrUnavailable, http.StatusServiceUnavailable, codeStoreUnavailable},
		{store.ErrBusy, http.StatusServiceUnavailable, codeStoreBusy},
		{store.ErrReadOnly, http.StatusServiceUnavailable, codeStoreReadOnly},
		{store.ErrPermission, http.StatusInternalServerError, codeStoreRefused},
		{store.ErrSchema, http.StatusInternalServerError, codeStoreRefused},
		{store.ErrInconsistent, http.StatusInternalServerError, codeStoreRefused},
		{store.ErrTampered, http.StatusInternalServerError, codeInternal},
		{engine.ErrUnrecordable, http.StatusBadRequest, codeUnrecordable},
		{errors.New("something else"), http.StatusServiceUnavailable, codeNoDecision},
	} {
		a := answerFor(fmt.Errorf("wrapped: %w", c.err), noDecision)
		assert.Equal(t, c.status, a.status, "%v", c.err)
		assert.Equal(t, c.code, a.body.Code, "%v", c.err)
		again := strings.Contains(a.body.Hint, "again with the same request_id")
		assert.Equal(t, store.Retryable(c.err), again, "%v: hint %q", c.err, a.body.Hint)
	}
}
