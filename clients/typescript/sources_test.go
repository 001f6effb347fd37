package typescript_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// readSources opens every file the suite builds from, and the handoffctl it runs, so that
// go test's cache keys a passed run on them: npm and node read them in other processes,
// which the cache does not see.
func readSources(t *testing.T, bin string) {
	t.Helper()
	for _, dir := range []string{"src", "test", "examples", "scripts", "testdata", "../schemas"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			_, err = os.ReadFile(path)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"package.json", "package-lock.json", "tsconfig.json", "tsconfig.esm.json", "tsconfig.cjs.json", bin} {
		if _, err := os.Stat(name); err != nil {
			t.Fatal(err)
		}
		if name != bin {
			if _, err := os.ReadFile(name); err != nil {
				t.Fatal(err)
			}
		}
	}
}
