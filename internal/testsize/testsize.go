// Package testsize says how large the tests' heavy tiers run (scenario sweeps, corpora,
// rounds of a race): small by default, so that a plain `go test ./...` stays quick on
// a laptop, and at full size when HANDOFF_FULL=1, as .ci/run sets. A small run still
// plays every kind of case; only how many of each changes.
package testsize

import "os"

// Env is the environment variable that asks for the full sizes.
const Env = "HANDOFF_FULL"

// Full says whether the tests run at full size.
func Full() bool { return os.Getenv(Env) == "1" }

// Pick returns full when the tests run at full size, else small.
func Pick(full, small int) int {
	if Full() {
		return full
	}
	return small
}

// Sample returns every element of all at full size, else every stride-th one from the
// first (at least one when all is not empty): a deterministic cut, so that a failure
// seen in a small run is seen again.
func Sample[T any](all []T, stride int) []T {
	if Full() || stride <= 1 {
		return all
	}
	out := make([]T, 0, (len(all)+stride-1)/stride)
	for i := 0; i < len(all); i += stride {
		out = append(out, all[i])
	}
	return out
}
