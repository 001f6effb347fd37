package handoff

import "errors"

// Errors a Service returns, matched with errors.Is; store and engine return these very
// values (store.ErrNotFound is ErrNotFound), so a host branches on them whether it
// embeds the engine or calls a server. Their text is the store's and the engine's.
var (
	// ErrNotFound reports that the tenant asked for holds no such workflow. Another
	// tenant's workflow is not found either: every read is scoped by tenant.
	ErrNotFound = errors.New("store: workflow not found")

	// ErrDecisionNotFound reports that no log holds a decision with the id asked for.
	ErrDecisionNotFound = errors.New("engine: decision not found")

	// ErrUnrecordable reports a request whose ids (request_id, tenant_id or
	// workflow_id) hold content that must be redacted: it cannot be recorded.
	ErrUnrecordable = errors.New("engine: the request cannot be recorded: a field the log is keyed by (request_id, tenant_id or workflow_id) holds content that must be redacted")

	// ErrReadOnly reports a write to a store that takes none (opened read-only, or a
	// database that accepts no writes): sending it again cannot help.
	ErrReadOnly = errors.New("store: read-only")

	// ErrClosed reports a call made after the store was closed.
	ErrClosed = errors.New("store: store closed")

	// ErrUnavailable reports a store whose database cannot be reached: nothing was
	// decided; the same call made once it is back succeeds.
	ErrUnavailable = errors.New("store: database unavailable")

	// ErrBusy reports a database that could not do the work in time or with what it
	// had: nothing was written; the same call made again later may succeed.
	ErrBusy = errors.New("store: database busy")

	// ErrPermission reports a database that refuses the store's role something it
	// needs: granting the right (or fixing the URL) helps, sending again does not.
	ErrPermission = errors.New("store: permission denied by the database")

	// ErrSchema reports a database whose schema is not at the version the store needs.
	ErrSchema = errors.New("store: database schema")

	// ErrUnsupported reports a call the store's backend does not offer.
	ErrUnsupported = errors.New("store: not supported by this backend")

	// ErrInconsistent reports a store whose files do not agree with each other (a copy
	// made while a process was writing, or a damaged disk).
	ErrInconsistent = errors.New("store: the store's files do not agree with each other")

	// ErrTampered reports a read that found a value disagreeing with the hash chain:
	// the store was altered outside the engine.
	ErrTampered = errors.New("store: the log was altered")
)
