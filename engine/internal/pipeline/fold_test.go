package pipeline

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/handoff-dev/handoff/engine/internal/contract"
	"github.com/handoff-dev/handoff/internal/canonjson"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ref(v int) *ArtifactRef {
	return &ArtifactRef{ID: "a-1", Type: "NOTE", Version: v, Hash: "sha256:00"}
}

func TestFoldInvariants(t *testing.T) {
	pc := &contract.Pack{Window: 3, Terminal: map[string]bool{"DONE": true}}
	one := 1
	cases := []struct {
		name   string
		events []Event
		err    string
	}{
		{"first version must be 1", []Event{{Type: "artifact_recorded", Ref: ref(2), Status: "draft"}}, "first version must be 1"},
		{"versions are never reused", []Event{{Type: "artifact_recorded", Ref: ref(1), Status: "draft"}, {Type: "artifact_recorded", Ref: ref(1), Status: "draft"}}, "would overwrite"},
		{"ids are stable", []Event{{Type: "artifact_recorded", Ref: ref(1), Status: "draft"}, {Type: "artifact_recorded", Ref: &ArtifactRef{ID: "other", Type: "NOTE", Version: 2}, Status: "draft"}}, "differs from recorded"},
		{"approved never goes back", []Event{{Type: "artifact_recorded", Ref: ref(1), Status: "approved"}, {Type: "artifact_status", Artifact: "NOTE", Version: 1, Status: "draft"}}, "cannot become draft"},
		{"draft never becomes final", []Event{{Type: "artifact_recorded", Ref: ref(1), Status: "draft"}, {Type: "artifact_status", Artifact: "NOTE", Version: 1, Status: "final"}}, "cannot become final"},
		{"status of a missing version", []Event{{Type: "artifact_status", Artifact: "NOTE", Version: 1, Status: "approved"}}, "no such artifact"},
		{"conflict resolved twice", []Event{{Type: "conflict_opened", ID: "c"}, {Type: "conflict_resolved", ID: "c"}, {Type: "conflict_resolved", ID: "c"}}, "not open"},
		{"conflict opened twice", []Event{{Type: "conflict_opened", ID: "c"}, {Type: "conflict_opened", ID: "c"}}, "already exists"},
		{"unknown event", []Event{{Type: "rewrite_history"}}, "unknown event type"},
		{"counter without value", []Event{{Type: "counter", Name: "n"}}, "neither delta nor value"},
		{"a defect id names one artifact's defect", []Event{{Type: "defect", Defect: &Defect{ID: "D-1", Artifact: "COPY"}, Status: "open"}, {Type: "defect", Defect: &Defect{ID: "D-1", Artifact: "VISUAL"}, Status: "closed"}}, "is a defect of COPY, not of VISUAL"},
		{"a valid sequence", []Event{
			{Type: "artifact_recorded", Ref: ref(1), Status: "under_review"},
			{Type: "artifact_status", Artifact: "NOTE", Version: 1, Status: "approved"},
			{Type: "artifact_status", Artifact: "NOTE", Version: 1, Status: "final"},
			{Type: "counter", Name: "n", Delta: &one},
			{Type: "task", ID: "T1", Status: "done", Agent: "w"},
			{Type: "defect", Defect: &Defect{ID: "D-1", Artifact: "NOTE"}, Status: "open"},
			{Type: "defect", Defect: &Defect{ID: "D-1", Artifact: "NOTE"}, Status: "closed"},
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewState("wf", "t", "", "toy", "s", "OPEN", "now")
			err := Fold(s, &Decision{StatusAfter: "DONE", Events: c.events}, pc, "now")
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.True(t, s.Terminal)
			assert.Equal(t, "final", s.Artifacts["NOTE"].Versions["1"].Status)
			assert.Equal(t, 1, s.Artifacts["NOTE"].Approved)
			assert.Equal(t, 1, s.Counters["n"])
			assert.Equal(t, "done", s.Tasks["T1"].Status)
		})
	}
}

func TestFoldKeepsRecentEdgesToTheWindow(t *testing.T) {
	pc := &contract.Pack{Window: 3}
	s := NewState("wf", "t", "", "toy", "s", "OPEN", "now")
	var events []Event
	for _, e := range []string{"a", "b", "a", "b"} {
		events = append(events, Event{Type: "handoff_accepted", Source: e, Target: "x", InputHash: "sha256:1", Stage: "OPEN"})
	}
	require.NoError(t, Fold(s, &Decision{StatusAfter: "OPEN", Events: events}, pc, "now"))
	assert.Equal(t, []string{"b>x", "a>x", "b>x"}, s.RecentEdges)
	assert.Equal(t, 2, s.Edges["a>x"])
	assert.Equal(t, 4, s.StageHandoffs["OPEN"])
	assert.True(t, s.InputHashes["a>x|sha256:1"])
}

func TestSealHashesUsesTheCanonicalContentHash(t *testing.T) {
	content := map[string]any{"b": "x<y", "a": 1}
	d := &Decision{Events: []Event{
		{Type: "artifact_recorded", Ref: &ArtifactRef{ID: "r", Type: "REPORT", Version: 2, Hash: "sha256:policy"}, Content: content},
		{Type: "approval_recorded", Artifacts: []ArtifactRef{{ID: "r", Type: "REPORT", Version: 2, Hash: "sha256:policy"}, {ID: "n", Type: "NOTE", Version: 1, Hash: "sha256:keep"}}},
	}}
	require.NoError(t, sealHashes(d))
	want, err := canonjson.Hash(content)
	require.NoError(t, err)
	assert.Equal(t, want, d.Events[0].Ref.Hash)
	assert.Equal(t, d.Events[0].Ref.Hash, d.Events[1].Artifacts[0].Hash, "references to the sealed version follow")
	assert.Equal(t, "sha256:keep", d.Events[1].Artifacts[1].Hash, "other versions keep their hash")
}

// The log keeps decisions as JSON: folding a decision read back from the log must give
// the state folding it live gave, empty lists included.
func TestFoldIsTheSameAfterTheLogRoundTrip(t *testing.T) {
	pc := &contract.Pack{Window: 4}
	deps := []string{"T1"}
	none := []string{}
	d := &Decision{StatusAfter: "OPEN", Events: []Event{
		{Type: "task", ID: "T2", Status: "pending", DependsOn: &deps},
		{Type: "task", ID: "T2", Status: "ready", DependsOn: &none},
		{Type: "task", ID: "T2", Status: "running"},
		{Type: "approval_recorded", Decision: "APPROVE", By: "p", Stage: "GATE", Artifacts: []ArtifactRef{}},
		{Type: "conflict_opened", ID: "c", Artifacts: []ArtifactRef{}},
	}}
	live := NewState("wf", "t", "", "toy", "s", "OPEN", "now")
	require.NoError(t, Fold(live, d, pc, "now"))

	b, err := json.Marshal(d)
	require.NoError(t, err)
	var back Decision
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&back))
	replayed := NewState("wf", "t", "", "toy", "s", "OPEN", "now")
	require.NoError(t, Fold(replayed, &back, pc, "now"))

	a, err := canonjson.Marshal(live)
	require.NoError(t, err)
	r, err := canonjson.Marshal(replayed)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(r))
	assert.Equal(t, []string{}, replayed.Tasks["T2"].DependsOn)
}
