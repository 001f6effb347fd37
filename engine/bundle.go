package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff/contracts"
	"github.com/handoff-dev/handoff/policies"
)

// Bundle is a set of contracts and policies: a CUE module (cue.mod, core/ and one
// directory per pack) and a Rego tree (handoff/core/ and handoff/<pack>/ with the
// contract tables exported as JSON).
type Bundle struct {
	Contracts fs.FS
	Policies  fs.FS
}

// ShippedBundle returns the packs embedded in the engine.
func ShippedBundle() Bundle {
	return Bundle{Contracts: contracts.FS, Policies: policies.FS}
}

// DirBundle returns the bundle in a directory laid out as the repository is: dir/contracts
// and dir/policies. Governance teams edit a copy of both.
func DirBundle(dir string) Bundle {
	return Bundle{
		Contracts: os.DirFS(filepath.Join(dir, "contracts")),
		Policies:  os.DirFS(filepath.Join(dir, "policies")),
	}
}

// digest is the sha256 over every CUE, Rego and JSON file of the bundle, path and content.
func (b Bundle) digest() (string, error) {
	h := sha256.New()
	for _, part := range []struct {
		name string
		fsys fs.FS
	}{{"contracts", b.Contracts}, {"policies", b.Policies}} {
		var files []string
		err := fs.WalkDir(part.fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && bundleFile(p) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := fs.ReadFile(part.fsys, f)
			if err != nil {
				return "", err
			}
			sum := sha256.Sum256(data)
			h.Write([]byte(part.name + "/" + f + "\x00" + hex.EncodeToString(sum[:]) + "\n"))
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// bundleFile says whether a file is part of a bundle (tests are not).
func bundleFile(p string) bool {
	switch path.Ext(p) {
	case ".cue", ".json":
		return true
	case ".rego":
		return !strings.HasSuffix(p, "_test.rego")
	}
	return false
}
