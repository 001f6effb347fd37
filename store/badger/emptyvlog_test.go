package badger

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenAfterAKillAtValueLogRotation: a process killed after creating the next value
// log file and before writing its header leaves a file of zero bytes. Open takes the
// store as it was, the empty file holding nothing.
func TestOpenAfterAKillAtValueLogRotation(t *testing.T) {
	l, dir := openDisk(t)
	create(t, l, "a", "w", 1)
	require.NoError(t, l.Close())

	logs, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	require.NoError(t, err)
	require.NotEmpty(t, logs)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "000099.vlog"), nil, 0o644))

	l = reopen(t, dir)
	rep, err := l.Verify(context.Background(), "a", "w")
	require.NoError(t, err)
	require.True(t, rep.OK, "%+v", rep)
	create(t, l, "a", "w2", 1)
	require.NoError(t, l.Close())
	reopen(t, dir).Close()
}
