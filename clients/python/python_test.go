// Package python_test runs the Python client's suite (the client, its JSON Schema
// validator, the generated pack types and a host playing one workflow of each pack)
// from `go test ./...`, against a handoffctl built from this checkout, as a user gets
// the client: the wheel built from pyproject.toml, installed with pip into a new
// virtual environment, and imported from there by a copy of the tests run outside the
// checkout. It needs a Python 3.11 or later with venv, build, setuptools and wheel
// (Debian's python3-venv, python3-build, python3-setuptools and python3-wheel); without
// one it says what is missing and is skipped, unless HANDOFF_REQUIRE_PYTHON=1 (set by
// CI), which fails it instead.
package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Python suite starts real servers")
	}
	python := packagingPython(t)
	// $HANDOFFCTL names a handoffctl already built from this checkout (CI builds one).
	bin := os.Getenv("HANDOFFCTL")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "handoffctl")
		run(t, "", nil, "go", "build", "-o", bin, "../../cmd/handoffctl")
	}
	// Stat'ed here so that go test's cache keys a passed run on the binary too (the
	// sources it builds from are read by the copies below).
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}

	// The tests as the checkout runs them, its package first on the path: only the
	// check of where handoff comes from, which needs no server.
	run(t, "", []string{"HANDOFF_PYTHON_INSTALLED="}, python, "-m", "unittest", "discover", "-s", "tests", "-p", "test_package.py")

	venv := installedClient(t, python)
	suite := t.TempDir()
	copyFiles(t, "tests", suite, "*.py")
	venvPython := filepath.Join(venv, "bin", "python")
	imported := strings.TrimSpace(run(t, suite, nil, venvPython, "-c", "import handoff; print(handoff.__file__)"))
	if !inside(t, imported, venv) {
		t.Fatalf("handoff is imported from %s, not from the virtual environment %s", imported, venv)
	}
	run(t, suite, []string{"HANDOFFCTL=" + bin, "HANDOFF_REPO=" + repo, "HANDOFF_PYTHON_INSTALLED=1"},
		venvPython, "-m", "unittest", "discover", "-s", ".")
}

// inside reports whether path is within dir, both with their symbolic links resolved.
func inside(t *testing.T, path, dir string) bool {
	t.Helper()
	path, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// run runs name in dir (the package's folder when "") and returns its output, or fails
// the test with it.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
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
	return string(out)
}
