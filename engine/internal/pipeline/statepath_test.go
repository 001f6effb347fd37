package pipeline

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/handoff-dev/handoff"
)

// jsonValue draws a decoded JSON value (numbers json.Number, as UseNumber decodes them).
func jsonValue(depth int) *rapid.Generator[any] {
	leaf := rapid.OneOf(
		rapid.Just[any](nil),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.SampledFrom([]string{"0", "-1", "42", "3.25", "1e3", "-0.5E-7", "12345678901234567890123"}), func(s string) any { return json.Number(s) }),
	)
	if depth == 0 {
		return leaf
	}
	return rapid.OneOf(leaf,
		rapid.Map(rapid.SliceOfN(jsonValue(depth-1), 0, 3), func(s []any) any { return s }),
		rapid.Map(rapid.MapOfN(rapid.String(), jsonValue(depth-1), 0, 3), func(m map[string]any) any { return m }),
	)
}

func jsonObject() *rapid.Generator[map[string]any] {
	return rapid.OneOf(rapid.Just[map[string]any](nil), rapid.MapOfN(rapid.String(), jsonValue(2), 0, 4))
}

// maybeNil draws a slice that may be nil, empty or full: the JSON encodings differ.
func maybeNil[T any](g *rapid.Generator[T]) *rapid.Generator[[]T] {
	return rapid.OneOf(rapid.Just[[]T](nil), rapid.SliceOfN(g, 0, 3))
}

func refGen() *rapid.Generator[ArtifactRef] {
	return rapid.Custom(func(t *rapid.T) ArtifactRef {
		return ArtifactRef{ID: rapid.String().Draw(t, "id"), Type: rapid.String().Draw(t, "type"),
			Version: rapid.IntRange(-3, 1<<40).Draw(t, "version"), Hash: rapid.String().Draw(t, "hash")}
	})
}

func stateGen() *rapid.Generator[*State] {
	str := rapid.String()
	return rapid.Custom(func(t *rapid.T) *State {
		s := &State{
			WorkflowID: str.Draw(t, "wf"), TenantID: str.Draw(t, "tenant"), OrganizationID: str.Draw(t, "org"),
			Pack: str.Draw(t, "pack"), Status: str.Draw(t, "status"), Terminal: rapid.Bool().Draw(t, "terminal"),
			StateVersion: rapid.Uint64().Draw(t, "version"), OpenConflicts: rapid.Int().Draw(t, "open"),
			Counters:      rapid.MapOfN(str, rapid.Int(), 0, 3).Draw(t, "counters"),
			InputHashes:   rapid.MapOfN(str, rapid.Bool(), 0, 3).Draw(t, "hashes"),
			RecentEdges:   maybeNil(str).Draw(t, "recent"),
			Effects:       rapid.MapOfN(str, str, 0, 3).Draw(t, "effects"),
			Artifacts:     map[string]*ArtifactHistory{},
			Conflicts:     map[string]*Conflict{},
			Approvals:     map[string]*ApprovalRecord{},
			Defects:       map[string]*DefectRecord{},
			Tasks:         map[string]*Task{},
			StageHandoffs: map[string]int{},
		}
		if rapid.Bool().Draw(t, "nil edges") {
			s.Edges = nil // a snapshot may hold null: EnsureMaps gives it a value
		}
		for range rapid.IntRange(0, 2).Draw(t, "artifacts") {
			h := &ArtifactHistory{ID: str.Draw(t, "aid"), Latest: rapid.Int().Draw(t, "latest"), Versions: map[string]*ArtifactVersion{}}
			for range rapid.IntRange(0, 2).Draw(t, "versions") {
				h.Versions[str.Draw(t, "n")] = &ArtifactVersion{
					Ref: refGen().Draw(t, "ref"), Status: str.Draw(t, "vstatus"), Producer: str.Draw(t, "producer"),
					BasedOn: maybeNil(refGen()).Draw(t, "based_on"), Assumptions: maybeNil(str).Draw(t, "assumptions"),
					Limitations: maybeNil(str).Draw(t, "limitations"), Content: jsonObject().Draw(t, "content"),
					Meta: jsonObject().Draw(t, "meta"), RecordedAt: str.Draw(t, "at"),
				}
			}
			s.Artifacts[str.Draw(t, "atype")] = h
		}
		s.Conflicts[str.Draw(t, "cid")] = &Conflict{ID: str.Draw(t, "cid"), Status: "open", Artifacts: maybeNil(refGen()).Draw(t, "sides"),
			ResolvedBy: str.Draw(t, "resolved_by")}
		rec := &ApprovalRecord{Decision: str.Draw(t, "decision"), By: str.Draw(t, "by"), Artifacts: maybeNil(refGen()).Draw(t, "approved")}
		s.Approvals["a"], s.Approvals["b"] = rec, rec // Fold shares one record between keys
		s.Defects[str.Draw(t, "did")] = &DefectRecord{Defect: Defect{ID: str.Draw(t, "did"), Origin: str.Draw(t, "origin")}, Status: str.Draw(t, "dstatus")}
		s.Tasks[str.Draw(t, "tid")] = &Task{Status: str.Draw(t, "tstatus"), Agent: str.Draw(t, "agent"), DependsOn: maybeNil(str).Draw(t, "deps")}
		if rapid.Bool().Draw(t, "nil task") {
			s.Tasks["nil"] = nil
		}
		return s
	})
}

