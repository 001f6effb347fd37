package postgres

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
)

// TestPostgresUnreachable opens a database nobody listens for: a clear error that
// matches ErrUnavailable and says a resend may succeed, without the URL's password, role,
// host or port (the message may reach an HTTP body), within the connect timeout.
func TestPostgresUnreachable(t *testing.T) {
	start := time.Now()
	_, err := Open(context.Background(), store.Options{URL: "postgres://dbrole:s3cret@127.0.0.1:1/somedb", Postgres: store.PostgresOptions{ConnectTimeout: time.Second}})
	require.ErrorIs(t, err, store.ErrUnavailable)
	assert.True(t, store.Retryable(err))
	assert.Contains(t, err.Error(), "refused")
	for _, secret := range []string{"s3cret", "dbrole", "127.0.0.1", ":1", "somedb"} {
		assert.NotContains(t, err.Error(), secret)
	}
	assert.Less(t, time.Since(start), 30*time.Second, "Open waits for the connect timeout, not forever")

	_, err = Open(context.Background(), store.Options{URL: "postgres://dbrole:s3cret@db.invalid/somedb", Postgres: store.PostgresOptions{ConnectTimeout: time.Second}})
	require.ErrorIs(t, err, store.ErrUnavailable)
	for _, secret := range []string{"s3cret", "dbrole", "db.invalid", "somedb"} {
		assert.NotContains(t, err.Error(), secret)
	}
}

// TestPostgresWrongPassword is refused for good: ErrPermission, which a resend cannot
// fix, and the message names neither the role nor the host.
func TestPostgresWrongPassword(t *testing.T) {
	u, err := url.Parse(pgtest.Require(t))
	require.NoError(t, err)
	u.User = url.UserPassword(u.User.Username(), "not-the-password")
	_, err = Open(context.Background(), store.Options{URL: u.String()})
	require.ErrorIs(t, err, store.ErrPermission)
	assert.False(t, store.Retryable(err))
	assert.Contains(t, err.Error(), "credentials")
	for _, secret := range []string{u.User.Username(), u.Hostname(), u.Port(), "not-the-password"} {
		assert.NotContains(t, err.Error(), secret)
	}
}

// TestPostgresURLParameters honours the pool and session parameters of the store URL,
// and lets Options override them.
func TestPostgresURLParameters(t *testing.T) {
	ctx := context.Background()
	base := openPostgres(t).url
	u := base + "&pool_max_conns=3&statement_timeout=300ms"
	p, err := Open(ctx, store.Options{URL: u})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, int32(3), p.PoolStats().MaxConns)
	create(t, p, "acme", "wf", 1)

	// A statement waiting on a lock past the URL's statement timeout fails, and says that
	// a resend may succeed.
	conn, err := pgxConnect(base)
	require.NoError(t, err)
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `LOCK TABLE handoff_workflows IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)
	start := time.Now()
	_, _, err = p.State(ctx, "acme", "wf")
	require.ErrorIs(t, err, store.ErrBusy)
	assert.True(t, store.Retryable(err))
	assert.Contains(t, err.Error(), "statement timeout")
	assert.Less(t, time.Since(start), 5*time.Second, "the URL's 300ms, not the default 10s")
	require.NoError(t, tx.Rollback(ctx))

	// Options win over the URL.
	o, err := Open(ctx, store.Options{URL: u, Postgres: store.PostgresOptions{MaxConns: 5, StatementTimeout: 2 * time.Second}})
	require.NoError(t, err)
	defer o.Close()
	assert.Equal(t, int32(5), o.PoolStats().MaxConns)
	var timeout string
	require.NoError(t, o.pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&timeout))
	assert.Equal(t, "2s", timeout)
	// Without either, the defaults.
	d, err := Open(ctx, store.Options{URL: base})
	require.NoError(t, err)
	defer d.Close()
	require.NoError(t, d.pool.QueryRow(ctx, `SHOW statement_timeout`).Scan(&timeout))
	assert.Equal(t, "10s", timeout)
	assert.GreaterOrEqual(t, d.PoolStats().MaxConns, int32(8))

	_, err = Open(ctx, store.Options{URL: base + "&statement_timeout=soon"})
	require.ErrorIs(t, err, store.ErrInvalid)
}

// TestMigrateWithoutTheCreateRight runs migrate as a role that may not create tables in
// the schema: a schema that is current is left alone without a statement that needs the
// right; one that is not says which right is missing. The test's role revokes its own
// CREATE on the test's schema (it owns it, and may not create roles).
func TestMigrateWithoutTheCreateRight(t *testing.T) {
	ctx := context.Background()
	revoke := func(u string) {
		conn, err := pgxConnect(u)
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `DO $$ BEGIN EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM CURRENT_USER', current_schema()); END $$`)
		require.NoError(t, err)
		_, err = conn.Exec(ctx, `CREATE TABLE handoff_probe (x int)`)
		require.ErrorContains(t, err, "permission denied", "the right is gone")
	}
	current := openPostgres(t).url
	revoke(current)
	applied, err := Migrate(ctx, store.Options{URL: current})
	require.NoError(t, err)
	assert.Empty(t, applied)

	empty := pgtest.URL(t)
	revoke(empty)
	_, err = Migrate(ctx, store.Options{URL: empty})
	require.ErrorIs(t, err, store.ErrPermission)
	assert.False(t, store.Retryable(err))
	assert.Contains(t, err.Error(), "GRANT CREATE ON SCHEMA")
}

