package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
)

// TestPostgresUnreachable opens a database nobody listens for: a clear error that
// matches ErrUnavailable, without the URL's password, within the connect timeout.
func TestPostgresUnreachable(t *testing.T) {
	start := time.Now()
	_, err := Open(context.Background(), Options{URL: "postgres://handoff:s3cret@127.0.0.1:1/handoff", Postgres: PostgresOptions{ConnectTimeout: time.Second}})
	require.ErrorIs(t, err, ErrUnavailable)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Contains(t, err.Error(), "127.0.0.1")
	assert.Less(t, time.Since(start), 30*time.Second, "Open waits for the connect timeout, not forever")
}

// TestPostgresURLRefused names what is wrong with a URL that is not a store's.
func TestPostgresURLRefused(t *testing.T) {
	_, err := Open(context.Background(), Options{URL: "mysql://root:s3cret@db/handoff"})
	require.ErrorIs(t, err, ErrInvalid)
	assert.NotContains(t, err.Error(), "s3cret")
	_, err = Open(context.Background(), Options{URL: "postgres://root:s3cret@db/handoff?connect_timeout=x"})
	require.ErrorIs(t, err, ErrInvalid)
	assert.NotContains(t, err.Error(), "s3cret")
}

// TestPostgresSchemaChecked refuses a database whose schema is not this version's.
func TestPostgresSchemaChecked(t *testing.T) {
	ctx := context.Background()
	p := openPostgres(t)
	conn, err := pgxConnect(p.url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO handoff_schema (version, name) VALUES (99, 'from the future')`)
	require.NoError(t, err)
	_, err = OpenPostgres(ctx, Options{URL: p.url})
	require.ErrorIs(t, err, ErrSchema)
	assert.Contains(t, err.Error(), "version 99")
	_, err = Migrate(ctx, Options{URL: p.url})
	require.Error(t, err, "a newer schema is not migrated down")

	bare := pgtest.URL(t)
	_, err = OpenPostgres(ctx, Options{URL: bare})
	require.ErrorIs(t, err, ErrSchema)
	assert.Contains(t, err.Error(), "handoffctl migrate")
}
