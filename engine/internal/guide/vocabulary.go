package guide

import "github.com/handoff-dev/handoff"

// The vocabulary's names, short for the code that derives and checks steps.
type (
	Waiting         = handoff.Waiting
	Party           = handoff.Party
	Step            = handoff.Step
	Citation        = handoff.Citation
	Lead            = handoff.Lead
	State           = handoff.State
	ArtifactRef     = handoff.ArtifactRef
	ArtifactVersion = handoff.ArtifactVersion
	Decision        = handoff.Decision
	Reason          = handoff.Reason
	Outcome         = handoff.Outcome
)

// The outcomes a dry run's answer is read by.
const (
	Block      = handoff.Block
	Fail       = handoff.Fail
	AwaitHuman = handoff.AwaitHuman
)
