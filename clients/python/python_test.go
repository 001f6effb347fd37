// Package python_test runs the Python client's suite (the client, its JSON Schema
// validator, the generated pack types and a host playing one workflow of each pack)
// from `go test ./...`, against a handoffctl built from this checkout. Without python3
// 3.11 or later on PATH it says so and is skipped, unless HANDOFF_REQUIRE_PYTHON=1 (set
// by CI), which fails it instead.
package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

func TestPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Python suite starts real servers")
	}
	requirePython(t)
	// $HANDOFFCTL names a handoffctl already built from this checkout (CI builds one).
	bin := os.Getenv("HANDOFFCTL")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "handoffctl")
		run(t, nil, "go", "build", "-o", bin, "../../cmd/handoffctl")
	}
	run(t, []string{"HANDOFFCTL=" + bin}, "python3", "-m", "unittest", "discover", "-s", "tests")
}

func requirePython(t *testing.T) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("HANDOFF_REQUIRE_PYTHON") == "1" {
			t.Fatalf("Python is required (HANDOFF_REQUIRE_PYTHON=1): %s", why)
		}
		t.Skipf("%s: install Python 3.11 or later as python3 to run the Python client's tests", why)
	}
	out, err := exec.Command("python3", "--version").Output()
	if err != nil {
		missing("python3 is not on PATH")
		return
	}
	// typing.Required, which the generated pack types use, is from 3.11.
	m := regexp.MustCompile(`^Python 3\.(\d+)`).FindSubmatch(out)
	if m == nil {
		missing("python3 --version says " + string(out))
		return
	}
	if minor, _ := strconv.Atoi(string(m[1])); minor < 11 {
		missing("python3 " + string(out) + " is older than 3.11")
	}
}

func run(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	if testing.Verbose() {
		t.Logf("%s %v:\n%s", name, args, out)
	}
}
