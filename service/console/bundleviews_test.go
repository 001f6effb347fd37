package console

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
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

	shipped := engine.ShippedBundle()
	pfs := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(shipped.Policies, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(shipped.Policies, p)
		if p == "handoff/video/completeness.rego" {
			b = []byte(strings.Replace(string(b), "# title: Artifact incomplete", "# title: A part of the artifact is missing", 1))
		}
		pfs[p] = &fstest.MapFile{Data: b}
		return err
	}))
	reworded, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &engine.Bundle{Contracts: shipped.Contracts, Policies: pfs}, LazyPolicies: true})
	require.NoError(t, err)
	e.SwapDecider(reworded)
	assert.Equal(t, "A part of the artifact is missing", c.titles().of("video", incomplete))
	assert.NotSame(t, before, c.view())
	assert.NotEmpty(t, c.catalog().Reasons)
}
