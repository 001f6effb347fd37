package main

import (
	"math"
	"os"
	"runtime/debug"
	"time"
)

// quietStart turns the garbage collector off for the first second of the process. A
// command starts by compiling the bundle, whose values stay live: collecting while they
// are built costs a fifth of a cold start and frees little. A memory limit still bounds
// the heap in that second, and a GOGC or GOMEMLIMIT the environment sets is kept.
func quietStart() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	percent := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startMemoryLimit)
	time.AfterFunc(time.Second, func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

// startMemoryLimit bounds the heap while the collector is off.
const startMemoryLimit = 512 << 20
