package chain

import (
	"fmt"
	"net/url"

	"github.com/handoff-dev/handoff/store"
)

// ErrTooManyConflicts is an append that lost to other writers every time it was tried.
var ErrTooManyConflicts = fmt.Errorf("%w: too many conflicting writers", store.ErrBusy)

// IDNotFound is Find's answer for an id no record has; it matches ErrNotFound.
type IDNotFound struct{ ID string }

func (e IDNotFound) Error() string { return fmt.Sprintf("store: no record with id %q", e.ID) }

func (e IDNotFound) Is(target error) bool { return target == store.ErrNotFound }

// CallbackError carries an error returned by a caller's callback through a
// Badger transaction so that it comes back unwrapped.
type CallbackError struct{ Err error }

func (e CallbackError) Error() string { return e.Err.Error() }

// RedactURL is u without its password, for messages.
func RedactURL(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return "(unreadable URL)"
	}
	return parsed.Redacted()
}

// Invalid returns ErrInvalid with a reason.
func Invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", store.ErrInvalid, fmt.Sprintf(format, args...))
}
