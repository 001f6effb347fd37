package main

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
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
