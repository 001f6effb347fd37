package badger

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/store"
)

// TestRestoreFailureLeavesNoStore: a restore cut short leaves the directory as it was
// (missing, or empty), so that the same restore can be run again.
func TestRestoreFailureLeavesNoStore(t *testing.T) {
	ctx := context.Background()
	src, err := Open(ctx, store.Options{InMemory: true})
	require.NoError(t, err)
	create(t, src, "acme", "wf-1", 3)
	_, err = src.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf-2", Create: true, Records: []store.NewRecord{rec("decision", 1)}, Time: t0,
		Summary: []byte(`{"wf":"wf-2"}`)})
	require.NoError(t, err)
	var backup bytes.Buffer
	require.NoError(t, src.Backup(ctx, &backup))
	require.NoError(t, src.Close())

	broken := func() *bytes.Reader { return bytes.NewReader(backup.Bytes()[:backup.Len()/2]) }
	for _, tc := range []struct {
		name  string
		exist bool
	}{{"missing directory", false}, {"empty directory", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "restored")
			if tc.exist {
				require.NoError(t, os.Mkdir(dir, 0o755))
			}
			_, err := Restore(ctx, store.Options{Dir: dir}, broken())
			require.Error(t, err)
			_, err = Restore(ctx, store.Options{Dir: dir}, iotest.ErrReader(errors.New("disk gone")))
			require.ErrorContains(t, err, "disk gone")

			entries, err := os.ReadDir(dir)
			if tc.exist {
				require.NoError(t, err)
				assert.Empty(t, entries, "a failed restore leaves the directory empty")
			} else {
				assert.ErrorIs(t, err, os.ErrNotExist, "a failed restore removes the directory it made")
			}

			l, err := Restore(ctx, store.Options{Dir: dir}, bytes.NewReader(backup.Bytes()))
			require.NoError(t, err, "the restore can be run again")
			defer l.Close()
			rep, err := l.Verify(ctx, "acme", "wf-1")
			require.NoError(t, err)
			assert.True(t, rep.OK)
			assert.EqualValues(t, 3, rep.Records)
			var summarized []string
			require.NoError(t, l.Summaries(ctx, "acme", nil, func(s store.Summary) error {
				summarized = append(summarized, s.Workflow+" "+string(s.Data))
				return nil
			}))
			assert.Equal(t, []string{`wf-2 {"wf":"wf-2"}`}, summarized, "summaries are restored")
			assert.Equal(t, []string{"wf-1"}, unsummarizedOf(t, l, "acme"))
		})
	}
}
