package python_test

import (
	"archive/zip"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installedClient builds the client's wheel and installs it with pip, from no package
// index, into a new virtual environment, which it returns. The wheel is built from a
// copy of this folder: the build's own files (build/, *.egg-info) stay out of the
// checkout.
func installedClient(t *testing.T, python string) string {
	t.Helper()
	work := t.TempDir()
	venv := filepath.Join(work, "venv")
	// The environment is made (pip included, which takes seconds) while the wheel builds.
	made := make(chan error, 1)
	var madeOut []byte
	go func() {
		var err error
		madeOut, err = exec.Command(python, "-m", "venv", venv).CombinedOutput()
		made <- err
	}()

	source, dist := filepath.Join(work, "source"), filepath.Join(work, "dist")
	copyTree(t, ".", source)
	run(t, "", nil, python, "-m", "build", "--wheel", "--no-isolation", "--outdir", dist, source)
	wheels, err := filepath.Glob(filepath.Join(dist, "*.whl"))
	if err != nil || len(wheels) != 1 {
		t.Fatalf("the build wrote %v to %s, not one wheel (%v)", wheels, dist, err)
	}
	checkWheel(t, wheels[0])

	if err := <-made; err != nil {
		t.Fatalf("%s -m venv %s: %v\n%s", python, venv, err, madeOut)
	}
	run(t, "", nil, filepath.Join(venv, "bin", "python"), "-m", "pip", "install",
		"--no-index", "--no-cache-dir", "--disable-pip-version-check", wheels[0])
	return venv
}

// checkWheel fails the test unless the wheel holds the handoff package, its generated
// pack types and its typed marker, and nothing of this folder besides (no tests, no
// example.py or generate.py).
func checkWheel(t *testing.T, wheel string) {
	t.Helper()
	r, err := zip.OpenReader(wheel)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	held := map[string]bool{}
	for _, f := range r.File {
		held[f.Name] = true
		top, _, _ := strings.Cut(f.Name, "/")
		if top != "handoff" && !strings.HasSuffix(top, ".dist-info") {
			t.Errorf("the wheel holds %s, which is not of the handoff package", f.Name)
		}
	}
	for _, want := range []string{"handoff/__init__.py", "handoff/client.py", "handoff/py.typed",
		"handoff/packs/__init__.py", "handoff/packs/assessment.py", "handoff/packs/campaign.py",
		"handoff/packs/support.py", "handoff/packs/video.py"} {
		if !held[want] {
			t.Errorf("the wheel has no %s", want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// copyTree copies the folder from to the new folder to, but for what a build or a run
// leaves in it.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case rel != "." && (name == "build" || name == "dist" || name == "__pycache__" ||
				strings.HasSuffix(name, ".egg-info")):
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		return copyFile(path, filepath.Join(to, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyFiles copies the files of the folder from that match pattern into the folder to.
func copyFiles(t *testing.T, from, to, pattern string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(from, pattern))
	if err != nil || len(names) == 0 {
		t.Fatalf("no %s in %s (%v)", pattern, from, err)
	}
	for _, name := range names {
		if err := copyFile(name, filepath.Join(to, filepath.Base(name))); err != nil {
			t.Fatal(err)
		}
	}
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}
