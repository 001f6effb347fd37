package badger

import (
	"path/filepath"
	"time"

	"github.com/handoff-dev/handoff/store"
)

// trimmer periodically asks the kernel to reclaim the pages of the store's value log
// and table files mapped in this process. Badger maps those files and writes the value
// log through the mapping, so every page written or read stays resident and counts in
// the process's RSS until the kernel is short of memory: after 20,000 decisions that
// was 320 MB of a 457 MB RSS. The pages are clean file pages; reclaiming them loses
// nothing, and a later read faults them back in from the page cache or the disk.
type trimmer struct {
	quit chan struct{}
	done chan struct{}
}

// startTrimmer starts trimming dir's mapped files every interval; nil when trimming is
// off or not supported on this system.
func startTrimmer(dir string, interval time.Duration) *trimmer {
	if interval < 0 || !trimSupported {
		return nil
	}
	if interval == 0 {
		interval = store.DefaultTrimInterval
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	t := &trimmer{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-t.quit:
				return
			case <-tick.C:
				trimMapped(abs)
			}
		}
	}()
	return t
}

// stop ends the trimming and waits for a trim in progress.
func (t *trimmer) stop() {
	if t == nil {
		return
	}
	close(t.quit)
	<-t.done
}

// trimmedFile reports whether a mapped file's pages are handed back: the value log and
// the tables. The memtables' write-ahead files are left alone: they are bounded by
// Memory.MemTableSize and written on every commit.
func trimmedFile(path string) bool {
	switch filepath.Ext(path) {
	case ".vlog", ".sst":
		return true
	}
	return false
}
