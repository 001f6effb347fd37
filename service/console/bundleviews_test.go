package console

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/enginetest"
)

// The pages name reasons with the titles of the bundle deciding now: after a swap, the
// new bundle's, and its filters' choices too.
func TestPagesFollowTheLiveBundle(t *testing.T) {
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Options{InMemory: true, LazyPolicies: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	c := New(e, Options{})
	incomplete := engine.Reason{Code: "ARTIFACT_INCOMPLETE"}
	assert.Equal(t, "Artifact incomplete", c.titles().of("video", incomplete))
	before := c.view()
	assert.Same(t, before, c.view(), "made once per bundle")

	b := enginetest.EditedBundle(t, enginetest.Edits{Policies: map[string]enginetest.Edit{
		"handoff/video/completeness.rego": enginetest.Replace("# title: Artifact incomplete", "# title: A part of the artifact is missing")}})
	reworded, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, LazyPolicies: true})
	require.NoError(t, err)
	e.SwapDecider(reworded)
	assert.Equal(t, "A part of the artifact is missing", c.titles().of("video", incomplete))
	assert.NotSame(t, before, c.view())
	assert.NotEmpty(t, c.catalog().Reasons)
}
