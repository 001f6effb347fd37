// Package typescript_test runs the TypeScript client's suite (the client, the Agents SDK
// and LangGraph adapters, both examples) from `go test ./...`, against a handoffctl built
// from this checkout. Without Node.js 20 or later and npm on PATH it says so and is
// skipped, unless HANDOFF_REQUIRE_NODE=1 (set by CI), which fails it instead.
package typescript_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

func TestTypeScript(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the TypeScript suite starts real servers")
	}
	requireNode(t)
	// The packages come from the committed lockfile; installed again when it changed.
	lock, err := os.Stat("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if installed, err := os.Stat(filepath.Join("node_modules", ".package-lock.json")); err != nil || installed.ModTime().Before(lock.ModTime()) {
		run(t, nil, "npm", "ci", "--no-audit", "--no-fund")
	}
	// $HANDOFFCTL names a handoffctl already built from this checkout (CI builds one).
	bin := os.Getenv("HANDOFFCTL")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "handoffctl")
		run(t, nil, "go", "build", "-o", bin, "../../cmd/handoffctl")
	}
	run(t, []string{"HANDOFFCTL=" + bin}, "npm", "test")
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
