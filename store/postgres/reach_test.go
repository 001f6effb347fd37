package postgres

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/internal/syncbuf"
	"github.com/handoff-dev/handoff/store"
)

// TestPostgresReachabilityLogged takes the database away behind a store and brings it
// back: the store's logger says once that it is unreachable, however many calls fail,
// and once that it is back; the calls' errors say a resend may succeed and name neither
// the host nor the role.
func TestPostgresReachabilityLogged(t *testing.T) {
	ctx := context.Background()
	proxy, through := pgtest.NewProxy(t, openPostgres(t).url)
	u, err := url.Parse(through)
	require.NoError(t, err)
	var logs syncbuf.Buffer
	p, err := Open(ctx, store.Options{URL: through, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Postgres: store.PostgresOptions{ConnectTimeout: time.Second}})
	require.NoError(t, err)
	defer p.Close()
	create(t, p, "acme", "wf", 1)

	proxy.Down()
	for range 5 {
		_, _, err := p.State(ctx, "acme", "wf")
		require.ErrorIs(t, err, store.ErrUnavailable)
		assert.True(t, store.Retryable(err))
		for _, secret := range []string{proxy.Addr(), "127.0.0.1", u.User.Username()} {
			assert.NotContains(t, err.Error(), secret)
		}
	}
	assert.Equal(t, 1, strings.Count(logs.String(), "the database is unreachable"), logs.String())
	assert.NotContains(t, logs.String(), "reachable again")

	proxy.Up()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, _, err = p.State(ctx, "acme", "wf")
		if err == nil || !errors.Is(err, store.ErrUnavailable) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(logs.String(), "the database is reachable again"), logs.String())
	assert.Equal(t, 1, strings.Count(logs.String(), "the database is unreachable"))
}
