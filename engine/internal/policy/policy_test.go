package policy

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFileOwner(t *testing.T) {
	for path, want := range map[string]string{
		"handoff/core/common.rego":    "core",
		"handoff/campaign/qa.rego":    "campaign",
		"handoff/campaign/sub/x.rego": "campaign",
		"handoff/top.rego":            "",
		"lib/status.rego":             "",
	} {
		assert.Equal(t, want, FileOwner(path), path)
	}
}

func TestModuleOwner(t *testing.T) {
	for src, want := range map[string]string{
		"package handoff.core\n":        "core",
		"package handoff.core.tables\n": "core",
		"package handoff.campaign\n":    "campaign",
		"package handoff\n":             "",
		"package lib.status\n":          "",
		"package handoff_engine.memo\n": "",
	} {
		m, err := ast.ParseModuleWithOpts("m.rego", src, ast.ParserOptions{RegoVersion: ast.RegoV1})
		require.NoError(t, err)
		assert.Equal(t, want, moduleOwner(m), src)
	}
}
