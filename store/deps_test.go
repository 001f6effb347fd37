package store_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStoreLinksNoBackend keeps the contract apart from its implementations: a program
// that imports store alone links neither Badger nor pgx.
func TestStoreLinksNoBackend(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/dgraph-io/badger") || strings.HasPrefix(p, "github.com/jackc/pgx") {
			t.Errorf("store links %s", p)
		}
	}
}
