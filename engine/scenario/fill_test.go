package scenario

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

func TestFillTemplate(t *testing.T) {
	st := &engine.State{WorkflowID: "wf-1", TenantID: "acme", OrganizationID: "acme-marketing", StateVersion: 4,
		Artifacts: map[string]*engine.ArtifactHistory{
			"COPY_PACKAGE": {ID: "copy", Latest: 2, Versions: map[string]*engine.ArtifactVersion{
				"1": {Ref: engine.ArtifactRef{ID: "copy", Type: "COPY_PACKAGE", Version: 1, Hash: "sha256:aa"}},
				"2": {Ref: engine.ArtifactRef{ID: "copy", Type: "COPY_PACKAGE", Version: 2, Hash: "sha256:bb"}},
			}},
		}}
	skeleton := []byte(`{"kind": "handoff", "tenant_id": "tenant_id", "workflow_id": "workflow_id", "trace_id": "<trace_id>",
		"confidence_score": 0.8,
		"input_artifacts": ["${ref:COPY_PACKAGE@latest}", "${ref:COPY_PACKAGE@1}", "${ref:BRIEF@latest}", "${ref:COPY_PACKAGE@9}"],
		"output": {"content": {"based_on": "${ref:BRIEF@latest}"}}}`)
	f, err := FillTemplate(context.Background(), skeleton, st, "trace-1")
	require.NoError(t, err)
	assert.Equal(t, "acme", f.Request["tenant_id"])
	assert.Equal(t, "wf-1", f.Request["workflow_id"])
	assert.Equal(t, "acme-marketing", f.Request["organization_id"])
	assert.Equal(t, "trace-1", f.Request["trace_id"])
	assert.Equal(t, "0.8", f.Request["confidence_score"].(interface{ String() string }).String(), "numbers keep their text")
	assert.Equal(t, []any{
		map[string]any{"id": "copy", "type": "COPY_PACKAGE", "version": 2, "hash": "sha256:bb"},
		map[string]any{"id": "copy", "type": "COPY_PACKAGE", "version": 1, "hash": "sha256:aa"},
		"${ref:BRIEF@latest}",
		"${ref:COPY_PACKAGE@9}",
	}, f.Request["input_artifacts"])
	assert.Equal(t, "${ref:BRIEF@latest}", f.Request["output"].(map[string]any)["content"].(map[string]any)["based_on"])
	assert.Equal(t, []string{"${ref:BRIEF@latest}", "${ref:COPY_PACKAGE@9}"}, f.Unresolved, "each once, in key order")

	f, err = FillTemplate(context.Background(), []byte(`{"trace_id": "<trace_id>"}`), st, "")
	require.NoError(t, err)
	assert.Equal(t, "<trace_id>", f.Request["trace_id"], "no trace known leaves the skeleton's")
	assert.Equal(t, []string{}, f.Unresolved)
}