// TestStateValueFollowsJSON: a state as policies read it is the ast value of its JSON
// encoding, omitted fields, nulls and exact numbers included.
func TestStateValueFollowsJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := stateGen().Draw(t, "state")
		x, err := ToValue(s)
		require.NoError(t, err)
		want, err := ast.InterfaceToValue(x)
		require.NoError(t, err)
		got, err := StateValue(s)
		require.NoError(t, err)
		require.Zero(t, want.Compare(got), "want %v\ngot  %v", want, got)
	})
}

// TestCloneStateFollowsJSON: a copy is the state its JSON encoding decodes to, and
// changing it leaves the original as it was.
func TestCloneStateFollowsJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := stateGen().Draw(t, "state")
		b, err := json.Marshal(s)
		require.NoError(t, err)
		want, err := DecodeState(b)
		require.NoError(t, err)
		c := CloneState(s)
		require.Equal(t, want, c)
		scribble(c)
		after, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(b), string(after), "changing the copy changed the original")
	})
}

// scribble changes everything a state holds, in place.
func scribble(s *State) {
	for _, h := range s.Artifacts {
		for _, v := range h.Versions {
			v.Status = "scribbled"
			for i := range v.BasedOn {
				v.BasedOn[i].Hash = "scribbled"
			}
			for i := range v.Assumptions {
				v.Assumptions[i] = "scribbled"
			}
			scribbleJSON(v.Content)
			scribbleJSON(v.Meta)
		}
		h.Latest = -1
	}
	for k := range s.Counters {
		s.Counters[k] = -1
	}
	for i := range s.RecentEdges {
		s.RecentEdges[i] = "scribbled"
	}
	for _, c := range s.Conflicts {
		c.Status = "scribbled"
		for i := range c.Artifacts {
			c.Artifacts[i].ID = "scribbled"
		}
	}
	for _, a := range s.Approvals {
		a.By = "scribbled"
		for i := range a.Artifacts {
			a.Artifacts[i].ID = "scribbled"
		}
	}
	for _, d := range s.Defects {
		d.Defect.ID = "scribbled"
	}
	for _, tk := range s.Tasks {
		if tk != nil {
			tk.Status = "scribbled"
			for i := range tk.DependsOn {
				tk.DependsOn[i] = "scribbled"
			}
		}
	}
	s.Effects["scribbled"] = "scribbled"
}

func scribbleJSON(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			scribbleJSON(e)
			x[k] = "scribbled"
		}
	case []any:
		for i, e := range x {
			scribbleJSON(e)
			x[i] = "scribbled"
		}
	}
}

// decisionByJSON decodes a policy result by its JSON encoding.
func decisionByJSON(v any) (*Decision, error) {
	var d Decision
	err := decodeThroughJSON(&d, v)
	return &d, err
}

