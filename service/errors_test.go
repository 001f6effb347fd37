package service

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/handoff-dev/handoff"
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
		{store.ErrUnavailable, http.StatusServiceUnavailable, handoff.CodeStoreUnavailable},
		{store.ErrBusy, http.StatusServiceUnavailable, handoff.CodeStoreBusy},
		{store.ErrReadOnly, http.StatusServiceUnavailable, handoff.CodeStoreReadOnly},
		{store.ErrPermission, http.StatusInternalServerError, handoff.CodeStoreRefused},
		{store.ErrSchema, http.StatusInternalServerError, handoff.CodeStoreRefused},
		{store.ErrInconsistent, http.StatusInternalServerError, handoff.CodeStoreRefused},
		{store.ErrTampered, http.StatusInternalServerError, handoff.CodeInternal},
		{engine.ErrUnrecordable, http.StatusBadRequest, handoff.CodeUnrecordable},
		{errors.New("something else"), http.StatusServiceUnavailable, handoff.CodeNoDecision},
	} {
		a := answerFor(fmt.Errorf("wrapped: %w", c.err), noDecision)
		assert.Equal(t, c.status, a.Status, "%v", c.err)
		assert.Equal(t, c.code, a.Code, "%v", c.err)
		again := strings.Contains(a.Hint, "again with the same request_id")
		assert.Equal(t, store.Retryable(c.err), again, "%v: hint %q", c.err, a.Hint)
	}
}