// TestPostgresReadyRefusesAReadOnlyDatabase opens a store whose sessions take no writes,
// as a hot standby's: not ready, and every write refused for good.
func TestPostgresReadyRefusesAReadOnlyDatabase(t *testing.T) {
	ctx := context.Background()
	p := openPostgres(t)
	require.NoError(t, p.Ready(ctx))
	create(t, p, "acme", "wf", 1)

	ro, err := Open(ctx, store.Options{URL: p.url + "&default_transaction_read_only=on"})
	require.NoError(t, err)
	defer ro.Close()
	err = ro.Ready(ctx)
	require.ErrorIs(t, err, store.ErrReadOnly)
	assert.Contains(t, err.Error(), "default_transaction_read_only")
	_, _, err = ro.State(ctx, "acme", "wf")
	require.NoError(t, err, "it reads")
	_, err = ro.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: 1, Records: []store.NewRecord{rec("x", 1)}, Time: t0})
	require.ErrorIs(t, err, store.ErrReadOnly)
	assert.False(t, store.Retryable(err))

	require.NoError(t, p.Close())
	require.ErrorIs(t, p.Ready(ctx), store.ErrClosed)
}

// TestPostgresErrorClasses sorts the database's errors into those a resend may cure and
// those it cannot.
func TestPostgresErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		code  string
		class error // nil: none of the classes
		retry bool
	}{
		{"42501", store.ErrPermission, false},
		{"28P01", store.ErrPermission, false},
		{"25006", store.ErrReadOnly, false},
		{"57P01", store.ErrUnavailable, true},
		{"57P03", store.ErrUnavailable, true},
		{"08006", store.ErrUnavailable, true},
		{"57014", store.ErrBusy, true},
		{"53300", store.ErrBusy, true},
		{"40001", store.ErrBusy, true},
		{"40P01", store.ErrBusy, true},
		{"55P03", store.ErrBusy, true},
		{"23502", nil, false},
		{"3D000", nil, false},
		{"XX001", nil, false},
	} {
		err := pgWrap("append", &pgconn.PgError{Code: tc.code, Message: `something about role "dbrole"`})
		var se *store.Error
		require.ErrorAs(t, err, &se, tc.code)
		for _, class := range []error{store.ErrPermission, store.ErrReadOnly, store.ErrUnavailable, store.ErrBusy} {
			assert.Equal(t, class == tc.class, errors.Is(err, class), "%s: %v", tc.code, class)
		}
		assert.Equal(t, tc.retry, store.Retryable(err), tc.code)
		if strings.HasPrefix(tc.code, "28") || strings.HasPrefix(tc.code, "08") || strings.HasPrefix(tc.code, "57P") || tc.code == "3D000" {
			assert.NotContains(t, err.Error(), "dbrole", "%s: the server's message may name the role", tc.code)
		}
	}
	for _, err := range []error{&store.StaleError{}, store.ErrTampered, store.ErrInvalid, store.ErrSchema, store.ErrClosed, store.ErrIdempotencyKeyReused} {
		assert.False(t, store.Retryable(err), "%v", err)
	}
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
	_, err = Open(ctx, store.Options{URL: p.url})
	require.ErrorIs(t, err, store.ErrSchema)
	assert.Contains(t, err.Error(), "version 99")
	_, err = Migrate(ctx, store.Options{URL: p.url})
	require.Error(t, err, "a newer schema is not migrated down")

	bare := pgtest.URL(t)
	_, err = Open(ctx, store.Options{URL: bare})
	require.ErrorIs(t, err, store.ErrSchema)
	assert.Contains(t, err.Error(), "handoffctl migrate")
}
