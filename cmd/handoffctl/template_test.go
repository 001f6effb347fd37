package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTemplateUnknownNames: an unknown pack, kind, agent or output type is a usage error
// that lists the closest names.
func TestTemplateUnknownNames(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"template", "vidoe", "start"}, `no pack "vidoe" in the bundle; closest: video`},
		{[]string{"template", "video", "hadnoff"}, "closest: handoff"},
		{[]string{"template", "video", "handoff", "--target", "screenwritr"}, "closest: screenwriter"},
		{[]string{"template", "campaign", "handoff", "--target", "qa_agent", "--source", "copywriter", "--output", "COPY_PACKAG"}, "closest: COPY_PACKAGE"},
		{[]string{"template", "campaign", "review", "--output", "COPY_PACKAGE"}, "--source and --output go with --target"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), c.args, strings.NewReader(""), &stdout, &stderr)
		require.Equal(t, exitUsage, code, "%v: %s", c.args, stderr.String())
		assert.Contains(t, stderr.String(), c.want, c.args)
	}
}
