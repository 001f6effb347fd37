package pipeline

import "github.com/handoff-dev/handoff"

// The vocabulary's names, short for the stages that use them on every line.
type (
	Decision        = handoff.Decision
	Reason          = handoff.Reason
	Next            = handoff.Next
	Event           = handoff.Event
	ArtifactRef     = handoff.ArtifactRef
	State           = handoff.State
	Task            = handoff.Task
	ArtifactHistory = handoff.ArtifactHistory
	ArtifactVersion = handoff.ArtifactVersion
	Conflict        = handoff.Conflict
	ApprovalRecord  = handoff.ApprovalRecord
	DefectRecord    = handoff.DefectRecord
	Defect          = handoff.Defect
	NextContext     = handoff.NextContext
	ValidationError = handoff.ValidationError
	Redaction       = handoff.Redaction
	Principal       = handoff.Principal
	TextHit         = handoff.TextHit
	PolicyRef       = handoff.PolicyRef
	Explanation     = handoff.Explanation
	RuleInfo        = handoff.RuleInfo
	FiredRule       = handoff.FiredRule
	InputValue      = handoff.InputValue
	ExplainedReason = handoff.ExplainedReason
)

// Revision is handoff.Revision.
type Revision = handoff.Revision
