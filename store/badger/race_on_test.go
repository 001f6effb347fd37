//go:build race

package badger

// raceEnabled reports a -race build: the tamper suites, thousands of small transactions,
// are left to the plain run.
const raceEnabled = true
