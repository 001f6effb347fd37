package badger

import (
	"errors"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/handoff-dev/handoff/store"
)

// badgerErrors are Badger's exported sentinels. An error whose chain holds
// one of them is flattened to its message so that no Badger value reaches
// callers.
var badgerErrors = []error{
	badger.ErrValueLogSize, badger.ErrKeyNotFound, badger.ErrTxnTooBig, badger.ErrConflict,
	badger.ErrReadOnlyTxn, badger.ErrDiscardedTxn, badger.ErrEmptyKey, badger.ErrInvalidKey,
	badger.ErrBannedKey, badger.ErrThresholdZero, badger.ErrNoRewrite, badger.ErrRejected,
	badger.ErrInvalidRequest, badger.ErrManagedTxn, badger.ErrNamespaceMode, badger.ErrInvalidDump,
	badger.ErrZeroBandwidth, badger.ErrWindowsNotSupported, badger.ErrTruncateNeeded,
	badger.ErrBlockedWrites, badger.ErrNilCallback, badger.ErrEncryptionKeyMismatch,
	badger.ErrInvalidDataKeyID, badger.ErrInvalidEncryptionKey, badger.ErrGCInMemoryMode,
	badger.ErrGCInReadOnlyMode, badger.ErrDBClosed,
}

// wrap turns an error from Badger or from the store's own checks into the
// error returned to callers. Store sentinels and typed errors pass through;
// Badger errors become an *Error for op.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var (
		se *store.StaleError
		de *store.DuplicateError
		di *store.DuplicateIDError
		ee *store.Error
	)
	switch {
	case errors.As(err, &se), errors.As(err, &de), errors.As(err, &di), errors.As(err, &ee):
		return err
	case errors.Is(err, store.ErrLocked), errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrExists),
		errors.Is(err, store.ErrIdempotencyKeyReused), errors.Is(err, store.ErrClosed),
		errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrTooLarge), errors.Is(err, store.ErrTampered):
		return err
	case errors.Is(err, store.ErrInconsistent):
		return &store.Error{Op: op, Err: err}
	case isInconsistency(err):
		return &store.Error{Op: op, Err: inconsistent(lowerFirst(err.Error()))}
	case errors.Is(err, badger.ErrDBClosed), errors.Is(err, badger.ErrBlockedWrites):
		return &store.Error{Op: op, Err: store.ErrClosed}
	case errors.Is(err, badger.ErrTxnTooBig), isSizeError(err):
		return store.ErrTooLarge
	}
	for _, b := range badgerErrors {
		if errors.Is(err, b) {
			return &store.Error{Op: op, Err: errors.New(lowerFirst(err.Error()))}
		}
	}
	return &store.Error{Op: op, Err: err}
}

// isSizeError reports whether err is Badger refusing an oversized key or
// value; its message carries a dump of the bytes, which must not reach
// callers.
func isSizeError(err error) bool {
	msg := err.Error()
	return (strings.HasPrefix(msg, "Key with size") || strings.HasPrefix(msg, "Value with size")) &&
		strings.Contains(msg, "exceeded")
}

// lowerFirst lowercases an ASCII first letter, for Badger's capitalised
// messages.
func lowerFirst(s string) string {
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}
