package bundle

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine/internal/contract"
)

// copyFS reads a whole file system into memory, so a test can change it.
func copyFS(t *testing.T, fsys fs.FS) fstest.MapFS {
	out := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	}))
	return out
}

func TestShippedTablesAreFresh(t *testing.T) {
	require.NoError(t, CheckTables(Shipped()))
}

func TestStaleAndMissingTablesAreNamed(t *testing.T) {
	b := Shipped()
	pfs := copyFS(t, b.Policies)
	b.Policies = pfs
	tables, err := ExportTables(b)
	require.NoError(t, err)
	require.Contains(t, tables, contract.CoreTablesPath)

	pfs[contract.CoreTablesPath] = &fstest.MapFile{Data: []byte(`{}`)}
	var stale *StaleTablesError
	require.ErrorAs(t, CheckTables(b), &stale)
	assert.Equal(t, contract.CoreTablesPath, stale.Path)

	delete(pfs, contract.CoreTablesPath)
	require.ErrorAs(t, CheckTables(b), &stale)
	assert.Equal(t, contract.CoreTablesPath, stale.Path)

	// Formatting is not staleness: the tables are compared as JSON values.
	pfs[contract.CoreTablesPath] = &fstest.MapFile{Data: append([]byte(" "), tables[contract.CoreTablesPath]...)}
	require.NoError(t, CheckTables(b))
}

func TestDigestsCoverEachPackAndNotTheOthers(t *testing.T) {
	b := Shipped()
	cfs := copyFS(t, b.Contracts)
	b.Contracts = cfs
	all, packs, err := b.Digests([]string{"a", "b"})
	require.NoError(t, err)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, all)

	cfs["a/a.cue"] = &fstest.MapFile{Data: []byte("package a\n")}
	all2, packs2, err := b.Digests([]string{"a", "b"})
	require.NoError(t, err)
	assert.NotEqual(t, all, all2)
	assert.NotEqual(t, packs["a"], packs2["a"], "a file of pack a changes a's digest")
	assert.Equal(t, packs["b"], packs2["b"], "and not b's")

	cfs["a/a_test.rego"] = &fstest.MapFile{Data: []byte("package a_test\n")}
	cfs["a/notes.txt"] = &fstest.MapFile{Data: []byte("x")}
	all3, _, err := b.Digests([]string{"a", "b"})
	require.NoError(t, err)
	assert.Equal(t, all2, all3, "tests and other files are not part of the bundle")
}