// goldenResults are the recorded decisions of engine/testdata/golden, decoded as OPA
// returns a policy result (a decision is a policy result with its identity).
func goldenResults(t *testing.T) []any {
	files, err := filepath.Glob("../../testdata/golden/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out []any
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		require.NoError(t, err)
		for _, f := range ar.Files {
			if f.Name == "decision.json" {
				v, err := DecodeJSON(f.Data)
				require.NoError(t, err)
				out = append(out, v)
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestDecodeDirectFollowsJSON: recorded decisions, and decisions drawn at random, decode
// directly (nothing left to encoding/json) to what their JSON encoding decodes to.
func TestDecodeDirectFollowsJSON(t *testing.T) {
	for _, v := range goldenResults(t) {
		want, err := decisionByJSON(v)
		require.NoError(t, err)
		var got Decision
		require.NoError(t, decodeDirect(&got, v))
		require.Equal(t, want, &got)
	}
	rapid.Check(t, func(t *rapid.T) {
		d := decisionGen().Draw(t, "decision")
		b, err := json.Marshal(d)
		require.NoError(t, err)
		v, err := DecodeJSON(b)
		require.NoError(t, err)
		addUnknown(t, v)
		want, err := decisionByJSON(v)
		require.NoError(t, err)
		var got Decision
		require.NoError(t, decodeDirect(&got, v))
		require.Equal(t, want, &got)
	})
}

// addUnknown adds keys no field has, which both decoders ignore.
func addUnknown(t *rapid.T, v any) {
	m := v.(map[string]any)
	if rapid.Bool().Draw(t, "unknown") {
		m["no_such_field"] = jsonValue(2).Draw(t, "unknown value")
	}
	if evs, _ := m["events"].([]any); len(evs) > 0 {
		evs[0].(map[string]any)["extra"] = map[string]any{"x": json.Number("1")}
	}
}

func decisionGen() *rapid.Generator[*Decision] {
	str := rapid.String()
	optInt := rapid.OneOf(rapid.Just[*int](nil), rapid.Map(rapid.Int(), func(i int) *int { return &i }))
	event := rapid.Custom(func(t *rapid.T) Event {
		e := Event{Type: str.Draw(t, "type"), Producer: str.Draw(t, "producer"), BasedOn: maybeNil(refGen()).Draw(t, "based_on"),
			Content: jsonObject().Draw(t, "content"), Meta: jsonObject().Draw(t, "meta"), Version: rapid.Int().Draw(t, "version"),
			Delta: optInt.Draw(t, "delta"), Value: optInt.Draw(t, "value"), Assumptions: maybeNil(str).Draw(t, "assumptions")}
		if rapid.Bool().Draw(t, "ref") {
			r := refGen().Draw(t, "ref")
			e.Ref = &r
		}
		if rapid.Bool().Draw(t, "defect") {
			e.Defect = &Defect{ID: str.Draw(t, "did"), Severity: "S1", Check: str.Draw(t, "check")}
		}
		if rapid.Bool().Draw(t, "deps") {
			deps := maybeNil(str).Draw(t, "depends_on")
			e.DependsOn = &deps
		}
		return e
	})
	return rapid.Custom(func(t *rapid.T) *Decision {
		d := &Decision{
			Outcome: handoff.Outcome(rapid.SampledFrom([]string{"allow", "block", "retry"}).Draw(t, "outcome")),
			Reasons: maybeNil(rapid.Custom(func(t *rapid.T) Reason {
				return Reason{Code: str.Draw(t, "code"), Message: str.Draw(t, "message"), Path: str.Draw(t, "path"), Outcome: handoff.Outcome(str.Draw(t, "outcome"))}
			})).Draw(t, "reasons"),
			StatusAfter: str.Draw(t, "status_after"), StateVersion: rapid.Uint64().Draw(t, "state_version"),
			Next: maybeNil(rapid.Custom(func(t *rapid.T) Next {
				return Next{Agent: str.Draw(t, "agent"), Context: NextContext{MustKnow: jsonObject().Draw(t, "must"), MayKnow: jsonObject().Draw(t, "may"),
					Flags: maybeNil(rapid.Custom(func(t *rapid.T) TextHit { return TextHit{Path: str.Draw(t, "p"), Pattern: str.Draw(t, "pat")} })).Draw(t, "flags")}}
			})).Draw(t, "next"),
			Revise: maybeNil(rapid.Custom(func(t *rapid.T) Revision {
				return Revision{Artifact: str.Draw(t, "a"), Defects: maybeNil(str).Draw(t, "d")}
			})).Draw(t, "revise"),
			RequiresHumanReview: rapid.Bool().Draw(t, "review"),
			Events:              maybeNil(event).Draw(t, "events"),
			ConflictID:          str.Draw(t, "conflict"),
		}
		if rapid.Bool().Draw(t, "retry") {
			d.Retry = &handoff.RetryPlan{Attempt: rapid.Int().Draw(t, "attempt"), DelayMS: rapid.Int64().Draw(t, "delay")}
		}
		return d
	})
}

// TestDecodeDirectLeavesToJSON: what the direct decoder cannot be sure of goes through
// encoding/json, whose answer, error included, CheckResult keeps.
func TestDecodeDirectLeavesToJSON(t *testing.T) {
	for name, v := range map[string]map[string]any{
		"a key in another case":  {"Outcome": "allow"},
		"a string not UTF-8":     {"outcome": "allow\xff"},
		"a key not UTF-8":        {"outcome": "allow", "\xff": true},
		"a number with a sign +": {"state_version": json.Number("+5")},
		"a leading zero":         {"state_version": json.Number("05")},
		"a fraction in an int":   {"retry": map[string]any{"attempt": json.Number("1.5")}},
		"an int too large":       {"retry": map[string]any{"attempt": json.Number("99999999999999999999")}},
		"a number for a string":  {"outcome": json.Number("1")},
		"an invalid number":      {"events": []any{map[string]any{"content": map[string]any{"x": json.Number("1.")}}}},
		"an ignored bad number":  {"nope": json.Number("x")},
		"a Go type JSON encodes": {"events": []any{map[string]any{"content": map[string]any{"x": 1.5}}}},
	} {
		t.Run(name, func(t *testing.T) {
			var d Decision
			require.ErrorIs(t, decodeDirect(&d, v), errIndirect)
			want, wantErr := decisionByJSON(v)
			var got Decision
			gotErr := decodeThroughJSON(&got, v)
			require.Equal(t, wantErr, gotErr)
			if wantErr == nil {
				require.Equal(t, want, &got)
			}
		})
	}
}

// TestNullsFollowJSON: null keeps a string, a number or a boolean as it is and empties
// a list, an object or a pointer, as encoding/json does.
func TestNullsFollowJSON(t *testing.T) {
	v := map[string]any{"outcome": nil, "reasons": nil, "retry": nil, "state_version": nil, "requires_human_review": nil,
		"events": []any{map[string]any{"content": nil, "delta": nil, "depends_on": nil, "ref": nil}}}
	want, err := decisionByJSON(v)
	require.NoError(t, err)
	var got Decision
	require.NoError(t, decodeDirect(&got, v))
	require.Equal(t, want, &got)
	// An empty list is a list, not null.
	b := []byte(`{"events":[{"depends_on":[]}],"next":[]}`)
	x, err := DecodeJSON(b)
	require.NoError(t, err)
	got = Decision{}
	require.NoError(t, decodeDirect(&got, x))
	require.NotNil(t, got.Events[0].DependsOn)
	require.NotNil(t, *got.Events[0].DependsOn)
	require.NotNil(t, got.Next)
}

// TestStateValueOfGoValues: a state a caller built, holding Go values JSON decoding
// never makes (floats, integers, structs, strings that are not UTF-8), is read as its
// JSON encoding decodes.
func TestStateValueOfGoValues(t *testing.T) {
	s := NewState("wf", "acme", "org\xff", "p", "s", "A", "now")
	s.Effects["bad\xfekey"] = "bad\xffvalue"
	s.Artifacts["T"] = &ArtifactHistory{ID: "a", Versions: map[string]*ArtifactVersion{"1": {
		Content: map[string]any{"f": 1e-7, "big": 1e21, "i": 42, "u": uint8(7), "s": []string{"x\xff"},
			"st": struct {
				A int `json:"a,omitempty"`
				B string
			}{B: "b"}, "nested": map[string]any{"n": json.Number("1.50"), "k\xff": []any{0.1, "y\xfe"}}},
	}}}
	x, err := ToValue(s)
	require.NoError(t, err)
	want, err := ast.InterfaceToValue(x)
	require.NoError(t, err)
	got, err := StateValue(s)
	require.NoError(t, err)
	require.Zero(t, want.Compare(got), "want %v\ngot  %v", want, got)
	// Numbers keep the text of their JSON encoding.
	path := ast.Ref{ast.StringTerm("artifacts"), ast.StringTerm("T"), ast.StringTerm("versions"), ast.StringTerm("1"), ast.StringTerm("content")}
	wc, err := want.Find(path)
	require.NoError(t, err)
	gc, err := got.Find(path)
	require.NoError(t, err)
	for _, k := range []string{"f", "big", "i"} {
		require.Equal(t, wc.(ast.Object).Get(ast.StringTerm(k)).String(), gc.(ast.Object).Get(ast.StringTerm(k)).String(), k)
	}

	s.Effects["n"] = "ok"
	s.Artifacts["T"].Versions["1"].Content = map[string]any{"bad": json.Number("1.")}
	_, err = StateValue(s)
	require.Error(t, err, "encoding/json refuses an invalid json.Number")
}
