package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	cueformat "cuelang.org/go/cue/format"
	"github.com/open-policy-agent/opa/v1/ast"
	regoformat "github.com/open-policy-agent/opa/v1/format"
)

// Format formats one source file of a bundle by its name: a .cue file as 'cue fmt'
// does, any other as Rego (v1), as 'opa fmt' does. An error names the file.
func Format(name string, src []byte) ([]byte, error) {
	if strings.HasSuffix(name, ".cue") {
		out, err := cueformat.Source(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.ToSlash(name), err)
		}
		return out, nil
	}
	return regoformat.SourceWithOpts(filepath.ToSlash(name), src, regoformat.Opts{
		RegoVersion:   ast.RegoV1,
		ParserOptions: &ast.ParserOptions{RegoVersion: ast.RegoV1},
	})
}

// SourceFiles lists the .rego and .cue files of a path: the file itself, or those under
// the directory, hidden directories left out.
func SourceFiles(root string) ([]string, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if !isSource(root) {
			return nil, fmt.Errorf("%s is neither a .rego nor a .cue file", root)
		}
		return []string{root}, nil
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && isSource(p) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

func isSource(p string) bool {
	return strings.HasSuffix(p, ".rego") || strings.HasSuffix(p, ".cue")
}
