package bundle

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing/fstest"
)

// newPackFS holds the pack New writes, with __PACK__ where the pack's name goes: a code
// review (an author, a reviewer, one artifact, one review loop, a maintainer's merge
// approval), its Rego unit tests and two scenarios, a happy path and a failure path.
//
//go:embed newpack
var newPackFS embed.FS

// packPlaceholder is what the templates hold where the pack's name goes.
const packPlaceholder = "__PACK__"

// packName is a name that is a Rego package segment, a CUE package name and a directory.
var packName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// reservedNames are the names a pack may not take: the shared libraries' directories and
// the keywords of Rego and CUE, which cannot name a package.
var reservedNames = map[string]bool{
	"core": true, "lib": true,
	"as": true, "contains": true, "default": true, "else": true, "every": true, "false": true,
	"if": true, "import": true, "in": true, "not": true, "null": true, "package": true,
	"some": true, "true": true, "with": true,
	"for": true, "let": true, "div": true, "mod": true, "quo": true, "rem": true,
}

// CheckPackName says why name cannot name a new pack, or nil.
func CheckPackName(name string) error {
	switch {
	case !packName.MatchString(name) || strings.HasSuffix(name, "_test"):
		return fmt.Errorf("pack name %q is not a lower-case identifier (a letter, then letters, digits or _, at most 40, not ending in _test): it names a Rego package, a CUE package and a directory", name)
	case reservedNames[name]:
		return fmt.Errorf("pack name %q is reserved (the core, the library and the keywords of Rego and CUE)", name)
	}
	return nil
}

// NewPack is what New wrote.
type NewPack struct {
	// Bundle says that dir held no bundle, so New wrote one: the shipped core and library
	// beside the pack.
	Bundle bool
	// Files are the files written, relative to dir, slash-separated, in order.
	Files []string
}

// New writes a minimal, working pack named name into the bundle in dir: its contract
// (contracts/<name>), its policy with the contract tables exported from CUE
// (policies/handoff/<name>), and its Rego unit tests and scenarios
// (policies_test/handoff/<name>). When dir holds no bundle (see IsBundleDir) it writes a
// whole one: the shipped CUE module and core contracts, the core policies and the shared
// library, then the pack. It refuses a name a pack of the bundle already has and never
// overwrites a file: it checks every file first and writes none when one exists.
func New(dir, name string) (*NewPack, error) {
	if err := CheckPackName(name); err != nil {
		return nil, err
	}
	out := &NewPack{Bundle: !IsBundleDir(dir)}
	files := map[string][]byte{}
	if out.Bundle {
		shipped := Shipped()
		if err := copyFiles(files, shipped.Contracts, ".", "contracts", func(p string) bool {
			return p == "cue.mod" || p == "core"
		}); err != nil {
			return nil, err
		}
		if err := copyFiles(files, shipped.Policies, "handoff", "policies/handoff", func(p string) bool {
			return p == "handoff/core" || p == "handoff/lib"
		}); err != nil {
			return nil, err
		}
	} else {
		for _, existing := range []string{filepath.Join("contracts", name), filepath.Join("policies", "handoff", name)} {
			if _, err := os.Stat(filepath.Join(dir, existing)); err == nil {
				return nil, fmt.Errorf("bundle %s already has a pack %q (%s exists): choose another name", dir, name, existing)
			}
		}
	}
	if err := fs.WalkDir(newPackFS, "newpack", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(newPackFS, p)
		if err != nil {
			return err
		}
		files[packFile(p, name)] = []byte(strings.ReplaceAll(string(data), packPlaceholder, name))
		return nil
	}); err != nil {
		return nil, err
	}
	tables, err := packTables(dir, files, name, out.Bundle)
	if err != nil {
		return nil, err
	}
	maps.Copy(files, tables)

	paths := slices.Sorted(maps.Keys(files))
	for _, p := range paths {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil {
			return nil, fmt.Errorf("%s exists: new writes no file that is there already", filepath.Join(dir, filepath.FromSlash(p)))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, err
		}
		_, werr := f.Write(files[p])
		if err := errors.Join(werr, f.Close()); err != nil {
			return nil, err
		}
		out.Files = append(out.Files, p)
	}
	return out, nil
}

// packFile is where a template file of newpack goes in the bundle.
func packFile(p, name string) string {
	rel := strings.TrimSuffix(strings.TrimPrefix(p, "newpack/"), ".tmpl")
	switch {
	case strings.HasPrefix(rel, "contracts/"):
		return path.Join("contracts", name, name+".cue")
	case strings.HasPrefix(rel, "policies_test/scenarios/"):
		return path.Join("policies_test/handoff", name, "scenarios", path.Base(rel))
	case strings.HasPrefix(rel, "policies_test/"):
		return path.Join("policies_test/handoff", name, name+"_test.rego")
	default:
		return path.Join("policies/handoff", name, name+".rego")
	}
}

// packTables exports the new pack's contract tables from CUE, beside the CUE module and
// core of the bundle: dir's, or those about to be written with the pack.
func packTables(dir string, files map[string][]byte, name string, whole bool) (map[string][]byte, error) {
	src := files
	if !whole {
		src = map[string][]byte{}
		if err := copyFiles(src, os.DirFS(filepath.Join(dir, "contracts")), ".", "contracts", func(p string) bool {
			return p == "cue.mod" || p == "core"
		}); err != nil {
			return nil, err
		}
	}
	contracts := fstest.MapFS{}
	for _, m := range []map[string][]byte{src, files} {
		for p, data := range m {
			if rest, ok := strings.CutPrefix(p, "contracts/"); ok {
				contracts[rest] = &fstest.MapFile{Data: data}
			}
		}
	}
	all, err := ExportTables(Bundle{Contracts: contracts, Policies: fstest.MapFS{}})
	if err != nil {
		return nil, fmt.Errorf("export the tables of pack %s: %w", name, err)
	}
	tables := map[string][]byte{}
	for p, data := range all {
		if strings.HasPrefix(p, "handoff/"+name+"/") {
			tables["policies/"+p] = data
		}
	}
	return tables, nil
}

// copyFiles copies the files of fsys under root whose top directory below root keep
// accepts into files, under prefix.
func copyFiles(files map[string][]byte, fsys fs.FS, root, prefix string, keep func(string) bool) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if d.IsDir() {
			if path.Dir(p) == root && !keep(p) {
				return fs.SkipDir
			}
			return nil
		}
		if path.Dir(p) == root {
			return nil // files beside the kept directories (embed.go) are not the bundle's
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := p
		if root != "." {
			rel = strings.TrimPrefix(p, root+"/")
		}
		files[path.Join(prefix, rel)] = data
		return nil
	})
}
