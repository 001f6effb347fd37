package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// TestStateCacheSharedStore: two engines decide on one PostgreSQL store, as two
// processes do. What one commits, the other decides on next, though it has the state
// before it cached.
func TestStateCacheSharedStore(t *testing.T) {
	u := pgtest.URL(t)
	_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
	require.NoError(t, err)
	ar, err := txtar.ParseFile("testdata/golden/campaign-hg2-returns-brief.txtar")
	require.NoError(t, err)
	var reqs [][]byte
	for _, f := range ar.Files {
		if strings.HasSuffix(f.Name, ".request.json") {
			reqs = append(reqs, f.Data)
		}
	}
	require.Len(t, reqs, 3)
	ctx := context.Background()
	clock := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	open := func() *engine.Engine {
		e, err := engine.Open(ctx, engine.Options{StoreURL: u, Clock: func() time.Time { return clock }})
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		return e
	}
	a, b := open(), open()

	start, err := a.Submit(ctx, reqs[0])
	require.NoError(t, err)
	require.Equal(t, engine.Allow, start.Outcome)
	dry, err := a.Evaluate(ctx, reqs[1]) // a has the state after the start cached
	require.NoError(t, err)
	require.Equal(t, start.StatusAfter, dry.StatusBefore)

	handoff, err := b.Submit(ctx, reqs[1])
	require.NoError(t, err)
	require.NotEqual(t, start.StatusAfter, handoff.StatusAfter)

	st, err := a.State(ctx, start.TenantID, start.WorkflowID)
	require.NoError(t, err)
	require.Equal(t, handoff.StatusAfter, st.Status)
	require.Equal(t, handoff.StateVersion, st.StateVersion)
	dry, err = a.Evaluate(ctx, reqs[2])
	require.NoError(t, err)
	require.Equal(t, handoff.StatusAfter, dry.StatusBefore)
	review, err := a.Submit(ctx, reqs[2])
	require.NoError(t, err)
	require.Equal(t, handoff.StatusAfter, review.StatusBefore)
	require.Equal(t, handoff.StateVersion, review.StateVersion-1, "the review changes the state it was decided on")
}
