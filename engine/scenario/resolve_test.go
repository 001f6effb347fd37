package scenario

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

func TestResolver(t *testing.T) {
	ref := func(v int, hash string) *engine.ArtifactVersion {
		return &engine.ArtifactVersion{Ref: engine.ArtifactRef{ID: "copy", Type: "COPY_PACKAGE", Version: v, Hash: hash}}
	}
	st := &engine.State{StateVersion: 7, Artifacts: map[string]*engine.ArtifactHistory{
		"COPY_PACKAGE": {ID: "copy", Latest: 2, Versions: map[string]*engine.ArtifactVersion{"1": ref(1, "sha256:aa"), "2": ref(2, "sha256:bb")}},
	}}
	reads := 0
	resolver := func(got *[]Resolution) *Resolver {
		return &Resolver{
			Tenant: "acme", Workflow: "wf-1",
			State: func(_ context.Context, tenant, workflow string) (*engine.State, error) {
				reads++
				if tenant != "acme" || workflow != "wf-1" {
					return nil, fmt.Errorf("%w: %q", store.ErrNotFound, workflow)
				}
				return st, nil
			},
			Resolved: func(r Resolution) { *got = append(*got, r) },
		}
	}

	var got []Resolution
	v, err := resolver(&got).Replace(context.Background(), map[string]any{
		"a": "${ref:COPY_PACKAGE@latest}",
		"b": []any{"${hash:COPY_PACKAGE@1}", "plain"},
		"c": "${state_version}",
		"d": "${workflow_id}",
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"a": map[string]any{"id": "copy", "type": "COPY_PACKAGE", "version": 2, "hash": "sha256:bb"},
		"b": []any{"sha256:aa", "plain"},
		"c": uint64(7),
		"d": "wf-1",
	}, v)
	assert.Equal(t, 1, reads, "the state is read once per Replace")
	require.Len(t, got, 4)
	assert.Equal(t, "${ref:COPY_PACKAGE@latest}", got[0].Placeholder, "resolved in key order")
	assert.Equal(t, 2, got[0].Ref.Version)
	assert.Equal(t, "${hash:COPY_PACKAGE@1}", got[1].Placeholder)
	assert.Equal(t, "sha256:aa", got[1].Ref.Hash)
	assert.Nil(t, got[2].Ref)

	version := uint64(3)
	r := resolver(&got)
	r.Version = &version
	v, err = r.Replace(context.Background(), "${state_version}")
	require.NoError(t, err)
	assert.Equal(t, uint64(3), v, "a given Version wins over the state's")

	for placeholder, want := range map[string]string{
		"${ref:BRIEF@1}":          "has no artifact of type BRIEF (it records COPY_PACKAGE)",
		"${ref:COPY_PACKAGE@3}":   "has no COPY_PACKAGE v3 (COPY_PACKAGE has v1, v2)",
		"${hash:COPY_PACKAGE@x}":  "want TYPE@N (a version number) or TYPE@latest",
		"${ref:COPY_PACKAGE}":     "want TYPE@N",
		"${conflict_id}":          "no conflict was opened",
		"${nonsense}":             "unknown placeholder ${nonsense}",
		"${ref:COPY_PACKAGE@-1}":  "want TYPE@N",
		"${hash:COPY_PACKAGE@0}":  "want TYPE@N",
		"${state_version} extra}": "unknown placeholder",
	} {
		_, err := resolver(&got).Replace(context.Background(), []any{placeholder})
		require.Error(t, err, placeholder)
		assert.Contains(t, err.Error(), want, placeholder)
	}

	r = resolver(&got)
	r.Workflow = "wf-9"
	_, err = r.Replace(context.Background(), "${ref:COPY_PACKAGE@1}")
	assert.ErrorIs(t, err, store.ErrNotFound, "an unknown workflow is store.ErrNotFound")
	r.Workflow = ""
	_, err = r.Replace(context.Background(), "${state_version}")
	assert.ErrorContains(t, err, "names no workflow")
}

// TestResolverKeepsMissing: with Missing, a reference to a version not recorded stays
// as written and is reported; every other failure still fails.
func TestResolverKeepsMissing(t *testing.T) {
	st := &engine.State{Artifacts: map[string]*engine.ArtifactHistory{
		"BRIEF": {ID: "brief", Latest: 1, Versions: map[string]*engine.ArtifactVersion{"1": {Ref: engine.ArtifactRef{ID: "brief", Type: "BRIEF", Version: 1, Hash: "sha256:aa"}}}},
	}}
	var missing []string
	r := &Resolver{Tenant: "acme", Workflow: "wf-1",
		State:   func(context.Context, string, string) (*engine.State, error) { return st, nil },
		Missing: func(p string) { missing = append(missing, p) }}
	v, err := r.Replace(context.Background(), []any{"${ref:COPY@latest}", "${hash:BRIEF@2}", "${ref:BRIEF@latest}"})
	require.NoError(t, err)
	assert.Equal(t, []any{"${ref:COPY@latest}", "${hash:BRIEF@2}",
		map[string]any{"id": "brief", "type": "BRIEF", "version": 1, "hash": "sha256:aa"}}, v)
	assert.Equal(t, []string{"${ref:COPY@latest}", "${hash:BRIEF@2}"}, missing)
	_, err = r.Replace(context.Background(), []any{"${ref:BRIEF@x}"})
	assert.ErrorContains(t, err, "want TYPE@N")
	_, err = r.Replace(context.Background(), []any{"${conflict_id}"})
	assert.Error(t, err)
}
