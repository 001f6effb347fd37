package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL error codes the store branches on.
const (
	codeUniqueViolation      = "23505"
	codeSerializationFailure = "40001"
	codeDeadlock             = "40P01"
	codeUndefinedTable       = "42P01"
	codeQueryCanceled        = "57014" // statement_timeout
	codeReadOnly             = "25006"
)

// errConflict says another writer committed first: the append is tried again.
var errConflict = errors.New("store: a concurrent append committed first")

// conflict reports whether err is a transaction that lost to another writer: a key
// another transaction committed (23505) or a serialization failure. Either way nothing
// was written and the append, tried again, sees the winner.
func conflict(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == codeUniqueViolation || pe.Code == codeSerializationFailure || pe.Code == codeDeadlock
	}
	return errors.Is(err, errConflict)
}

// pgWrap turns an error of the database into the error returned to callers: the store's
// own errors pass through, a database that cannot be reached matches ErrUnavailable,
// and anything else is an *Error for op.
func pgWrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var (
		se  *StaleError
		de  *DuplicateError
		die *DuplicateIDError
		e   *Error
	)
	switch {
	case errors.As(err, &se), errors.As(err, &de), errors.As(err, &die), errors.As(err, &e):
		return err
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrExists), errors.Is(err, ErrIdempotencyKeyReused),
		errors.Is(err, ErrInvalid), errors.Is(err, ErrTooLarge), errors.Is(err, ErrTampered),
		errors.Is(err, ErrClosed), errors.Is(err, ErrReadOnly):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		if unavailable(err) {
			return &Error{Op: op, Err: fmt.Errorf("%w: %v", ErrUnavailable, pgCause(err))}
		}
		return err
	case unavailable(err):
		return &Error{Op: op, Err: fmt.Errorf("%w: %v", ErrUnavailable, pgCause(err))}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == codeReadOnly {
		return &Error{Op: op, Err: ErrReadOnly}
	}
	return &Error{Op: op, Err: pgCause(err)}
}

// unavailable reports whether err means the database could not be reached or went away:
// a failed connect, a broken connection, a server shutting down or not yet accepting
// connections (class 08 and 57P0x).
func unavailable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return true
	case errors.As(err, &pe):
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P0")
	}
	return pgconn.Timeout(err) || strings.Contains(err.Error(), "conn closed")
}

// pgCause is err in words, with a server error's code, and with a statement timeout
// named as such.
func pgCause(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Code == codeQueryCanceled {
			return fmt.Errorf("statement timeout: %s (SQLSTATE %s)", pe.Message, pe.Code)
		}
		return fmt.Errorf("%s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	return err
}
