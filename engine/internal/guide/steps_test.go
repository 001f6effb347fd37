package guide

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff"
)

// TestRedo: an agent's handoffs with an output do a task again only when its task graph
// has no task of its ready or running; a dispatch (no output) never does.
func TestRedo(t *testing.T) {
	var tables packTables
	require.NoError(t, decodeVia(map[string]any{"agents": map[string]any{
		"worker": map[string]any{"tasks": []string{"work"}, "produces": []string{"OUT"}, "hands_to": []string{"lead"}},
		"lead":   map[string]any{"tasks": []string{"plan"}, "produces": []string{"PLAN"}, "hands_to": []string{"worker"}},
	}}, &tables))
	for _, c := range []struct {
		name  string
		tasks map[string]*handoff.Task
		redo  bool
	}{
		{"no task graph", nil, false},
		{"a task running", map[string]*handoff.Task{"T1": {Agent: "worker", Status: "done"}, "T2": {Agent: "worker", Status: "running"}}, false},
		{"every task done", map[string]*handoff.Task{"T1": {Agent: "worker", Status: "done"}}, true},
		{"no task of its own", map[string]*handoff.Task{"T1": {Agent: "lead", Status: "ready"}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := deriver{t: &tables, st: &handoff.State{Tasks: c.tasks}, handoffFields: map[string]bool{}, redone: map[string]bool{}}
			p := g.agent("worker", "work")
			var handoffs int
			for _, s := range p.Requests {
				if s.Kind == "handoff" && s.Output != "" {
					handoffs++
					assert.Equal(t, c.redo, g.redo("worker", s), "%+v", s)
				}
			}
			assert.Positive(t, handoffs)
			assert.False(t, g.redo("worker", Step{Kind: "handoff", Target: "lead", TaskID: "T1"}), "a dispatch")
			assert.False(t, g.redo("lead", Step{Kind: "handoff", Target: "worker", Output: "PLAN"}), "another agent's")
		})
	}
}
