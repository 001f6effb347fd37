//go:build linux

package badger

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const trimSupported = true

// trimMapped advises the kernel to page out the mappings of dir's value log and table
// files listed in /proc/self/maps. MADV_PAGEOUT is safe even if Badger unmaps a file,
// and the range is reused, between the read of the list and the call: for anonymous
// memory it can only mean swapping, never a loss of data, unlike MADV_DONTNEED. Errors
// are ignored: trimming only saves memory.
func trimMapped(dir string) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	prefix := dir + string(os.PathSeparator)
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		// address perms offset dev inode pathname
		f := strings.Fields(sc.Text())
		if len(f) < 6 || !strings.HasPrefix(f[5], prefix) || !trimmedFile(f[5]) {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_PAGEOUT)
	}
}
