package badger

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// copyDir copies the files of dir into dst one by one, as cp -r does: the directory is
// listed first, then each file is read in turn. between runs after the files first
// names, while the source's writer goes on writing.
func copyDir(t *testing.T, dir, dst string, first func(name string) bool, between func()) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var early, late []string
	for _, e := range entries {
		if first(e.Name()) {
			early = append(early, e.Name())
		} else {
			late = append(late, e.Name())
		}
	}
	require.NoError(t, os.MkdirAll(dst, 0o755))
	cp := func(name string) {
		in, err := os.Open(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			return // gone since the listing, as cp would say
		}
		require.NoError(t, err)
		defer in.Close()
		out, err := os.Create(filepath.Join(dst, name))
		require.NoError(t, err)
		defer out.Close()
		_, err = io.Copy(out, in)
		require.NoError(t, err)
	}
	for _, n := range early {
		cp(n)
	}
	between()
	for _, n := range late {
		cp(n)
	}
}

// appendMany creates n workflows named prefix-i, each with one record of size bytes
// (in the value log).
func appendMany(t *testing.T, l store.Log, prefix string, n, size int) {
	t.Helper()
	payload := []byte(`{"s":"` + strings.Repeat("a", size) + `"}`)
	for i := range n {
		_, err := l.Append(context.Background(), store.Append{Tenant: "acme", Workflow: fmt.Sprintf("%s-%d", prefix, i), Create: true, BumpVersion: true,
			Time: t0, State: []byte(`{"v":1}`), Records: []store.NewRecord{{Type: "x", Payload: payload}}})
		require.NoError(t, err)
	}
}

// TestLiveCopyIsNotABackup copies the directory of a store while it is open and
// written, file by file as cp -r does, and opens the copy: whether the files disagree
// at open (the manifest names a table or a memtable the copy lacks) or at a read (keys point into the
// value log past the copy's end), the answer is ErrInconsistent with what to do
// instead, never a raw storage error or a report of tampering.
func TestLiveCopyIsNotABackup(t *testing.T) {
	ctx := context.Background()
	vlogFirst := func(name string) bool { return strings.HasSuffix(name, ".vlog") }

	t.Run("keys past the value log", func(t *testing.T) {
		l, dir := openDisk(t)
		appendMany(t, l, "before", 200, 2000)
		dst := filepath.Join(t.TempDir(), "copy")
		copyDir(t, dir, dst, vlogFirst, func() { appendMany(t, l, "during", 200, 2000) })
		c, err := Open(ctx, store.Options{Dir: dst})
		require.NoError(t, err, "the copy opens")
		defer c.Close()
		_, _, err = c.State(ctx, "acme", "before-1")
		require.NoError(t, err, "what was written before the copy reads")
		var chains []store.Chain
		require.NoError(t, c.Chains(ctx, func(ch store.Chain) error { chains = append(chains, ch); return nil }))
		failed := 0
		for _, ch := range chains {
			err := c.Records(ctx, ch.Tenant, ch.Workflow, 1, func(store.Record) error { return nil })
			if err == nil {
				continue
			}
			failed++
			require.ErrorIs(t, err, store.ErrInconsistent)
			assert.Contains(t, err.Error(), "handoffctl backup")
			_, err = c.Verify(ctx, ch.Tenant, ch.Workflow)
			require.ErrorIs(t, err, store.ErrInconsistent, "not reported as tampering")
		}
		assert.Positive(t, failed, "some records written during the copy are missing from the copy's value log")
	})

	t.Run("the copy does not open", func(t *testing.T) {
		dir := t.TempDir()
		// A small memtable, flushed to a table soon.
		l, err := Open(ctx, store.Options{Dir: dir, Memory: store.Memory{MemTableSize: 1 << 20}})
		require.NoError(t, err)
		defer l.Close()
		appendMany(t, l, "before", 200, 600)
		dst := filepath.Join(t.TempDir(), "copy")
		manifest := func() int64 {
			fi, err := os.Stat(filepath.Join(dir, "MANIFEST"))
			require.NoError(t, err)
			return fi.Size()
		}
		before := manifest()
		copyDir(t, dir, dst, vlogFirst, func() {
			// Write until the memtable is flushed to a table the listing did not hold, and
			// the manifest names it.
			for i := 0; ; i++ {
				a := store.Append{Tenant: "acme", Workflow: fmt.Sprintf("during-%d", i), Create: true, Time: t0}
				for range 500 {
					a.Records = append(a.Records, store.NewRecord{Type: "x", Payload: []byte(`{"s":"` + strings.Repeat("a", 600) + `"}`)})
				}
				_, err := l.Append(ctx, a)
				require.NoError(t, err)
				if tables, _ := filepath.Glob(filepath.Join(dir, "*.sst")); len(tables) > 0 && manifest() > before {
					return
				}
				require.Less(t, i, 200, "no table was written")
			}
		})
		// The manifest names a table the copy lacks, or a memtable it lacks: the files
		// do not agree.
		_, err = Open(ctx, store.Options{Dir: dst})
		require.ErrorIs(t, err, store.ErrInconsistent)
		assert.Contains(t, err.Error(), "handoffctl restore")

		// With the lock file of a process that still runs, the error says the copy was
		// taken from under it.
		sleeper := exec.Command("sleep", "30")
		require.NoError(t, sleeper.Start())
		defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
		require.NoError(t, os.WriteFile(filepath.Join(dst, lockPIDFile), []byte(strconv.Itoa(sleeper.Process.Pid)+"\n"), 0o644))
		_, err = Open(ctx, store.Options{Dir: dst})
		require.ErrorIs(t, err, store.ErrInconsistent)
		assert.Contains(t, err.Error(), fmt.Sprintf("lock file of process %d, which is running", sleeper.Process.Pid))
	})
}
