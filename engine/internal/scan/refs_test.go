package scan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCollectRefsFindsEveryReference(t *testing.T) {
	req := map[string]any{
		"input_artifacts": []any{map[string]any{"id": "a", "type": "T", "version": json.Number("1"), "hash": "sha256:1"}},
		"context": map[string]any{
			"sources": []any{
				map[string]any{"kind": "approved_artifact", "ref": map[string]any{"id": "b", "type": "U", "version": json.Number("2"), "hash": "sha256:2", "status": "approved"}},
				map[string]any{"id": "c", "type": "U", "version": json.Number("2.5"), "hash": "sha256:3"},
				map[string]any{"id": "d", "type": "U", "hash": "sha256:4"},
			},
		},
	}
	assert.Equal(t, []any{
		map[string]any{"path": "context.sources[0].ref", "id": "b", "type": "U", "version": json.Number("2"), "hash": "sha256:2"},
		map[string]any{"path": "input_artifacts[0]", "id": "a", "type": "T", "version": json.Number("1"), "hash": "sha256:1"},
	}, Refs(req))
	assert.Equal(t, []any{}, Refs(nil))
}
