package bench

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMaxRSSBytes(t *testing.T) {
	for _, c := range []struct {
		goos   string
		maxrss int64
		want   int64
		ok     bool
	}{
		{"linux", 2048, 2 << 20, true}, // kilobytes
		{"freebsd", 1, 1024, true},
		{"openbsd", 3, 3072, true},
		{"darwin", 2 << 20, 2 << 20, true}, // bytes
		{"ios", 5, 5, true},
		{"solaris", 2048, 0, false}, // not a usable peak
		{"illumos", 2048, 0, false},
		{"linux", 0, 0, false},
		{"darwin", -1, 0, false},
	} {
		got, ok := maxRSSBytes(c.goos, c.maxrss)
		assert.Equal(t, c.ok, ok, "%s %d", c.goos, c.maxrss)
		assert.Equal(t, c.want, got, "%s %d", c.goos, c.maxrss)
	}
}

func TestVmHWM(t *testing.T) {
	status := "Name:\tbench.test\nVmPeak:\t 2345678 kB\nVmSize:\t 2000000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40000 kB\n"
	n, ok := vmHWM([]byte(status))
	require.True(t, ok)
	assert.Equal(t, int64(50<<20), n)

	for _, bad := range []string{
		"",
		"VmRSS:\t 40000 kB\n",                // no VmHWM
		"VmHWM:\t 40000 MB\n",                // another unit
		"VmHWM:\t lots kB\n",                 // not a number
		"VmHWM:\t -4 kB\n",                   // negative
		"VmHWM:\t 40000\n",                   // no unit
		"XVmHWM:\t 40000 kB\n",               // another field
		"VmHWM:\t 4 0000 kB\n",               // two numbers
		"VmHWM:\t 1e9 kB\n",                  // not an integer
		"VmHWM:\t 40000 kB kB\n",             // trailing garbage
		"VmHWM:\t 99999999999999999999 kB\n", // overflows
	} {
		_, ok := vmHWM([]byte(bad))
		assert.False(t, ok, "%q", bad)
	}
}

func TestFiletimeDuration(t *testing.T) {
	assert.Equal(t, time.Duration(0), filetimeDuration(0, 0))
	assert.Equal(t, 100*time.Nanosecond, filetimeDuration(0, 1))
	assert.Equal(t, time.Second, filetimeDuration(0, 10_000_000))
	// The high half counts 2^32 intervals of 100ns: about 7.16 minutes.
	assert.Equal(t, time.Duration(1<<32)*100, filetimeDuration(1, 0))
	assert.Equal(t, (time.Duration(3)<<32+7)*100, filetimeDuration(3, 7))
}

// readingsAvailable says whether this platform gives CPU time and peak RSS: every
// platform bench is built for but the ones usage_other.go covers.
func readingsAvailable() bool {
	switch runtime.GOOS {
	case "linux", "android", "darwin", "ios", "freebsd", "netbsd", "openbsd", "dragonfly", "windows":
		return true
	}
	return false
}

// spin burns CPU for about d of wall time.
func spin(d time.Duration) int {
	n := 0
	for t0 := time.Now(); time.Since(t0) < d; {
		for i := range 10000 {
			n += i * i
		}
	}
	return n
}

var sink int

func TestCPUTime(t *testing.T) {
	before, ok := cpuTime()
	if !readingsAvailable() {
		assert.False(t, ok)
		t.Skipf("no CPU time on %s", runtime.GOOS)
	}
	require.True(t, ok)
	assert.Positive(t, before, "a running process has used some CPU")
	// Spin until the reading has grown by 50ms: on a busy machine that takes longer
	// than 50ms of wall time, but not 30s.
	t0 := time.Now()
	after := before
	for after-before < 50*time.Millisecond {
		if time.Since(t0) > 30*time.Second {
			t.Fatalf("30s of spinning added %v of CPU time", after-before)
		}
		sink += spin(10 * time.Millisecond)
		after, ok = cpuTime()
		require.True(t, ok)
	}
	// The reading cannot grow faster than every core busy for the wall time: a reading
	// in the wrong unit would.
	wall := time.Since(t0)
	assert.LessOrEqual(t, after-before, time.Duration(runtime.NumCPU())*wall+50*time.Millisecond)
	assert.Less(t, after, 24*time.Hour)
}

func TestPeakRSS(t *testing.T) {
	peak, ok := peakRSS()
	if !readingsAvailable() {
		assert.False(t, ok)
		t.Skipf("no peak RSS on %s", runtime.GOOS)
	}
	require.True(t, ok)
	// A Go test process has a few megabytes resident, and not a terabyte: a reading in
	// the wrong unit (kilobytes for bytes, or the reverse) falls outside.
	assert.Greater(t, peak, int64(1<<20))
	assert.Less(t, peak, int64(1<<40))

	// Touching 64 MiB makes the peak at least that.
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	grown, ok := peakRSS()
	require.True(t, ok)
	assert.GreaterOrEqual(t, grown, int64(64<<20))
	assert.GreaterOrEqual(t, grown, peak, "a peak does not go down without a reset")
	sink += int(buf[len(buf)-4096])
}

func TestResetPeakRSS(t *testing.T) {
	// Only Linux can start a new peak; elsewhere the peak is the process's, and the
	// report says so.
	if runtime.GOOS != "linux" && runtime.GOOS != "android" {
		assert.False(t, resetPeakRSS())
		return
	}
	buf := make([]byte, 128<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	high, ok := peakRSS()
	require.True(t, ok)
	sink += int(buf[0])
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()
	if !resetPeakRSS() {
		t.Skip("/proc/self/clear_refs is not writable here")
	}
	low, ok := peakRSS()
	require.True(t, ok)
	assert.Less(t, low, high, "the peak after a reset is the current RSS, below the 128 MiB touched before")
	assert.Greater(t, low, int64(1<<20))
}
