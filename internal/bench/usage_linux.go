package bench

import (
	"os"
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

// resetPeakRSS makes the peak RSS (VmHWM) the current RSS: writing 5 to
// /proc/self/clear_refs (Linux 4.0 and later).
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS is VmHWM from /proc/self/status, or getrusage's ru_maxrss (kilobytes) where
// /proc is not mounted.
func peakRSS() (int64, bool) {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		if n, ok := vmHWM(b); ok {
			return n, true
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return maxRSSBytes(runtime.GOOS, int64(ru.Maxrss))
}
