package policiestest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// TestTablesCurrent fails when a committed contract table is not exactly what CUE
// exports: CUE is the single source of truth. Run `handoffctl tables --write` to refresh.
func TestTablesCurrent(t *testing.T) {
	want, err := engine.ExportTables(engine.DirBundle(".."))
	require.NoError(t, err)
	require.NotEmpty(t, want)
	for path, w := range want {
		got, err := os.ReadFile(filepath.Join("..", "policies", path))
		require.NoError(t, err, "table %s is not committed", path)
		assert.Equal(t, string(w), string(got), "table %s is stale: run `go run ./cmd/handoffctl tables --write`", path)
	}
}
