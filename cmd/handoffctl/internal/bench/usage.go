package bench

import (
	"bufio"
	"bytes"
	"strconv"
	"time"
)

// The readings of CPU time and peak resident set size depend on the platform; each
// platform's file defines:
//
//	cpuTime() (time.Duration, bool)   user and system CPU time of the process so far
//	resetPeakRSS() bool               start a new peak at the current RSS; false when the
//	                                  platform cannot, and the peak stays the process's
//	peakRSS() (int64, bool)           peak RSS in bytes since the reset, or since the
//	                                  process started
//
// A reading the platform does not give is reported as unavailable (false), never as
// a number in the wrong unit.

// maxRSSBytes converts getrusage's ru_maxrss to bytes. Its unit depends on the system:
// kilobytes on Linux and the BSDs, bytes on macOS and iOS. Elsewhere (Solaris, illumos,
// AIX) the field is not a usable peak, and the reading is unavailable.
func maxRSSBytes(goos string, maxrss int64) (int64, bool) {
	if maxrss <= 0 {
		return 0, false
	}
	switch goos {
	case "darwin", "ios":
		return maxrss, true
	case "linux", "android", "freebsd", "netbsd", "openbsd", "dragonfly":
		return maxrss << 10, true
	}
	return 0, false
}

// vmHWM reads the peak resident set size, in bytes, from the content of Linux's
// /proc/self/status: the line "VmHWM:   123456 kB".
func vmHWM(status []byte) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !ok {
			continue
		}
		num, ok := bytes.CutSuffix(bytes.TrimSpace(rest), []byte("kB"))
		if !ok {
			return 0, false
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSpace(num)), 10, 64)
		if err != nil || kb < 0 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// filetimeDuration converts a Windows FILETIME that holds a duration (as
// GetProcessTimes gives the kernel and user times) to a time.Duration: the two halves
// of a count of 100-nanosecond intervals.
func filetimeDuration(high, low uint32) time.Duration {
	return time.Duration(uint64(high)<<32|uint64(low)) * 100
}
