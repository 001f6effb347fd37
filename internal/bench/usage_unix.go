//go:build unix && !linux

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

// resetPeakRSS cannot reset getrusage's peak: it stays the process's.
func resetPeakRSS() bool { return false }

// peakRSS is getrusage's ru_maxrss, in the unit of the system (see maxRSSBytes).
func peakRSS() (int64, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return maxRSSBytes(runtime.GOOS, int64(ru.Maxrss))
}
