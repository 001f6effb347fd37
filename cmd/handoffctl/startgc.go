package main

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// quietStart turns the garbage collector off for the first second of the process. A
// command that decides a request or two starts by compiling the bundle, whose values
// stay live: collecting while they are built costs a fifth of a cold start and frees
// little. A memory limit still bounds the heap in that second, and a GOGC or GOMEMLIMIT
// the environment sets is kept. Any other command turns the collector back on as soon
// as it is known (quietCommands): a server or a benchmark would otherwise keep the
// pages a collector-free second let the heap grow to.
func quietStart() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	percent := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(startMemoryLimit)
	var once sync.Once
	collect = func() {
		once.Do(func() {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(math.MaxInt64)
		})
	}
	time.AfterFunc(time.Second, collect)
}

// startMemoryLimit bounds the heap while the collector is off.
const startMemoryLimit = 512 << 20

// collect turns the collector back on; nil when quietStart did not turn it off (tests
// run commands in their own process).
var collect func()

// quietCommands are the commands that decide or read a request or two and end.
var quietCommands = map[string]bool{
	"eval": true, "submit": true, "start": true, "validate": true, "next": true,
	"template": true, "state": true, "explain": true,
}

// collectUnlessQuiet turns the collector back on for a command that runs long.
func collectUnlessQuiet(name string) {
	if collect != nil && !quietCommands[name] {
		collect()
	}
}
