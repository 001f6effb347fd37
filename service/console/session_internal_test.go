package console

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

func openTestEngine(t testing.TB, opts engine.Options) *engine.Engine {
	t.Helper()
	opts.LazyPolicies = true
	e, err := engine.Open(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

var maria = Person{Name: "maria", Tenant: "acme", ID: "maria.lopez", Roles: []string{"campaign_approver"}}

// TestSigninCacheIsBounded: past the bound the oldest sign-ins leave the memory, and are
// read from the store again when their person comes back.
func TestSigninCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	s := newSessions(openTestEngine(t, engine.Options{InMemory: true}), time.Hour, time.Now)
	first, _, err := s.start(ctx, maria, engine.ConsoleEvent{})
	require.NoError(t, err)
	for range maxCachedSignins + 10 {
		s.remember(&session{hash: randomToken()})
	}
	assert.Len(t, s.byHash, maxCachedSignins)
	assert.Len(t, s.order, maxCachedSignins)
	assert.NotContains(t, s.byHash, tokenHash(first), "the oldest left")
	ss, err := s.get(ctx, first)
	require.NoError(t, err)
	require.NotNil(t, ss, "read from the store")
	assert.Equal(t, maria, ss.person)
	assert.Equal(t, csrfToken(first), ss.csrf)
	assert.Contains(t, s.byHash, tokenHash(first), "and remembered")
}

// TestRevokeIDsAreUnambiguous: a tenant and a name that hold the separator do not make
// another person's revoke id.
func TestRevokeIDsAreUnambiguous(t *testing.T) {
	a := revokeID(Person{Tenant: "a:b", Name: "c"}, 0)
	b := revokeID(Person{Tenant: "a", Name: "b:c"}, 0)
	assert.NotEqual(t, a, b)
	assert.NotEqual(t, csrfToken("x"), tokenHash("x"))
}

// BenchmarkSessionCheck is what a page costs to find its session once the sign-in is
// cached: the two index reads that would end it.
func BenchmarkSessionCheck(b *testing.B) {
	for _, backend := range []string{"badger", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			opts := engine.Options{Dir: b.TempDir()}
			if backend == "postgres" {
				u := pgtest.URL(b)
				_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
				require.NoError(b, err)
				opts = engine.Options{StoreURL: u}
			}
			s := newSessions(openTestEngine(b, opts), time.Hour, time.Now)
			ctx := context.Background()
			token, _, err := s.start(ctx, maria, engine.ConsoleEvent{})
			require.NoError(b, err)
			b.ResetTimer()
			for b.Loop() {
				ss, err := s.get(ctx, token)
				if err != nil || ss == nil {
					b.Fatal(fmt.Sprint("no session: ", err))
				}
			}
		})
	}
}
