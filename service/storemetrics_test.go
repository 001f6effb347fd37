package service_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// migrated returns the URL of a new migrated PostgreSQL schema.
func migrated(t *testing.T) string {
	t.Helper()
	u := pgtest.URL(t)
	_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
	require.NoError(t, err)
	return u
}

// TestReadyChecksTheStoreTakesWrites: /health/ready is 200 only when a decision could be
// recorded. A database that takes no writes (as a hot standby) and one that cannot be
// reached are not ready, and the public answer names neither the database's host nor
// its role; neither does the answer of a read made meanwhile.
func TestReadyChecksTheStoreTakesWrites(t *testing.T) {
	status, out := newAPI(t).call("GET", "/health/ready", "", "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)

	u := migrated(t)
	status, out = newAPIOn(t, engine.Options{StoreURL: u}).call("GET", "/health/ready", "", "", nil)
	require.Equal(t, http.StatusOK, status, "%s", out)

	status, out = newAPIOn(t, engine.Options{StoreURL: u + "&default_transaction_read_only=on"}).call("GET", "/health/ready", "", "", nil)
	require.Equal(t, http.StatusServiceUnavailable, status, "%s", out)
	assert.Contains(t, string(out), `"code": "NOT_READY"`)
	assert.Contains(t, string(out), "accepts no writes")

	proxy, through := pgtest.NewProxy(t, u)
	a := newAPIOn(t, engine.Options{StoreURL: through})
	parsed, err := url.Parse(through)
	require.NoError(t, err)
	proxy.Down()
	status, out = a.call("GET", "/health/ready", "", "", nil)
	require.Equal(t, http.StatusServiceUnavailable, status, "%s", out)
	assert.Contains(t, string(out), "cannot be reached")
	_, read := a.call("GET", "/v1/tenants/acme/workflows/wf-1", hostToken, "", nil)
	for _, body := range [][]byte{out, read} {
		for _, secret := range []string{proxy.Addr(), parsed.Hostname(), parsed.Port(), parsed.User.Username()} {
			assert.NotContains(t, string(body), secret)
		}
	}
	proxy.Up()
	require.Eventually(t, func() bool {
		status, _ := a.call("GET", "/health/ready", "", "", nil)
		return status == http.StatusOK
	}, 10*time.Second, 50*time.Millisecond, "ready again once the database is back")
}

// TestStorePoolMetrics exports the pool of a PostgreSQL store at /metrics. How many
// connections are in use is not asserted: the scrape itself may be measuring the store.
func TestStorePoolMetrics(t *testing.T) {
	a := newAPIOn(t, engine.Options{StoreURL: migrated(t), Postgres: store.PostgresOptions{MaxConns: 7}})
	status, d := a.submit(hostToken, start)
	require.Equal(t, http.StatusOK, status, "%v", d)
	status, out := a.call("GET", "/metrics", "", "", nil)
	require.Equal(t, http.StatusOK, status)
	for _, want := range []string{"handoff_store_pool_max_conns 7", "handoff_store_pool_acquired_conns ", "handoff_store_pool_idle_conns ",
		"handoff_store_pool_total_conns ", "handoff_store_pool_acquires_total ", "handoff_store_pool_acquire_seconds_total ",
		"handoff_store_pool_empty_acquires_total ", "handoff_store_pool_canceled_acquires_total "} {
		assert.Contains(t, string(out), want)
	}
	assert.NotContains(t, string(out), "handoff_store_pool_acquires_total 0\n", "the decision took connections")

	_, out = newAPI(t).call("GET", "/metrics", "", "", nil)
	assert.NotContains(t, string(out), "handoff_store_pool_", "a Badger store has no pool")
}
