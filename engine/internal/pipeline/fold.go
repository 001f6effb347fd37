package pipeline

import (
	"fmt"
	"strconv"

	"github.com/handoff-dev/handoff/engine/internal/contract"
)

// artifactTransitions lists the status changes a recorded version may make. Approved
// versions never go back: a correction is a new version.
var artifactTransitions = map[string]map[string]bool{
	"draft":             {"under_review": true, "revision_required": true, "approved": true, "superseded": true, "rejected": true},
	"under_review":      {"revision_required": true, "approved": true, "superseded": true, "rejected": true},
	"revision_required": {"superseded": true, "rejected": true},
	"approved":          {"superseded": true, "final": true},
	"superseded":        {},
	"final":             {},
	"rejected":          {},
}

// Fold applies a decision's events and status to the state. It refuses any event that
// would break an engine invariant; the caller then fails closed.
func Fold(s *State, d *Decision, pc *contract.Pack, now string) error {
	for i, e := range d.Events {
		if err := applyEvent(s, e, pc.Window, now); err != nil {
			return fmt.Errorf("event %d (%s): %w", i, e.Type, err)
		}
	}
	s.Status = d.StatusAfter
	s.Terminal = pc.Terminal[d.StatusAfter]
	s.UpdatedAt = now
	return nil
}

func applyEvent(s *State, e Event, window int, now string) error {
	switch e.Type {
	case "artifact_recorded":
		return recordArtifact(s, e, now)
	case "artifact_status":
		return setArtifactStatus(s, e.Artifact, e.Version, e.Status)
	case "handoff_accepted":
		edge := e.Source + ">" + e.Target
		s.Edges[edge]++
		s.InputHashes[edge+"|"+e.InputHash] = true
		s.RecentEdges = append(s.RecentEdges, edge)
		if window > 0 && len(s.RecentEdges) > window {
			s.RecentEdges = append([]string{}, s.RecentEdges[len(s.RecentEdges)-window:]...)
		}
		s.StageHandoffs[e.Stage]++
	case "counter":
		switch {
		case e.Delta != nil:
			s.Counters[e.Name] += *e.Delta
		case e.Value != nil:
			s.Counters[e.Name] = *e.Value
		default:
			return fmt.Errorf("counter %s has neither delta nor value", e.Name)
		}
	case "conflict_opened":
		if _, ok := s.Conflicts[e.ID]; ok {
			return fmt.Errorf("conflict %s already exists", e.ID)
		}
		s.Conflicts[e.ID] = &Conflict{ID: e.ID, ConflictType: e.ConflictType, Status: "open",
			Artifacts: nonNil(e.Artifacts), Description: e.Description, RaisedBy: e.RaisedBy}
		s.OpenConflicts++
	case "conflict_resolved":
		c, ok := s.Conflicts[e.ID]
		if !ok || c.Status != "open" {
			return fmt.Errorf("conflict %s is not open", e.ID)
		}
		c.Status, c.ResolvedBy = "resolved", e.By
		s.OpenConflicts--
	case "approval_recorded":
		rec := &ApprovalRecord{Decision: e.Decision, By: e.By, Artifacts: nonNil(e.Artifacts)}
		for _, ref := range e.Artifacts {
			s.Approvals[ref.Type] = rec
		}
		if e.Stage != "" {
			s.Approvals[e.Stage] = rec
		}
	case "defect":
		if e.Defect == nil {
			return fmt.Errorf("defect event without a defect")
		}
		// A defect id names one defect of one artifact for good: reusing it for another
		// artifact would reopen or close that artifact's defect in passing.
		if prev, ok := s.Defects[e.Defect.ID]; ok && prev.Defect.Artifact != e.Defect.Artifact {
			return fmt.Errorf("defect %s is a defect of %s, not of %s", e.Defect.ID, prev.Defect.Artifact, e.Defect.Artifact)
		}
		s.Defects[e.Defect.ID] = &DefectRecord{Defect: *e.Defect, Status: e.Status}
	case "effect":
		s.Effects[e.ID] = e.Status
	case "task":
		t := s.Tasks[e.ID]
		if t == nil {
			t = &Task{DependsOn: []string{}}
			s.Tasks[e.ID] = t
		}
		t.Status = e.Status
		if e.Agent != "" {
			t.Agent = e.Agent
		}
		if e.DependsOn != nil {
			t.DependsOn = nonNil(*e.DependsOn)
		}
	default:
		return fmt.Errorf("unknown event type %q", e.Type)
	}
	return nil
}

func recordArtifact(s *State, e Event, now string) error {
	if e.Ref == nil {
		return fmt.Errorf("artifact_recorded without ref")
	}
	ref := *e.Ref
	h := s.Artifacts[ref.Type]
	switch {
	case h == nil && ref.Version != 1:
		return fmt.Errorf("%s: first version must be 1, got %d", ref.Type, ref.Version)
	case h != nil && ref.ID != h.ID:
		return fmt.Errorf("%s: artifact id %s differs from recorded %s", ref.Type, ref.ID, h.ID)
	case h != nil && ref.Version != h.Latest+1:
		return fmt.Errorf("%s: version %d would overwrite or skip (latest is %d)", ref.Type, ref.Version, h.Latest)
	}
	if h == nil {
		h = &ArtifactHistory{ID: ref.ID, Versions: map[string]*ArtifactVersion{}}
		s.Artifacts[ref.Type] = h
	}
	h.Latest = ref.Version
	h.Versions[strconv.Itoa(ref.Version)] = &ArtifactVersion{
		Ref: ref, Status: e.Status, Producer: e.Producer, BasedOn: nonNil(e.BasedOn),
		Assumptions: nonNil(e.Assumptions), Limitations: nonNil(e.Limitations),
		Content: nonNilMap(e.Content), Meta: nonNilMap(e.Meta), RecordedAt: now,
	}
	if e.Status == "approved" {
		h.Approved = ref.Version
	}
	return nil
}

func setArtifactStatus(s *State, typ string, version int, status string) error {
	h := s.Artifacts[typ]
	if h == nil {
		return fmt.Errorf("%s: no such artifact", typ)
	}
	v := h.Versions[strconv.Itoa(version)]
	if v == nil {
		return fmt.Errorf("%s: no version %d", typ, version)
	}
	if v.Status == status {
		return nil
	}
	if !artifactTransitions[v.Status][status] {
		return fmt.Errorf("%s v%d: status %s cannot become %s", typ, version, v.Status, status)
	}
	v.Status = status
	if status == "approved" && version > h.Approved {
		h.Approved = version
	}
	return nil
}

// nonNil and nonNilMap copy what a state takes from a decision's events, never nil:
// the state shares nothing with the decision, which its caller may change.
func nonNil[T any](s []T) []T {
	return append(make([]T, 0, len(s)), s...)
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return cloneObject(m)
}
