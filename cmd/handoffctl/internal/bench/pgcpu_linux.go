package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat times: 100 on every
// Linux platform Go runs on.
const clockTicks = 100

// postgresCPU is the CPU time (user and system) the PostgreSQL server processes of this
// machine have used so far: every process named postgres in /proc. A connection that
// ends takes its time with it, so it is read while the engine's pool is open.
func postgresCPU() (time.Duration, bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, false
	}
	var ticks int64
	found := false
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended
		}
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open || string(b[open+1:end]) != "postgres" {
			continue
		}
		// After the command: state, then fields 4 to 52; utime and stime are 14 and 15.
		fields := bytes.Fields(b[end+1:])
		if len(fields) < 13 {
			continue
		}
		u, err1 := strconv.ParseInt(string(fields[11]), 10, 64)
		s, err2 := strconv.ParseInt(string(fields[12]), 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		ticks += u + s
		found = true
	}
	return time.Duration(ticks) * time.Second / clockTicks, found
}
