package engine

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInternalPackagesImportOnlyDownward: the packages under engine/internal link the
// vocabulary, the module's internal leaves and each other, never the engine, the store
// or anything above them.
func TestInternalPackagesImportOnlyDownward(t *testing.T) {
	const module = "github.com/handoff-dev/handoff"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./internal/...").Output()
	require.NoError(t, err)
	var internal int
	for _, dep := range strings.Fields(string(out)) {
		if !strings.HasPrefix(dep, module+"/") {
			continue
		}
		rest := strings.TrimPrefix(dep, module+"/")
		switch {
		case strings.HasPrefix(rest, "engine/internal/"):
			internal++
		case strings.HasPrefix(rest, "internal/"):
		default:
			assert.Fail(t, "an engine/internal package links "+dep)
		}
	}
	assert.NotZero(t, internal, "no engine/internal package listed")
}
