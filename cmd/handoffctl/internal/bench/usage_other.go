//go:build !unix && !windows

package bench

import "time"

// cpuTime is unavailable on this platform.
func cpuTime() (time.Duration, bool) { return 0, false }

// resetPeakRSS is not possible on this platform.
func resetPeakRSS() bool { return false }

// peakRSS is unavailable on this platform.
func peakRSS() (int64, bool) { return 0, false }
