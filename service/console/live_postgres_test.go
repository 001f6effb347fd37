package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/service/console"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// TestInboxSummarySharedStore: two engines on one PostgreSQL store, as two processes.
// A gate that opens through the other one, whose decisions this console is not told
// of, reaches the summary once the list it read is ten seconds old.
func TestInboxSummarySharedStore(t *testing.T) {
	u := pgtest.URL(t)
	ctx := context.Background()
	_, err := postgres.Migrate(ctx, store.Options{URL: u})
	require.NoError(t, err)
	open := func() *engine.Engine {
		e, err := engine.Open(ctx, engine.Options{StoreURL: u, LazyPolicies: true})
		require.NoError(t, err)
		t.Cleanup(func() { _ = e.Close() })
		return e
	}
	here, other := open(), open()
	var ahead atomic.Int64 // how far the console's clock is ahead of the wall clock
	c := console.New(here, console.Options{
		Clock: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) },
		Authenticate: func(token string) (console.Person, bool) {
			return console.Person{Name: "maria", Tenant: "acme", ID: "maria.lopez", Roles: []string{"campaign_approver"}}, token == mariaToken
		}})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	v := newVisitor(t, srv.URL, &http.Client{})
	v.signIn(mariaToken)
	require.Equal(t, 0, v.summary().Waiting)

	(&site{t: t, e: here}).campaign("acme", "wf-here", "launch-1", true)
	assert.Equal(t, 1, v.summary().Waiting, "a decision of this engine is seen at once")

	(&site{t: t, e: other}).campaign("acme", "wf-other", "launch-2", true)
	ahead.Store(int64(11 * time.Second))
	s := v.summary()
	assert.Equal(t, 2, s.Waiting, "the other engine's gate, once the list read is old")
	assert.Equal(t, 2, s.Unread)
	assert.Equal(t, []string{"wf-here", "wf-other"}, sortedRows(v.get("/console/")))
}
