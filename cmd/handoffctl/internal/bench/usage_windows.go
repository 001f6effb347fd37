package bench

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// cpuTime is the kernel and user time of the process (GetProcessTimes).
func cpuTime() (time.Duration, bool) {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0, false
	}
	return filetimeDuration(kernel.HighDateTime, kernel.LowDateTime) +
		filetimeDuration(user.HighDateTime, user.LowDateTime), true
}

// resetPeakRSS cannot reset the peak working set: it stays the process's.
func resetPeakRSS() bool { return false }

// processMemoryCounters is PROCESS_MEMORY_COUNTERS (psapi.h).
type processMemoryCounters struct {
	cb                         uint32
	pageFaultCount             uint32
	peakWorkingSetSize         uintptr
	workingSetSize             uintptr
	quotaPeakPagedPoolUsage    uintptr
	quotaPagedPoolUsage        uintptr
	quotaPeakNonPagedPoolUsage uintptr
	quotaNonPagedPoolUsage     uintptr
	pagefileUsage              uintptr
	peakPagefileUsage          uintptr
}

// getProcessMemoryInfo is K32GetProcessMemoryInfo, the kernel32 form of psapi's
// GetProcessMemoryInfo.
var getProcessMemoryInfo = windows.NewLazySystemDLL("kernel32.dll").NewProc("K32GetProcessMemoryInfo")

// peakRSS is the process's peak working set (PeakWorkingSetSize), in bytes.
func peakRSS() (int64, bool) {
	if getProcessMemoryInfo.Find() != nil {
		return 0, false
	}
	var c processMemoryCounters
	c.cb = uint32(unsafe.Sizeof(c))
	r, _, _ := getProcessMemoryInfo.Call(uintptr(windows.CurrentProcess()), uintptr(unsafe.Pointer(&c)), uintptr(c.cb))
	if r == 0 {
		return 0, false
	}
	return int64(c.peakWorkingSetSize), true
}
