package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

func TestStoreDirError(t *testing.T) {
	dir := t.TempDir()
	cause := errors.New("store: open: permission denied")
	denied := func(string) error { return syscall.EACCES }
	readOnlyFS := func(string) error { return syscall.EROFS }
	allowed := func(string) error { return nil }

	err := storeDirError(filepath.Join(dir, "missing", "db"), false, cause, denied)
	assert.EqualError(t, err, "cannot create the store "+filepath.Join(dir, "missing", "db")+": "+filepath.Join(dir, "missing")+": permission denied")
	assert.Equal(t, "choose a --store DIR whose parent directory you may write to", hint(err))

	err = storeDirError(dir, false, cause, readOnlyFS)
	assert.EqualError(t, err, "store "+dir+": read-only file system")
	assert.Equal(t, "the store is read-only for this user: read it with --read-only, or run as its owner", hint(err))

	// With --read-only, or when the user may write, the store's own error stands.
	assert.Same(t, cause, storeDirError(dir, true, cause, denied))
	assert.Same(t, cause, storeDirError(dir, false, cause, allowed))
}

// TestHintsSayWhetherToRunAgain: a hint says to run the command again only for an error
// a second run may not meet (the store package's Retryable ones).
func TestHintsSayWhetherToRunAgain(t *testing.T) {
	for _, err := range []error{store.ErrUnavailable, store.ErrBusy, store.ErrPermission, store.ErrReadOnly, store.ErrTampered, store.ErrSchema, store.ErrInconsistent} {
		wrapped := &store.Error{Op: "append", Err: fmt.Errorf("%w: cause", err)}
		h := hint(wrapped)
		require.NotEmpty(t, h, "%v", err)
		again := strings.Contains(h, "again later") || strings.Contains(h, "up and reachable")
		assert.Equal(t, store.Retryable(wrapped), again, "%v: %q", err, h)
	}
}
