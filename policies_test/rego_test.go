// Package policiestest runs the Rego unit tests and plays every pack's scenarios through
// the real engine on a real Badger store, so `go test ./...` covers Go and Rego alike.
package policiestest

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/stretchr/testify/require"
)

// TestRego runs the same tests as `go tool opa test policies policies_test`.
func TestRego(t *testing.T) {
	results, err := tester.Run(context.Background(), "../policies", ".")
	require.NoError(t, err)
	require.NotEmpty(t, results, "no Rego tests found")
	for _, r := range results {
		t.Run(r.Package+"."+r.Name, func(t *testing.T) {
			if r.Error != nil {
				t.Fatalf("error: %v", r.Error)
			}
			if r.Skip {
				t.Fatalf("skipped Rego test: every test must run")
			}
			if !r.Pass() {
				t.Fatalf("failed at %s", r.Location)
			}
		})
	}
}
