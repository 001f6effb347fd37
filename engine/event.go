package engine

import "github.com/handoff-dev/handoff"

// Event is handoff.Event.
type Event = handoff.Event

// ArtifactRef is handoff.ArtifactRef.
type ArtifactRef = handoff.ArtifactRef

// Defect is handoff.Defect.
type Defect = handoff.Defect
