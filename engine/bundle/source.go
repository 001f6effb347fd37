package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"
)

// Limits of a bundle read into memory, from a directory or an archive: beyond them a
// bundle is refused rather than read whole.
const (
	MaxBundleBytes = 64 << 20 // the files' total size
	MaxBundleFiles = 10_000
)

// parts are the two trees of a bundle, as a directory and an archive lay them out.
var parts = []string{"contracts", "policies"}

// Load reads the bundle at source into memory: a directory laid out as the repository
// (source/contracts and source/policies) or a bundle archive (IsArchive). What it
// returns no longer depends on the files: a bundle edited after Load is the next Load's.
// Its digest (Digest) and what a Decider compiles from it are therefore one and the same.
func Load(source string) (Bundle, error) {
	if IsArchive(source) {
		return ReadArchiveFile(source)
	}
	return readDir(source)
}

// IsArchive says whether source names a bundle archive: a .tar.gz or .tgz file.
func IsArchive(source string) bool {
	return strings.HasSuffix(source, ".tar.gz") || strings.HasSuffix(source, ".tgz")
}

// readDir reads the regular files of dir/contracts and dir/policies.
func readDir(dir string) (Bundle, error) {
	files := fstest.MapFS{}
	var total int64
	for _, part := range parts {
		root := filepath.Join(dir, part)
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return Bundle{}, fmt.Errorf("bundle %s has no %s directory: a bundle is DIR/contracts (a CUE module) and DIR/policies", dir, part)
		}
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if !d.Type().IsRegular() {
				return fmt.Errorf("bundle %s: %s/%s is not a regular file (links are not part of a bundle)", dir, part, p)
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				return err
			}
			if total += int64(len(data)); total > MaxBundleBytes || len(files) >= MaxBundleFiles {
				return fmt.Errorf("bundle %s is over %d MiB or %d files", dir, MaxBundleBytes>>20, MaxBundleFiles)
			}
			files[path.Join(part, p)] = &fstest.MapFile{Data: data, Mode: 0o444}
			return nil
		})
		if err != nil {
			return Bundle{}, err
		}
	}
	return fromFiles(files)
}

// fromFiles is the bundle of a tree of files whose paths start with contracts/ or
// policies/.
func fromFiles(files fstest.MapFS) (Bundle, error) {
	var b Bundle
	for _, part := range parts {
		sub, err := fs.Sub(files, part)
		if err != nil {
			return Bundle{}, err
		}
		if fi, err := fs.Stat(files, part); err != nil || !fi.IsDir() {
			return Bundle{}, errors.New("the bundle has no " + part + " directory: a bundle is contracts/ (a CUE module) and policies/")
		}
		if part == "contracts" {
			b.Contracts = sub
		} else {
			b.Policies = sub
		}
	}
	return b, nil
}

// Digest is the digest of a bundle as every decision it makes records it
// (engine.Decider.BundleDigest), computed from its files without compiling them.
func Digest(b Bundle) (string, error) {
	d, _, err := b.Digests(nil)
	return d, err
}
