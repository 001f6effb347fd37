// Package policiestest holds the Rego unit tests and the scenario files of every pack.
package policiestest

import "embed"

// Scenarios holds every pack's scenario files: handoff/<pack>/scenarios/*.scenario.
// `handoffctl bench` builds its load from them.
//
//go:embed handoff/*/scenarios
var Scenarios embed.FS
