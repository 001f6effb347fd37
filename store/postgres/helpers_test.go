package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

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

var t0 = time.Date(2026, 11, 29, 21, 0, 0, 123456789, time.UTC)

// rec builds a record with a small JSON payload.
func rec(typ string, n int) store.NewRecord {
	return store.NewRecord{Type: typ, Payload: fmt.Appendf(nil, `{"n":%d}`, n)}
}

// create makes a workflow with n records and state version 1.
func create(t testing.TB, l store.Log, tenant, workflow string, n int) store.Head {
	t.Helper()
	a := store.Append{Tenant: tenant, Workflow: workflow, Create: true, BumpVersion: true, Time: t0,
		State: []byte(`{"v":1}`)}
	for i := range n {
		a.Records = append(a.Records, rec("event", i+1))
	}
	h, err := l.Append(context.Background(), a)
	require.NoError(t, err)
	return h
}
