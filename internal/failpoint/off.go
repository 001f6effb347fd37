//go:build !failpoints

// Package failpoint names points in the submit path where the reliability suite injects
// faults. Built without the failpoints tag (always, outside that suite) Eval is an empty
// function the compiler inlines away.
package failpoint

import "context"

// Eval returns nil: faults are only injected in builds with the failpoints tag.
func Eval(context.Context, string) error { return nil }
