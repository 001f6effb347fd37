package engine

import "github.com/handoff-dev/handoff/engine/internal/policy"

// ReasonInfo documents one reason code as a policy rule's METADATA declares it.
type ReasonInfo = policy.ReasonInfo

// Reasons lists the reason codes of the bundle's policies: one entry per rule whose
// METADATA carries custom.code, sorted by package, then code, then file and line. With
// LazyPolicies, a module that does not parse is left out (a Decider compiled at once
// refuses such a bundle).
func (dc *Decider) Reasons() []ReasonInfo { return dc.policies.Reasons() }
