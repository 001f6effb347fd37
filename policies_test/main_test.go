package policiestest

import (
	"flag"
	"os"
	"testing"
)

// TestMain lets more scenarios run at once than there are cores (the default of
// -parallel): each spends most of its time waiting for its store's fsync.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.parallel"); f != nil && f.Value.String() == f.DefValue {
		_ = f.Value.Set("4")
	}
	os.Exit(m.Run())
}
