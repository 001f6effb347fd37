package webhook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
)

// deliveriesBehave is what every Deliveries does: records by tenant, a record again is
// no error.
func deliveriesBehave(t *testing.T, recs Deliveries) {
	ctx := context.Background()
	d := Delivery{Tenant: "acme", ID: "whk_1", Endpoint: "pager", Type: EventAwaitHuman, DecisionID: "dec-1", WorkflowID: "wf-1", Status: 204, DeliveredAt: time.Now().UTC()}
	done, err := recs.Delivered(ctx, "acme", "whk_1")
	require.NoError(t, err)
	assert.False(t, done)
	require.NoError(t, recs.Record(ctx, d))
	require.NoError(t, recs.Record(ctx, d), "recorded again: another process, a resend")
	done, err = recs.Delivered(ctx, "acme", "whk_1")
	require.NoError(t, err)
	assert.True(t, done)
	done, err = recs.Delivered(ctx, "globex", "whk_1")
	require.NoError(t, err)
	assert.False(t, done, "another tenant's id")
}

func TestFileDeliveries(t *testing.T) {
	path := filepath.Join(t.TempDir(), DeliveriesFile)
	recs, err := OpenFileDeliveries(path, 0)
	require.NoError(t, err)
	deliveriesBehave(t, recs)
	require.NoError(t, recs.Close())

	// An old record is dropped at open; a torn last line (a crash mid-write) too.
	old, err := json.Marshal(Delivery{Tenant: "acme", ID: "whk_old", DeliveredAt: time.Now().Add(-48 * time.Hour)})
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(append(append(b, old...), '\n'), `{"tenant_id": "acme", "id": "whk_t`...), 0o600))
	recs, err = OpenFileDeliveries(path, 24*time.Hour)
	require.NoError(t, err)
	for id, want := range map[string]bool{"whk_1": true, "whk_old": false, "whk_t": false} {
		done, err := recs.Delivered(context.Background(), "acme", id)
		require.NoError(t, err)
		assert.Equal(t, want, done, id)
	}
	require.NoError(t, recs.Record(context.Background(), Delivery{Tenant: "acme", ID: "whk_2", DeliveredAt: time.Now()}))
	require.NoError(t, recs.Close())
	recs, err = OpenFileDeliveries(path, 24*time.Hour)
	require.NoError(t, err)
	done, err := recs.Delivered(context.Background(), "acme", "whk_2")
	require.NoError(t, err)
	assert.True(t, done, "recorded after the file was rewritten")
	require.NoError(t, recs.Close())

	// A line in the middle that is not a record is an error, not silently dropped.
	require.NoError(t, os.WriteFile(path, []byte("garbage\n"+string(old)+"\n"), 0o600))
	_, err = OpenFileDeliveries(path, 0)
	assert.ErrorContains(t, err, "line 1 is not a record")
}

func TestPostgresDeliveries(t *testing.T) {
	u := pgtest.URL(t)
	recs, err := OpenPostgresDeliveries(context.Background(), u)
	require.NoError(t, err)
	deliveriesBehave(t, recs)
	again, err := OpenPostgresDeliveries(context.Background(), u)
	require.NoError(t, err, "the table exists: opened again")
	done, err := again.Delivered(context.Background(), "acme", "whk_1")
	require.NoError(t, err)
	assert.True(t, done, "shared by every process on the store")
	require.NoError(t, again.Close())
	require.NoError(t, recs.Close())
}
