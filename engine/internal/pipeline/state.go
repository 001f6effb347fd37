package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// NewState is the state of a workflow a start request would create.
func NewState(workflowID, tenantID, orgID, pack, subjectID, status, now string) *State {
	s := &State{
		WorkflowID: workflowID, TenantID: tenantID, OrganizationID: orgID, Pack: pack,
		SubjectID: subjectID, Status: status, CreatedAt: now, UpdatedAt: now,
	}
	EnsureMaps(s)
	return s
}

// EnsureMaps gives every map and list a value, so policies never see null indices.
func EnsureMaps(s *State) {
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

// DecodeState reads a state snapshot, numbers kept exact.
func DecodeState(b []byte) (*State, error) {
	var s State
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("decode state snapshot: %w", err)
	}
	EnsureMaps(&s)
	return &s, nil
}

// FormatTime is a time as decisions and states record it.
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// ToValue turns a Go struct into the plain JSON values policies read.
func ToValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return DecodeJSON(b)
}

// DecodeJSON reads a JSON value, numbers kept exact.
func DecodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
