package handoff_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/handoff-dev/handoff"

// heavy are the dependencies a light package must not link: the policy engine, CUE and
// the store backends.
var heavy = []string{
	"github.com/open-policy-agent/opa",
	"cuelang.org/go",
	"github.com/dgraph-io/badger",
	"github.com/jackc/pgx",
}

// layer is one rule of the tree's layering: the packages matched link none of the
// forbidden packages (matchesAny), except those allowed. A direct rule holds only the
// packages' own imports: what they link through others is those others' concern.
type layer struct {
	name     string
	packages string // a go list pattern
	forbid   []string
	allow    []string
	direct   bool
}

var layers = []layer{
	{name: "the vocabulary links the standard library only", packages: module,
		forbid: []string{module + "/", "github.com/", "golang.org/", "cuelang.org/", "google.golang.org/", "go.opentelemetry.io/"}},
	{name: "internal packages link only internal packages of the module", packages: module + "/internal/...",
		forbid: []string{module}, allow: []string{module + "/internal/"}},
	{name: "the Go client links no policy engine, CUE or backend", packages: module + "/service/client",
		forbid: heavy},
	{name: "the MCP server is a client of the service: it links no policy engine, CUE or backend",
		packages: module + "/service/mcp", forbid: heavy},
	{name: "the store contract links neither backend", packages: module + "/store",
		forbid: []string{"github.com/dgraph-io/badger", "github.com/jackc/pgx"}},
	{name: "the engine's internal packages link only the vocabulary, internal leaves and each other",
		packages: module + "/engine/internal/...", forbid: []string{module + "/"},
		allow: []string{module + "/engine/internal/", module + "/internal/"}},
	{name: "the bundle's tools link no engine, store or service",
		packages: module + "/engine/bundle", forbid: []string{module + "/engine", module + "/store", module + "/service"},
		allow: []string{module + "/engine/internal/"}},
	{name: "handoffctl reaches OPA and CUE only through the engine and engine/bundle",
		packages: module + "/cmd/handoffctl/...", forbid: []string{"github.com/open-policy-agent/opa", "cuelang.org/go"},
		direct: true},
	{name: "engine/governance links no backend and does not import package engine",
		packages: module + "/engine/governance",
		forbid:   []string{"github.com/dgraph-io/badger", "github.com/jackc/pgx", module + "/engine"},
		allow:    []string{module + "/engine/internal/", module + "/engine/governance"}},
}

// TestLayering keeps the tree's imports pointing down (go list -deps of each rule's
// packages, or their imports for a direct rule).
func TestLayering(t *testing.T) {
	for _, l := range layers {
		t.Run(l.name, func(t *testing.T) {
			list := depsOf
			if l.direct {
				list = importsOf
			}
			for pkg, deps := range list(t, l.packages) {
				for _, d := range deps {
					if d == pkg || !matchesAny(d, l.forbid) || matchesAny(d, l.allow) {
						continue
					}
					assert.Fail(t, "forbidden dependency", "%s links %s", pkg, d)
				}
			}
		})
	}
}

// TestOnlyServiceImportsTheConsole: the console is the service's pages, not a library.
func TestOnlyServiceImportsTheConsole(t *testing.T) {
	for pkg, imports := range importsOf(t, module+"/...") {
		for _, imp := range imports {
			if imp == module+"/service/console" {
				assert.Equal(t, module+"/service", pkg, "only the service imports the console")
			}
		}
	}
}

func depsOf(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for pkg := range importsOf(t, pattern) {
		out[pkg] = golist(t, "-deps", pkg)
	}
	return out
}

func importsOf(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, line := range golist(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", pattern) {
		f := strings.Fields(line)
		out[f[0]] = f[1:]
	}
	return out
}

func golist(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	b, err := cmd.Output()
	require.NoError(t, err, "go list %v", args)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// matchesAny reports whether the import path s is one of patterns: a pattern ending in
// "/" is a prefix (module+"/" is every package below the root, not the root); any other
// is that package and those below it.
func matchesAny(s string, patterns []string) bool {
	for _, p := range patterns {
		if strings.HasSuffix(p, "/") && strings.HasPrefix(s, p) || s == p || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}
