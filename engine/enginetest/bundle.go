// Package enginetest holds what the tests of the packages built on the engine share:
// bundles changed as a governance team changes them.
package enginetest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/handoff-dev/handoff/engine"
)

// Edit changes one file of a bundle: it gets the file and returns it changed.
type Edit func(t testing.TB, data []byte) []byte

// Edits change files of the shipped bundle, by their path in its contracts tree or its
// policies tree.
type Edits struct {
	Contracts map[string]Edit
	Policies  map[string]Edit
}

// Replace is an edit that replaces old by new, once; the file must hold old.
func Replace(old, new string) Edit {
	return func(t testing.TB, data []byte) []byte {
		t.Helper()
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("the file does not hold %q", old)
		}
		return bytes.Replace(data, []byte(old), []byte(new), 1)
	}
}

// EditedBundle is the shipped bundle with the edits made and its contract tables
// exported again from the edited CUE, as a governance team does before it ships.
func EditedBundle(t testing.TB, e Edits) engine.Bundle {
	t.Helper()
	shipped := engine.ShippedBundle()
	b := engine.Bundle{Contracts: edited(t, shipped.Contracts, e.Contracts), Policies: edited(t, shipped.Policies, e.Policies)}
	tables, err := engine.ExportTables(b)
	if err != nil {
		t.Fatalf("export the edited bundle's tables: %v", err)
	}
	for p, data := range tables {
		b.Policies.(fstest.MapFS)[p] = &fstest.MapFile{Data: data}
	}
	return b
}

// WriteBundle writes b as a bundle directory, dir/contracts and dir/policies, for a
// command or a server to load.
func WriteBundle(t testing.TB, b engine.Bundle, dir string) {
	t.Helper()
	for sub, src := range map[string]fs.FS{"contracts": b.Contracts, "policies": b.Policies} {
		err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(src, p)
			if err != nil {
				return err
			}
			out := filepath.Join(dir, sub, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, data, 0o644)
		})
		if err != nil {
			t.Fatalf("write the bundle: %v", err)
		}
	}
}

// edited copies src with the files of edits changed; an edit of a file src lacks, or
// one that changes nothing, fails t.
func edited(t testing.TB, src fs.FS, edits map[string]Edit) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(src, p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatalf("copy the bundle: %v", err)
	}
	for p, edit := range edits {
		f, ok := out[p]
		if !ok {
			t.Fatalf("the bundle has no file %s", p)
		}
		changed := edit(t, f.Data)
		if bytes.Equal(changed, f.Data) {
			t.Fatalf("the edit of %s changes nothing", p)
		}
		out[p] = &fstest.MapFile{Data: changed}
	}
	return out
}
