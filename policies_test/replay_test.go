package policiestest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

// TestReplayReproducesEveryScenario plays every scenario file of every pack, then replays
// the log against the bundle it was recorded with: every recorded decision must come out
// byte for byte the same, with the same validation. A record whose request the log holds
// redacted is reported as skipped, never replayed.
func TestReplayReproducesEveryScenario(t *testing.T) {
	files, err := scenario.Files(os.DirFS("."))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no scenario files found")
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), scenario.Ext), func(t *testing.T) {
			sc, err := scenario.Load(f)
			require.NoError(t, err)
			ctx := context.Background()
			eng, err := engine.Open(ctx, engine.Options{InMemory: true})
			require.NoError(t, err)
			defer eng.Close()
			require.NoError(t, scenario.Run(ctx, eng, sc, nil))
			n := 0
			err = eng.Replay(ctx, nil, engine.ReplayOptions{}, func(r engine.ReplayResult) error {
				if r.Skipped != "" {
					// A redacted request is reported, never re-decided.
					require.Equal(t, "redacted", r.Skipped, "record %d", r.Seq)
					require.NotNil(t, r.Redaction, "record %d", r.Seq)
					require.Nil(t, r.Replayed, "record %d", r.Seq)
					require.Equal(t, engine.Block, r.Recorded.Outcome, "record %d", r.Seq)
					return nil
				}
				n++
				require.True(t, r.Identical, "record %s/%s #%d: replayed %+v\nrecorded %+v", r.Tenant, r.Workflow, r.Seq, r.Replayed, r.Recorded)
				require.Empty(t, r.Changed, "record %d", r.Seq)
				require.False(t, r.ValidationChanged, "record %d: validation changed", r.Seq)
				return nil
			})
			require.NoError(t, err)
			require.NotZero(t, n, "nothing replayed")
		})
	}
}
