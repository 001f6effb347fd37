package bundle

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersions(t *testing.T) {
	opa, cue := Versions([]*debug.Module{
		{Path: "github.com/google/uuid", Version: "v1.6.0"},
		{Path: "cuelang.org/go", Version: "v0.12.0"},
		{Path: "github.com/open-policy-agent/opa", Version: "v1.4.2"},
	})
	assert.Equal(t, "v1.4.2", opa)
	assert.Equal(t, "v0.12.0", cue)

	opa, cue = Versions(nil)
	assert.Empty(t, opa)
	assert.Empty(t, cue)
}
