package engine_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// TestWaitingFollowsHappyPaths plays each pack's happy path and, before every allowed
// step, requires Waiting to offer it: a party that is the request's actor (an agent, a
// role the person holds, or the host) may send its kind; a handoff's target and output
// are offered, its inputs include every version Waiting says it must cite and name no
// other than it says it may; a review's or an approval's versions are the ones Waiting
// lists. After the last step the workflow is terminal.
func TestWaitingFollowsHappyPaths(t *testing.T) {
	for _, file := range []string{
		"../policies_test/handoff/campaign/scenarios/01-happy-path.scenario",
		"../policies_test/handoff/video/scenarios/01-happy-path.scenario",
	} {
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
				d, err := eng.Submit(ctx, body)
				require.NoError(t, err)
				require.Equal(t, step.Expect.Outcome, d.Outcome, "step %d (%s)", i+1, step.Name)
				p.Observe(body, d)
				st, err = eng.State(ctx, d.TenantID, d.WorkflowID)
				require.NoError(t, err)
			}
			w, err := eng.Waiting(st)
			require.NoError(t, err)
			assert.True(t, w.Terminal, "got status %s, want a terminal one", w.Status)
			assert.Empty(t, w.Parties)
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
		Target string                 `json:"target_agent"`
		Output *struct{ Type string } `json:"output"`
		Inputs []engine.ArtifactRef   `json:"input_artifacts"`
		Refs   []engine.ArtifactRef   `json:"artifacts"`
	}
	require.NoError(t, json.Unmarshal(body, &r))
	var offered []engine.Step
	for _, party := range w.Parties {
		switch {
		case party.Type == "agent" && r.Actor.Type == "agent" && party.ID == r.Actor.ID,
			party.Type == "human" && r.Actor.Type == "human" && slices.Contains(r.Actor.Roles, party.ID),
			party.Type == "system" && r.Actor.Type == "system":
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
	case "review", "approval":
		assert.ElementsMatch(t, r.Refs, refs(offered[0].Cite), "step %d: got the request's versions, want Waiting's", n)
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
