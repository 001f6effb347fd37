//go:build unix

package badger

import (
	"errors"
	"syscall"
)

// processRunning reports whether a process with pid runs (signal 0 reaches it, or it is
// another user's).
func processRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
