//go:build unix

package bench

import (
	"runtime"
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time of the process (getrusage).
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// maxRSS is getrusage's ru_maxrss in bytes (see maxRSSBytes for the unit per system).
func maxRSS() (int64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return maxRSSBytes(runtime.GOOS, int64(ru.Maxrss))
}
