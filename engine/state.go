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

// newState is the state of a workflow a start request would create.
func newState(workflowID, tenantID, orgID, pack, subjectID, status, now string) *State {
	s := &State{
		WorkflowID: workflowID, TenantID: tenantID, OrganizationID: orgID, Pack: pack,
		SubjectID: subjectID, Status: status, CreatedAt: now, UpdatedAt: now,
	}
	ensureMaps(s)
	return s
}

// ensureMaps gives every map and list a value, so policies never see null indices.
func ensureMaps(s *State) {
	if s.Artifacts == nil {
		s.Artifacts = map[string]*ArtifactHistory{}
	}
	if s.Counters == nil {
		s.Counters = map[string]int{}
	}
	if s.Edges == nil {
		s.Edges = map[string]int{}
	}
	if s.InputHashes == nil {
		s.InputHashes = map[string]bool{}
	}
	if s.RecentEdges == nil {
		s.RecentEdges = []string{}
	}
	if s.StageHandoffs == nil {
		s.StageHandoffs = map[string]int{}
	}
	if s.Conflicts == nil {
		s.Conflicts = map[string]*Conflict{}
	}
	if s.Approvals == nil {
		s.Approvals = map[string]*ApprovalRecord{}
	}
	if s.Defects == nil {
		s.Defects = map[string]*DefectRecord{}
	}
	if s.Effects == nil {
		s.Effects = map[string]string{}
	}
	if s.Tasks == nil {
		s.Tasks = map[string]*Task{}
	}
}
