package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/handoff-dev/handoff/contracts"
	"github.com/handoff-dev/handoff/engine/internal/policy"
	"github.com/handoff-dev/handoff/policies"
)

// Bundle is a set of contracts and policies: a CUE module (cue.mod, core/ and one
// directory per pack) and a Rego tree (handoff/core/ and handoff/<pack>/ with the
// contract tables exported as JSON).
type Bundle struct {
	Contracts fs.FS
	Policies  fs.FS
}

// Shipped returns the packs embedded in the engine.
func Shipped() Bundle {
	return Bundle{Contracts: contracts.FS, Policies: policies.FS}
}

// Dir returns the bundle in a directory laid out as the repository is: dir/contracts
// and dir/policies. Governance teams edit a copy of both.
func Dir(dir string) Bundle {
	return Bundle{
		Contracts: os.DirFS(filepath.Join(dir, "contracts")),
		Policies:  os.DirFS(filepath.Join(dir, "policies")),
	}
}

// Digests are the digest of the whole bundle and, for each pack, the digest of the
// files its decisions can depend on: every file but the other packs' directories. Each
// is a sha256 over the CUE, Rego and JSON files it covers, path and content.
func (b Bundle) Digests(packs []string) (string, map[string]string, error) {
	type file struct{ dir, line string }
	var files []file
	for _, part := range []struct {
		name string
		fsys fs.FS
		dir  func(string) string // the pack directory a file is in, or ""
	}{
		{"contracts", b.Contracts, func(p string) string { return strings.SplitN(p, "/", 2)[0] }},
		{"policies", b.Policies, policy.FileOwner},
	} {
		var paths []string
		err := fs.WalkDir(part.fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && bundleFile(p) {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return "", nil, err
		}
		sort.Strings(paths)
		for _, p := range paths {
			data, err := fs.ReadFile(part.fsys, p)
			if err != nil {
				return "", nil, err
			}
			sum := sha256.Sum256(data)
			files = append(files, file{part.dir(p), part.name + "/" + p + "\x00" + hex.EncodeToString(sum[:]) + "\n"})
		}
	}
	digest := func(keep func(dir string) bool) string {
		h := sha256.New()
		for _, f := range files {
			if keep(f.dir) {
				h.Write([]byte(f.line))
			}
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	perPack := map[string]string{}
	for _, pack := range packs {
		perPack[pack] = digest(func(dir string) bool { return dir == pack || !slices.Contains(packs, dir) })
	}
	return digest(func(string) bool { return true }), perPack, nil
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
