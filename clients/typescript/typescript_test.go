// Package typescript_test runs the TypeScript client's suite (the client, the Agents SDK
// and LangGraph adapters, both examples) from `go test ./...`, against a handoffctl built
// from this checkout, and checks the package npm users install: packed, then installed
// into a fresh ES module project and a fresh CommonJS one, each type-checked and run.
// Without Node.js 20 or later and npm on PATH it says so and is skipped, unless
// HANDOFF_REQUIRE_NODE=1 (set by CI), which fails it instead.
package typescript_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestTypeScript(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the TypeScript suite starts real servers")
	}
	requireNode(t)
	installLocked(t)
	bin := handoffctl(t)
	readSources(t, bin)
	run(t, "", []string{"HANDOFFCTL=" + bin}, "npm", "test")
}

// The packages a consumer installs beside the tarball, at the lockfile's versions: the
// frameworks (optional peers of the package, and zod, theirs) and the compiler.
var consumerPackages = []string{"@openai/agents", "zod", "@langchain/langgraph", "@langchain/core", "typescript", "@types/node"}

// TestPackedPackage packs the package as npm would publish it, checks what the tarball
// holds, then installs it for a fresh ES module project and a fresh CommonJS project
// (testdata/consumers), type-checks each with its own module settings and runs it against
// a real handoffctl serve.
func TestPackedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the packed package's consumers start real servers")
	}
	requireNode(t)
	installLocked(t)
	bin := handoffctl(t)
	readSources(t, bin)

	dest := t.TempDir()
	run(t, "", nil, "npm", "pack", "--pack-destination", dest) // its prepack builds dist/esm and dist/cjs
	tarballs, err := filepath.Glob(filepath.Join(dest, "*.tgz"))
	if err != nil || len(tarballs) != 1 {
		t.Fatalf("npm pack made %v (%v), want one tarball", tarballs, err)
	}
	checkTarball(t, tarballs[0])

	// One install serves both projects, side by side below it (as in a repository of
	// several packages): Node.js and tsc resolve @handoff/client from each project's folder
	// up, through the conditions of the module system its own package.json sets.
	root := t.TempDir()
	installs := []string{"install", "--prefer-offline", "--no-audit", "--no-fund", tarballs[0]}
	for _, name := range consumerPackages {
		installs = append(installs, name+"@"+lockedVersion(t, name))
	}
	run(t, root, nil, "npm", installs...)
	tsc := filepath.Join(root, "node_modules", "typescript", "bin", "tsc")
	for system, want := range map[string]string{"esm": "module", "cjs": "commonjs"} {
		t.Run(system, func(t *testing.T) {
			t.Parallel()
			project := filepath.Join(root, system)
			if err := os.Mkdir(project, 0o755); err != nil {
				t.Fatal(err)
			}
			copyFile(t, filepath.Join("testdata", "consumers", "main.ts"), filepath.Join(project, "main.ts"))
			for _, name := range []string{"package.json", "tsconfig.json"} {
				copyFile(t, filepath.Join("testdata", "consumers", system, name), filepath.Join(project, name))
			}
			run(t, project, nil, "node", tsc, "-p", ".")
			out := output(t, project, []string{"HANDOFFCTL=" + bin}, "node", filepath.Join("out", "main.js"))
			var ran struct {
				Module, Outcome string
				StatusAfter     string `json:"status_after"`
			}
			if err := json.Unmarshal(bytes.TrimSpace(out), &ran); err != nil {
				t.Fatalf("main.js printed %q: %v", out, err)
			}
			if ran.Module != want || ran.Outcome != "allow" || ran.StatusAfter != "RESEARCH" {
				t.Errorf("main.js ran as %q: %s to %s, want %q: allow to RESEARCH", ran.Module, ran.Outcome, ran.StatusAfter, want)
			}
		})
	}
}

