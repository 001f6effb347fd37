//go:build linux

package badger

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// mappedStoreKB is the resident size, in KiB, of this process's mappings of dir's value
// log and table files, from /proc/self/smaps.
func mappedStoreKB(t *testing.T, dir string) int {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	require.NoError(t, err)
	total, inStore := 0, false
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			inStore = len(f) >= 6 && strings.HasPrefix(f[5], dir+"/") && trimmedFile(f[5])
		case inStore && len(f) == 3 && f[0] == "Rss:":
			kb, err := strconv.Atoi(f[1])
			require.NoError(t, err)
			total += kb
		}
	}
	return total
}

func TestTrimHandsMappedPagesBack(t *testing.T) {
	dir, err := filepath.Abs(t.TempDir())
	require.NoError(t, err)
	l, err := Open(context.Background(), store.Options{Dir: dir, Memory: store.Memory{TrimInterval: -1}})
	require.NoError(t, err)
	defer l.Close()

	// 16 MiB of payloads, each above the value threshold so that it goes to the value log.
	payload := fmt.Appendf(nil, `{"text":%q}`, strings.Repeat("x", 16<<10))
	for i := range 1024 {
		a := store.Append{Tenant: "t", Workflow: fmt.Sprintf("wf-%d", i), Create: true, BumpVersion: true, Time: t0,
			State: []byte(`{"v":1}`), Records: []store.NewRecord{{Type: "event", Payload: payload}}}
		_, err := l.Append(context.Background(), a)
		require.NoError(t, err)
	}
	before := mappedStoreKB(t, dir)
	require.Greater(t, before, 8<<10, "the value log written through its mapping is resident")

	trimMapped(dir)
	after := mappedStoreKB(t, dir)
	require.Less(t, after, before/4, "resident KiB of the mapped store files: %d before the trim, %d after", before, after)

	// Nothing is lost: every record reads back and every chain verifies.
	for _, i := range []int{0, 511, 1023} {
		got := records(t, l, "t", fmt.Sprintf("wf-%d", i), 1)
		require.Len(t, got, 1)
		require.JSONEq(t, string(payload), string(got[0].Payload))
	}
	for _, i := range []int{0, 1023} {
		rep, err := l.Verify(context.Background(), "t", fmt.Sprintf("wf-%d", i))
		require.NoError(t, err)
		require.True(t, rep.OK, "%+v", rep)
	}
}

func TestTrimmerStopsWithTheStore(t *testing.T) {
	l, err := Open(context.Background(), store.Options{Dir: t.TempDir(), Memory: store.Memory{TrimInterval: 1}})
	require.NoError(t, err)
	require.NotNil(t, l.trim)
	create(t, l, "t", "wf", 3)
	require.NoError(t, l.Close())
	select {
	case <-l.trim.done:
	default:
		t.Fatal("the trimmer still runs after Close")
	}
}
