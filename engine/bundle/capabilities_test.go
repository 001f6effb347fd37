package bundle

import (
	"os"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capabilitiesPath is CapabilitiesFile seen from this package's directory.
const capabilitiesPath = "../capabilities.json"

// TestCapabilitiesFileIsFresh: the committed capabilities.json, which plain `opa check`
// and `opa test` read, is the engine's.
func TestCapabilitiesFileIsFresh(t *testing.T) {
	want, err := CapabilitiesJSON()
	require.NoError(t, err)
	got, err := os.ReadFile(capabilitiesPath)
	require.NoError(t, err)
	assert.True(t, string(got) == string(want),
		"%s is not the engine's capabilities: run 'handoffctl lint --write-capabilities' in the repository root", CapabilitiesFile)

	caps, err := ast.LoadCapabilitiesFile(capabilitiesPath)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, b := range caps.Builtins {
		names[b.Name] = true
	}
	for _, name := range []string{"http.send", "time.now_ns", "rand.intn", "uuid.rfc4122", "opa.runtime", "net.lookup_ip_addr"} {
		assert.False(t, names[name], "%s is removed", name)
	}
	for _, name := range []string{"time.parse_rfc3339_ns", "sprintf", "count"} {
		assert.True(t, names[name], "%s is kept", name)
	}
}
