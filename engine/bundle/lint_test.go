package bundle

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShippedBundleLintsClean(t *testing.T) {
	findings, err := Lint(context.Background(), Shipped(), LintOptions{})
	require.NoError(t, err)
	assert.Empty(t, findings)
}

func TestLintFindings(t *testing.T) {
	b := Shipped()
	pfs := copyFS(t, b.Policies)
	b.Policies = pfs
	pfs["handoff/extra/extra.rego"] = &fstest.MapFile{Data: []byte("package handoff.extra\n\nx := time.now_ns()\n")}
	findings, err := Lint(context.Background(), b, LintOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, findings)
	assert.Equal(t, "policies/handoff/extra/extra.rego", findings[0].File)
	assert.Equal(t, 3, findings[0].Line)
	assert.Contains(t, findings[0].String(), "policies/handoff/extra/extra.rego:3: ")
	assert.Contains(t, findings[0].Message, "removes it on purpose")

	// Load is asked only when nothing else is found.
	loaded := false
	load := func(context.Context, Bundle) error { loaded = true; return errors.New("no entrypoint") }
	_, err = Lint(context.Background(), b, LintOptions{Load: load})
	require.NoError(t, err)
	assert.False(t, loaded)
	findings, err = Lint(context.Background(), Shipped(), LintOptions{Load: load})
	require.NoError(t, err)
	assert.True(t, loaded)
	assert.Equal(t, []Finding{{File: "policies", Message: "no entrypoint"}}, findings)
}
