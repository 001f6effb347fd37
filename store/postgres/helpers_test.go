package postgres

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/storetest"
)

// TestConformance runs the store.Log suite on a PostgreSQL store, which it changes with
// SQL where the suite tampers with it.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		Name:     "postgres",
		Postgres: true,
		Open: func(t testing.TB) (store.Log, string) {
			p := openPostgres(t)
			return p, p.url
		},
		Tamper: func(t *testing.T, l store.Log, url string, fn func(storetest.Tamperer)) store.Log {
			t.Helper()
			conn, err := pgxConnect(url)
			require.NoError(t, err)
			defer conn.Close(context.Background())
			fn(pgTamperer{t: t, conn: conn})
			return l
		},
	})
}

// testPostgres is a PostgreSQL store with the URL it was opened with.
type testPostgres struct {
	*Log
	url string
}

// openPostgres opens a PostgreSQL store in a new schema, migrated.
func openPostgres(t testing.TB) testPostgres {
	t.Helper()
	u := pgtest.URL(t)
	_, err := Migrate(context.Background(), store.Options{URL: u})
	require.NoError(t, err)
	p, err := Open(context.Background(), store.Options{URL: u})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return testPostgres{p, u}
}

// The suite's helpers, under the names these tests use.
var (
	t0     = storetest.T0
	rec    = storetest.Rec
	create = storetest.Create
)
