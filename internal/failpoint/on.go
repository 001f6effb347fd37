//go:build failpoints

// Package failpoint names points in the submit path where the reliability suite injects
// faults. This build (tag failpoints) lets tests make a point panic or fail.
package failpoint

import (
	"fmt"
	"sync"
)

// Actions a point can take.
const (
	Panic = "panic"
	Error = "error"
)

var (
	mu      sync.Mutex
	actions = map[string]string{}
)

// Enable makes the named point take action (Panic or Error) from now on.
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

// Eval runs the named point: it panics or returns an error when the point is enabled.
func Eval(name string) error {
	mu.Lock()
	action := actions[name]
	mu.Unlock()
	switch action {
	case Panic:
		panic(fmt.Sprintf("failpoint %s", name))
	case Error:
		return fmt.Errorf("failpoint %s", name)
	}
	return nil
}
