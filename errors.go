package handoff

import "errors"

// Errors a Service returns, matched with errors.Is. Their text is the engine's and the
// store's, as it always was.
var (
	// ErrNotFound reports a workflow (or tenant) the store does not hold. Another
	// tenant's workflow is not found either: every read is scoped by tenant.
	ErrNotFound = errors.New("store: workflow not found")

	// ErrDecisionNotFound reports that no log holds a decision with the id asked for.
	ErrDecisionNotFound = errors.New("engine: decision not found")
)
