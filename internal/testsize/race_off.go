//go:build !race

package testsize

// Race is true in a -race build: the race detector's run is for concurrent paths, and
// a test that walks many scenarios one decision at a time plays only a few there.
const Race = false
