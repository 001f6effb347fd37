package engine

import "github.com/handoff-dev/handoff"

// Outcome is handoff.Outcome.
type Outcome = handoff.Outcome

// The outcomes a decision can have (handoff.Allow, ...).
const (
	Allow      = handoff.Allow
	AwaitHuman = handoff.AwaitHuman
	Retry      = handoff.Retry
	Revise     = handoff.Revise
	Block      = handoff.Block
	Fail       = handoff.Fail
)

// Reason is handoff.Reason.
type Reason = handoff.Reason

// Next is handoff.Next.
type Next = handoff.Next

// NextContext is handoff.NextContext.
type NextContext = handoff.NextContext

// RetryPlan is handoff.RetryPlan.
type RetryPlan = handoff.RetryPlan

// Revision is handoff.Revision.
type Revision = handoff.Revision

// PolicyRef is handoff.PolicyRef.
type PolicyRef = handoff.PolicyRef

// Decision is handoff.Decision.
type Decision = handoff.Decision
