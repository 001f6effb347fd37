package badger

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
)

// copyHint is what to do about a store whose files disagree.
const copyHint = "a copy of a store's directory made (cp, rsync) while a process wrote it is not a backup: " +
	"copy a live store with 'handoffctl backup' (or GET /v1/backup) and make a store of the copy with 'handoffctl restore'"

// inconsistent is ErrInconsistent with what was found and what to do.
func inconsistent(what string) error {
	return fmt.Errorf("%w: %s: %s", store.ErrInconsistent, what, copyHint)
}

// isInconsistency reports whether err is Badger finding its files in disagreement: a
// table the manifest names missing, a checksum that does not match. Badger flattens
// these into messages, so the message is all there is to go by.
func isInconsistency(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"does not exist for table", "checksum mismatch", "manifest", "invalid read: len", "unable to replay logfile",
		"while opening memtables", "truncate"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// itemValue copies the value of item. Badger answers a key that points into the value
// log past its end (a copy of the log taken before the key's table) with an empty
// value and no error: a store never writes an empty value, so that is ErrInconsistent.
func itemValue(item *badger.Item) ([]byte, error) {
	v, err := item.ValueCopy(nil)
	if err == nil && len(v) == 0 && item.ValueSize() > 0 {
		return nil, inconsistent(fmt.Sprintf("the value of key %q is missing from the value log", item.Key()))
	}
	return v, err
}

// withItemValue calls fn with the value of item, as itemValue reads it, without a copy.
func withItemValue(item *badger.Item, fn func(v []byte) error) error {
	return item.Value(func(v []byte) error {
		if len(v) == 0 && item.ValueSize() > 0 {
			return inconsistent(fmt.Sprintf("the value of key %q is missing from the value log", item.Key()))
		}
		return fn(v)
	})
}

// lockPIDFile is the file in which Badger keeps the pid of the process that holds a
// directory, removed when it closes the store.
const lockPIDFile = "LOCK"

// liveLockOwner returns the pid the lock file of dir names when that process is running
// and is not this one: the directory is then a copy of the store that process holds
// (a stopped process leaves the file behind too, but is not running; a pid reused by
// another process is told apart only by its being unlikely).
func liveLockOwner(dir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(dir, lockPIDFile))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || pid == os.Getpid() || !processRunning(pid) {
		return 0, false
	}
	return pid, true
}

// openError is the error of a Badger directory that would not open. owner is the
// running process whose lock file the directory holds, 0 for none.
func openError(err error, owner int) error {
	if owner == 0 && !isInconsistency(err) {
		return wrap("open", err)
	}
	what := lowerFirst(err.Error())
	if owner != 0 {
		what += fmt.Sprintf(" (the directory holds the lock file of process %d, which is running: it was copied while that process held it)", owner)
	}
	return &store.Error{Op: "open", Err: inconsistent(what)}
}
