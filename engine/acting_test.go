package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestActingNamesWhoActorsLists: in every status of every pack, with and without an open
// conflict, the names a summary keeps are exactly the agents and roles Actors derives
// with their steps; a pack the bundle lacks is an error.
func TestActingNamesWhoActorsLists(t *testing.T) {
	dc, err := NewDecider(context.Background(), DeciderOptions{})
	require.NoError(t, err)
	states := 0
	for _, pack := range []string{"campaign", "assessment", "support", "video"} {
		st := &State{WorkflowID: "wf", Pack: pack, Artifacts: map[string]*ArtifactHistory{}}
		tables, ok := dc.Tables(pack)
		require.True(t, ok)
		wf := tables["workflow"].(map[string]any)
		for _, status := range wf["statuses"].([]any) {
			for _, conflicts := range []int{0, 1} {
				st.Status, st.OpenConflicts = status.(string), conflicts
				parties, err := dc.Actors(st)
				require.NoError(t, err)
				var wantAgents, wantRoles []string
				for _, p := range parties {
					switch p.Type {
					case "agent":
						wantAgents = append(wantAgents, p.ID)
					case "human":
						wantRoles = append(wantRoles, p.ID)
					}
				}
				agents, roles, err := dc.acting(st)
				require.NoError(t, err)
				slices.Sort(agents)
				slices.Sort(roles)
				slices.Sort(wantAgents)
				slices.Sort(wantRoles)
				require.Equal(t, wantAgents, agents, "%s %s", pack, st.Status)
				require.Equal(t, wantRoles, roles, "%s %s", pack, st.Status)
				states++
			}
		}
	}
	require.Greater(t, states, 40)
	_, _, err = dc.acting(&State{Pack: "no_such_pack"})
	require.Error(t, err)
}