// checkTarball checks that the tarball holds both builds, whatever its exports map
// names, a nested package.json giving each build its module system, and the README, and
// nothing else: no sources, tests, examples or source maps.
func checkTarball(t *testing.T, tarball string) {
	t.Helper()
	files := tarballFiles(t, tarball)
	var unshipped []string
	for name := range files {
		shipped := name == "package.json" || name == "README.md" ||
			(strings.HasPrefix(name, "dist/esm/") || strings.HasPrefix(name, "dist/cjs/")) &&
				(strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".d.ts") || path.Base(name) == "package.json")
		if !shipped {
			unshipped = append(unshipped, name)
		}
	}
	if len(unshipped) > 0 {
		slices.Sort(unshipped)
		t.Errorf("the tarball holds %d files the package does not ship: %s", len(unshipped), strings.Join(unshipped[:min(len(unshipped), 8)], ", "))
	}
	for build, system := range map[string]string{"dist/esm": "module", "dist/cjs": "commonjs"} {
		var nested struct{ Type string }
		if err := json.Unmarshal(files[build+"/package.json"], &nested); err != nil || nested.Type != system {
			t.Errorf("%s/package.json is %q (%v), want type %q", build, files[build+"/package.json"], err, system)
		}
	}
	if len(files["README.md"]) == 0 {
		t.Error("the tarball has no README.md")
	}
	var manifest struct {
		Private bool
		Exports map[string]json.RawMessage
	}
	if err := json.Unmarshal(files["package.json"], &manifest); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	if manifest.Private {
		t.Error(`package.json says "private": true: npm refuses to publish it`)
	}
	for _, subpath := range []string{".", "./agents", "./langgraph", "./packs", "./packs/*"} {
		var conditions map[string]struct{ Types, Default string }
		if err := json.Unmarshal(manifest.Exports[subpath], &conditions); err != nil {
			t.Errorf("exports[%q]: %v", subpath, err)
			continue
		}
		for _, condition := range []string{"import", "require"} {
			target := conditions[condition]
			if target.Types == "" || target.Default == "" {
				t.Errorf("exports[%q].%s names no types or no default", subpath, condition)
			}
			for _, file := range []string{target.Types, target.Default} {
				if file == "" {
					continue
				}
				// A pattern's target, for one shipped pack.
				file = strings.TrimPrefix(strings.ReplaceAll(file, "*", "support"), "./")
				if _, ok := files[file]; !ok {
					t.Errorf("exports[%q].%s names %s, which the tarball does not hold", subpath, condition, file)
				}
			}
		}
	}
}

// tarballFiles reads a package tarball: each file's content, by its path in the package.
func tarballFiles(t *testing.T, tarball string) map[string][]byte {
	t.Helper()
	f, err := os.Open(tarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	r := tar.NewReader(gz)
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(h.Name, "package/")] = content
	}
}

// lockedVersion is the version of a package the committed lockfile installs.
func lockedVersion(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct{ Version string }
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatal(err)
	}
	version := lock.Packages["node_modules/"+name].Version
	if version == "" {
		t.Fatalf("package-lock.json installs no %s", name)
	}
	return version
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// installLocked installs the packages of the committed lockfile, again when it changed.
func installLocked(t *testing.T) {
	t.Helper()
	lock, err := os.Stat("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if installed, err := os.Stat(filepath.Join("node_modules", ".package-lock.json")); err != nil || installed.ModTime().Before(lock.ModTime()) {
		run(t, "", nil, "npm", "ci", "--no-audit", "--no-fund")
	}
}

// handoffctl is $HANDOFFCTL, a handoffctl already built from this checkout (CI builds
// one), or one built now.
func handoffctl(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("HANDOFFCTL"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "handoffctl")
	run(t, "", nil, "go", "build", "-o", bin, "../../cmd/handoffctl")
	return bin
}

func requireNode(t *testing.T) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("HANDOFF_REQUIRE_NODE") == "1" {
			t.Fatalf("Node.js is required (HANDOFF_REQUIRE_NODE=1): %s", why)
		}
		t.Skipf("%s: install Node.js 20 or later with npm to run the TypeScript client's tests", why)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		missing("npm is not on PATH")
		return
	}
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		missing("node is not on PATH")
		return
	}
	m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(out)
	if m == nil {
		missing("node --version says " + string(out))
		return
	}
	if major, _ := strconv.Atoi(string(m[1])); major < 20 {
		missing("node " + string(out) + " is older than 20")
	}
}

// run runs a command in dir ("" for this folder) and fails the test when it fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	if testing.Verbose() {
		t.Logf("%s %v:\n%s", name, args, out)
	}
}

// output runs a command in dir and answers its standard output; its standard error is
// shown only when it fails.
func output(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, stderr.Bytes())
	}
	return out
}
