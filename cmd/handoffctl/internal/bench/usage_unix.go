//go:build unix && !linux

package bench

// resetPeakRSS cannot reset getrusage's peak: it stays the process's.
func resetPeakRSS() bool { return false }

// peakRSS is getrusage's ru_maxrss, in the unit of the system (see maxRSSBytes).
func peakRSS() (int64, bool) { return maxRSS() }
