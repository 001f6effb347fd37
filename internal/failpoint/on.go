//go:build failpoints

// Package failpoint names points in the submit path where the reliability suite injects
// faults. This build (tag failpoints) lets tests make a point panic, fail or stall.
package failpoint

import (
	"context"
	"fmt"
	"sync"
)

// Actions a point can take.
const (
	Panic = "panic"
	Error = "error"
	// Timeout makes the point block until the context it is given is done and then fail
	// with the context's error, as a stage that stalls past its deadline does. The
	// context must have a deadline, or the point blocks for ever.
	Timeout = "timeout"
)

var (
	mu      sync.Mutex
	actions = map[string]string{}
)

// Enable makes the named point take action (Panic, Error or Timeout) from now on.
func Enable(name, action string) {
	mu.Lock()
	defer mu.Unlock()
	actions[name] = action
}

// Disable turns every point off.
func Disable() {
	mu.Lock()
	defer mu.Unlock()
	clear(actions)
}

// Eval runs the named point with the context of the stage it is in: it panics, returns
// an error, or waits for ctx to end and returns an error wrapping ctx.Err(), when the
// point is enabled.
func Eval(ctx context.Context, name string) error {
	mu.Lock()
	action := actions[name]
	mu.Unlock()
	switch action {
	case Panic:
		panic(fmt.Sprintf("failpoint %s", name))
	case Error:
		return fmt.Errorf("failpoint %s", name)
	case Timeout:
		<-ctx.Done()
		return fmt.Errorf("failpoint %s: %w", name, ctx.Err())
	}
	return nil
}
