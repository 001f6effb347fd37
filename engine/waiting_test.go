package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// TestWaitingFollowsScenarios plays the packs' scenarios and, before every allowed
// step, requires Waiting to offer it: a party that is the request's actor (an agent, a
// role the person holds, or the host) may send its kind; a handoff's target and output
// are offered, its inputs include every version Waiting says it must cite and name no
// other than it says it may; a review's or an approval's versions are the ones Waiting
// lists (all of them for an APPROVE, some for another decision). After the last step
// Waiting is terminal when the workflow is.
func TestWaitingFollowsScenarios(t *testing.T) {
	// Every scenario of the campaign and video packs. The support pack's tool gateway
	// (a system actor handing over) and the assessment pack's off-stage enrichment
	// handoffs are not derived yet.
	var files []string
	for _, pack := range []string{"campaign", "video"} {
		f, err := filepath.Glob("../policies_test/handoff/" + pack + "/scenarios/*.scenario")
		require.NoError(t, err)
		require.NotEmpty(t, f, pack)
		files = append(files, f...)
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			ctx := context.Background()
			sc, err := scenario.Load(file)
			require.NoError(t, err)
			eng, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
			require.NoError(t, err)
			defer eng.Close()
			p := scenario.NewPlayer(eng)
			var st *engine.State
			for i, step := range sc.Steps {
				body, err := p.Render(ctx, step.Request)
				require.NoError(t, err)
				if st != nil && step.Expect.Outcome != engine.Block {
					w, err := eng.Waiting(st)
					require.NoError(t, err)
					checkOffered(t, i+1, w, body)
				}
				var d *engine.Decision
				if step.At().IsZero() {
					d, err = eng.Submit(ctx, body)
				} else {
					d, err = eng.SubmitAt(ctx, body, step.At())
				}
				require.NoError(t, err)
				require.Equal(t, step.Expect.Outcome, d.Outcome, "step %d (%s)", i+1, step.Name)
				p.Observe(body, d)
				if d.Outcome != engine.Block {
					st, err = eng.State(ctx, d.TenantID, d.WorkflowID)
					require.NoError(t, err)
				}
			}
			w, err := eng.Waiting(st)
			require.NoError(t, err)
			assert.Equal(t, st.Terminal, w.Terminal)
			if w.Terminal {
				assert.Empty(t, w.Parties)
			}
		})
	}
}

// checkOffered requires w to offer the request body.
func checkOffered(t *testing.T, n int, w *engine.Waiting, body []byte) {
	t.Helper()
	var r struct {
		Kind  string `json:"kind"`
		Actor struct {
			Type  string   `json:"type"`
			ID    string   `json:"id"`
			Roles []string `json:"roles"`
		} `json:"actor"`
		Decision string                 `json:"decision"`
		Target   string                 `json:"target_agent"`
		Output   *struct{ Type string } `json:"output"`
		Inputs   []engine.ArtifactRef   `json:"input_artifacts"`
		Refs     []engine.ArtifactRef   `json:"artifacts"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	var offered []engine.Step
	for _, party := range w.Parties {
		switch {
		case party.Type == "agent" && r.Actor.Type == "agent" && party.ID == r.Actor.ID,
			party.Type == "human" && r.Actor.Type == "human" && slices.Contains(r.Actor.Roles, party.ID),
			party.Type == "system" && r.Actor.Type == "system",
			r.Kind == "failure" && r.Actor.Type == "system", // the host reports an agent's failure
			r.Kind == "outcome", // the host, or the effect's recipient, reports its outcome
			r.Kind == "cancel" && party.Type == "system" && r.Actor.Type == "human": // a person may cancel as the host does
			for _, s := range party.Requests {
				if s.Kind == r.Kind {
					offered = append(offered, s)
				}
			}
		}
	}
	require.NotEmpty(t, offered, "step %d: %s of %s %s at %s is not offered: %+v", n, r.Kind, r.Actor.Type, r.Actor.ID, w.Status, w.Parties)
	switch r.Kind {
	case "handoff":
		var s *engine.Step
		for i := range offered {
			if offered[i].Target == r.Target && r.Output != nil && offered[i].Output == r.Output.Type {
				s = &offered[i]
			}
		}
		require.NotNil(t, s, "step %d: handoff to %s is not offered: %+v", n, r.Target, offered)
		for _, c := range s.Cite {
			require.NotNil(t, c.Ref, "step %d: %s: %s", n, c.Type, c.Missing)
			assert.Contains(t, r.Inputs, *c.Ref, "step %d: the handoff does not cite %s", n, c.Placeholder)
		}
		may := refs(append(slices.Clone(s.Cite), s.MayCite...))
		for _, in := range r.Inputs {
			assert.Contains(t, may, in, "step %d: the handoff cites %s v%d, which Waiting does not list", n, in.Type, in.Version)
		}
	case "review":
		assert.ElementsMatch(t, r.Refs, refs(offered[0].Cite), "step %d: got the request's versions, want Waiting's", n)
	case "approval":
		if r.Decision == "APPROVE" {
			assert.ElementsMatch(t, r.Refs, refs(offered[0].Cite), "step %d: got the request's versions, want Waiting's", n)
		} else { // a revision request or a rejection names some of them
			assert.Subset(t, refs(offered[0].Cite), r.Refs, "step %d: got the request's versions, want some of Waiting's", n)
		}
	}
}

func refs(cs []engine.Citation) []engine.ArtifactRef {
	var out []engine.ArtifactRef
	for _, c := range cs {
		if c.Ref != nil {
			out = append(out, *c.Ref)
		}
	}
	return out
}
