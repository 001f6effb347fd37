package engine

import "github.com/handoff-dev/handoff"

// State is handoff.State.
type State = handoff.State

// Task is handoff.Task.
type Task = handoff.Task

// ArtifactHistory is handoff.ArtifactHistory.
type ArtifactHistory = handoff.ArtifactHistory

// ArtifactVersion is handoff.ArtifactVersion.
type ArtifactVersion = handoff.ArtifactVersion

// Conflict is handoff.Conflict.
type Conflict = handoff.Conflict

// ApprovalRecord is handoff.ApprovalRecord.
type ApprovalRecord = handoff.ApprovalRecord

// DefectRecord is handoff.DefectRecord.
type DefectRecord = handoff.DefectRecord
