package python_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// interpreters are tried in this order: the python3 first on PATH (a pyenv one, say),
// then the system's, where Debian installs its packaging tools.
var interpreters = []string{"python3", "/usr/bin/python3"}

// probe prints the interpreter's version and which of the modules the test needs it
// lacks: venv needs ensurepip (python3-venv on Debian) to give the environment a pip.
const probe = `
import importlib.util, json, sys
needed = ("venv", "ensurepip", "build", "setuptools", "wheel")
print(json.dumps({"version": list(sys.version_info[:2]),
                  "missing": [m for m in needed if importlib.util.find_spec(m) is None]}))
`

// packagingPython is the first interpreter of 3.11 or later (typing.Required, which the
// generated pack types use, is from 3.11) with venv, build, setuptools and wheel. Without
// one the test fails under HANDOFF_REQUIRE_PYTHON=1 and is skipped otherwise, saying
// what each interpreter lacks.
func packagingPython(t *testing.T) string {
	t.Helper()
	var lacks []string
	for _, name := range interpreters {
		why, ok := usable(name)
		if ok {
			return name
		}
		lacks = append(lacks, name+": "+why)
	}
	why := "no Python 3.11 or later with venv, build, setuptools and wheel (" + strings.Join(lacks, "; ") +
		"): on Debian, apt-get install python3-venv python3-build python3-setuptools python3-wheel"
	if os.Getenv("HANDOFF_REQUIRE_PYTHON") == "1" {
		t.Fatalf("Python is required (HANDOFF_REQUIRE_PYTHON=1): %s", why)
	}
	t.Skip(why)
	return ""
}

// usable says whether name can build and install the client, and if not, why.
func usable(name string) (string, bool) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "not found", false
	}
	out, err := exec.Command(path, "-c", probe).Output()
	if err != nil {
		return fmt.Sprintf("does not run (%v)", err), false
	}
	var found struct {
		Version []int
		Missing []string
	}
	if err := json.Unmarshal(out, &found); err != nil || len(found.Version) != 2 {
		return fmt.Sprintf("answered %q", out), false
	}
	version := fmt.Sprintf("Python %d.%d", found.Version[0], found.Version[1])
	switch {
	case found.Version[0] != 3 || found.Version[1] < 11:
		return version + ", not 3.11 or later", false
	case len(found.Missing) > 0:
		return version + " without " + strings.Join(found.Missing, ", "), false
	}
	return "", true
}
