package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStaleErrorMessage(t *testing.T) {
	err := error(&StaleError{Expected: 3, Actual: 4})
	assert.Equal(t, "store: stale state version: expected 3, actual 4", err.Error())
	assert.ErrorIs(t, err, ErrStale)
	assert.NotErrorIs(t, err, ErrDuplicate)
	dup := error(&DuplicateError{Record: Record{Seq: 1}})
	assert.Equal(t, "store: duplicate request", dup.Error())
	assert.ErrorIs(t, dup, ErrDuplicate)
	assert.NotErrorIs(t, dup, ErrStale)
}
