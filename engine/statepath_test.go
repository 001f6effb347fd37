package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/testsize"
)

// TestDirectConversionsFollowJSON plays the shipped scenarios and checks, at every step,
// that the policy input, the decoded policy result, the state's copy and the cached
// state are what the JSON round trips made of them.
func TestDirectConversionsFollowJSON(t *testing.T) {
	files, err := filepath.Glob("../policies_test/handoff/*/scenarios/*.scenario")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	dc, err := engine.NewDecider(context.Background(), engine.DeciderOptions{LazyPolicies: true, EvalTimeout: time.Minute})
	require.NoError(t, err)
	asked, states := 0, 0
	for _, file := range testsize.Sample(files, 2) {
		name := filepath.Base(filepath.Dir(filepath.Dir(file))) + "/" + strings.TrimSuffix(filepath.Base(file), scenario.Ext)
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			sc, err := scenario.Load(file)
			require.NoError(t, err)
			eng, err := engine.Open(ctx, engine.Options{InMemory: true, Decider: dc})
			require.NoError(t, err)
			defer eng.Close()
			ce := &checkedEngine{Engine: eng, t: t}
			require.NoError(t, scenario.Run(ctx, ce, sc, nil))
			asked += ce.asked
			states += ce.states
		})
	}
	require.NotZero(t, asked)
	require.NotZero(t, states)
	t.Logf("%d policy results and %d stored states checked", asked, states)
}

// checkedEngine checks every request it submits before and after.
type checkedEngine struct {
	*engine.Engine
	t             *testing.T
	asked, states int
}

func (c *checkedEngine) Submit(ctx context.Context, body []byte) (*engine.Decision, error) {
	return c.SubmitAt(ctx, body, time.Now())
}

func (c *checkedEngine) SubmitAt(ctx context.Context, body []byte, at time.Time) (*engine.Decision, error) {
	if c.CheckDirectInput(c.t, body, at) {
		c.asked++
	}
	d, err := c.Engine.SubmitAt(ctx, body, at)
	if err != nil {
		return nil, err
	}
	// The caller may change the decision it is given: the cached state must not change.
	b, err := json.Marshal(d)
	require.NoError(c.t, err)
	var kept engine.Decision
	require.NoError(c.t, json.Unmarshal(b, &kept))
	scribble(d)
	if d.WorkflowID != "" && c.CheckDirectState(c.t, d.TenantID, d.WorkflowID) {
		c.states++
	}
	return &kept, nil
}

// scribble changes what a decision's events hold, in place.
func scribble(d *engine.Decision) {
	for i := range d.Events {
		e := &d.Events[i]
		for _, m := range []map[string]any{e.Content, e.Meta} {
			for k := range m {
				m[k] = "scribbled"
			}
		}
		for _, refs := range [][]engine.ArtifactRef{e.BasedOn, e.Artifacts} {
			for j := range refs {
				refs[j].Hash = "scribbled"
			}
		}
		for _, s := range [][]string{e.Assumptions, e.Limitations} {
			for j := range s {
				s[j] = "scribbled"
			}
		}
		if e.DependsOn != nil {
			for j := range *e.DependsOn {
				(*e.DependsOn)[j] = "scribbled"
			}
		}
	}
}
