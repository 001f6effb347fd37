package reliability

import (
	"fmt"
	"os"
	"testing"
)

// children are the roles the test binary plays when started by a test as a separate
// process, named by the HANDOFF_CHILD environment variable.
var children = map[string]func() int{}

func TestMain(m *testing.M) {
	if role := os.Getenv("HANDOFF_CHILD"); role != "" {
		fn, ok := children[role]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown child role %q\n", role)
			os.Exit(2)
		}
		os.Exit(fn())
	}
	os.Exit(m.Run())
}
