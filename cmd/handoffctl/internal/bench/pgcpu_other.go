//go:build !linux

package bench

import "time"

// postgresCPU is unavailable where /proc is not.
func postgresCPU() (time.Duration, bool) { return 0, false }
