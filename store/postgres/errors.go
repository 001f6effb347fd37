package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/handoff-dev/handoff/store"
)

// PostgreSQL error codes the store branches on.
const (
	codeUniqueViolation       = "23505"
	codeSerializationFailure  = "40001"
	codeDeadlock              = "40P01"
	codeUndefinedTable        = "42P01"
	codeInsufficientPrivilege = "42501"
	codeQueryCanceled         = "57014" // statement_timeout
	codeReadOnly              = "25006"
	codeUnknownDatabase       = "3D000"
	codeLockNotAvailable      = "55P03"
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
// own errors pass through; the others become an *Error for op that matches the class of
// the failure (ErrUnavailable, ErrBusy, ErrPermission, ErrReadOnly, or none: a failure
// a resend meets again) and whose message names the cause without the host, the port,
// the role or the database of the URL.
func pgWrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var (
		se  *store.StaleError
		de  *store.DuplicateError
		die *store.DuplicateIDError
		e   *store.Error
	)
	switch {
	case errors.As(err, &se), errors.As(err, &de), errors.As(err, &die), errors.As(err, &e):
		return err
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrExists), errors.Is(err, store.ErrIdempotencyKeyReused),
		errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrTooLarge), errors.Is(err, store.ErrTampered),
		errors.Is(err, store.ErrClosed), errors.Is(err, store.ErrReadOnly):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		if unavailable(err) {
			return &store.Error{Op: op, Err: fmt.Errorf("%w: %v", store.ErrUnavailable, pgCause(err))}
		}
		return err
	}
	if class := pgClass(err); class != nil {
		return &store.Error{Op: op, Err: fmt.Errorf("%w: %v", class, pgCause(err))}
	}
	return &store.Error{Op: op, Err: pgCause(err)}
}

// pgClass is the store's class of a database failure: ErrUnavailable (it cannot be
// reached, or went away), ErrBusy (out of time or resources), ErrPermission,
// ErrReadOnly, or nil for a failure a resend meets again.
func pgClass(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch c := pe.Code; {
		case c == codeReadOnly:
			return store.ErrReadOnly
		case c == codeInsufficientPrivilege, strings.HasPrefix(c, "28"): // 28: invalid authorization
			return store.ErrPermission
		case strings.HasPrefix(c, "08"), strings.HasPrefix(c, "57P0"): // connection; shutdown, starting up
			return store.ErrUnavailable
		case c == codeQueryCanceled, c == codeSerializationFailure, c == codeDeadlock, c == codeLockNotAvailable,
			strings.HasPrefix(c, "53"): // 53: insufficient resources
			return store.ErrBusy
		}
		return nil
	}
	if unavailable(err) {
		return store.ErrUnavailable
	}
	return nil
}

// unavailable reports whether err means the database could not be reached or went away:
// a failed connect, a broken connection, a server shutting down or not yet accepting
// connections (class 08 and 57P0x).
func unavailable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P0")
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return true
	}
	return pgconn.Timeout(err) || strings.Contains(err.Error(), "conn closed")
}

// pgCause is err in words, for a message that may reach whoever called the service: the
// SQLSTATE and the server's message for a statement that failed, and for a connection
// that failed or broke only why (refused, timed out, ...). pgx names the host, the port,
// the role and the database in its connection errors, and the server names the role in
// its authentication errors: none of that is repeated.
func pgCause(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch c := pe.Code; {
		case c == codeQueryCanceled:
			return fmt.Errorf("statement timeout: %s (SQLSTATE %s)", pe.Message, c)
		case c == codeReadOnly:
			return fmt.Errorf("the database accepts no writes (a hot standby, or default_transaction_read_only on): %s (SQLSTATE %s)", pe.Message, c)
		case strings.HasPrefix(c, "28"):
			return fmt.Errorf("the database refused the credentials of the store URL's role (SQLSTATE %s)", c)
		case c == codeUnknownDatabase:
			return fmt.Errorf("the database the store URL names does not exist (SQLSTATE %s)", c)
		case strings.HasPrefix(c, "08"), strings.HasPrefix(c, "57P0"):
			return fmt.Errorf("the database refused or closed the connection (SQLSTATE %s)", c)
		}
		return fmt.Errorf("%s (SQLSTATE %s)", pe.Message, pe.Code)
	}
	var dns *net.DNSError
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &dns):
		return errors.New("the host of the store URL does not resolve")
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("the connection was refused: nothing listens at the store URL's address")
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return errors.New("the host of the store URL cannot be reached")
	case pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		if errors.As(err, &ce) {
			return errors.New("connecting to the database timed out")
		}
		return errors.New("the database did not answer in time")
	case errors.As(err, &ce):
		return errors.New("cannot connect to the database")
	case errors.As(err, &ne), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		strings.Contains(err.Error(), "conn closed"):
		return errors.New("the connection to the database broke")
	}
	return err
}
