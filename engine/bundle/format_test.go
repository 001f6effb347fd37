package bundle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatRegoAndCUE(t *testing.T) {
	out, err := Format("p.rego", []byte("package p\nx := 1\n"))
	require.NoError(t, err)
	assert.Equal(t, "package p\n\nx := 1\n", string(out))

	out, err = Format("c.cue", []byte("package c\nx:   1\n"))
	require.NoError(t, err)
	assert.Equal(t, "package c\n\nx: 1\n", string(out))

	_, err = Format("dir/c.cue", []byte("package c\nx: {\n"))
	require.ErrorContains(t, err, "dir/c.cue: ")
}

func TestSourceFilesSkipHiddenDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.rego", "b/c.cue", "b/d.json", ".git/e.rego"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), nil, 0o644))
	}
	files, err := SourceFiles(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "a.rego"), filepath.Join(dir, "b", "c.cue")}, files)

	_, err = SourceFiles(filepath.Join(dir, "b", "d.json"))
	require.ErrorContains(t, err, "is neither a .rego nor a .cue file")
}
