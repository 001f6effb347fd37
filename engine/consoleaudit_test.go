package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// consoleBackends open the toy engine on each backend.
var consoleBackends = []struct {
	name string
	open func(t *testing.T) *Engine
}{
	{"badger", func(t *testing.T) *Engine { return openToy(t, toyAllow) }},
	{"postgres", func(t *testing.T) *Engine {
		u := pgtest.URL(t)
		_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
		require.NoError(t, err)
		return openToy(t, toyAllow, func(o *Options) { o.InMemory, o.StoreURL = false, u })
	}},
}

// TestConsoleEventsShareTheAuditStream records console events beside a security record
// in a tenant's audit stream: the readers of decisions pass them over, verify accepts
// their ids, the page reads both newest first, and a console id is found only in its own
// tenant's stream.
func TestConsoleEventsShareTheAuditStream(t *testing.T) {
	for _, b := range consoleBackends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			e := b.open(t)
			start := submit(t, e, toyStart)
			// A request of t2 on t1's workflow: a security record of t2.
			blocked := submit(t, e, strings.Replace(toyHandoff("r-x", 1, ""), `"tenant_id":"t1"`, `"tenant_id":"t2"`, 1))
			require.Equal(t, Block, blocked.Outcome)

			at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
			signin := ConsoleEvent{Event: ConsoleSignin, ID: "console-session:abc", Person: "maria", ActorID: "maria.lopez",
				Roles: []string{"approver"}, Session: "abc", ExpiresAt: at.Add(8 * time.Hour).Format(time.RFC3339Nano)}
			seq, err := e.RecordConsoleEvent(ctx, "t2", signin, at)
			require.NoError(t, err)
			assert.Equal(t, uint64(2), seq)
			_, err = e.RecordConsoleEvent(ctx, "t2", ConsoleEvent{Event: ConsoleFormRefused, Person: "maria", Path: "/console/x", Reason: "bad token"}, at.Add(time.Minute))
			require.NoError(t, err)
			_, err = e.RecordConsoleEvent(ctx, "t2", ConsoleEvent{Event: ConsoleSignout, ID: "console-signout:abc", Person: "maria", Session: "abc"}, at.Add(2*time.Minute))
			require.NoError(t, err)

			_, err = e.RecordConsoleEvent(ctx, "t2", ConsoleEvent{Event: ConsoleSignout, ID: "console-signout:abc"}, at)
			var dup *store.DuplicateIDError
			require.ErrorAs(t, err, &dup, "an id is recorded once")
			_, err = e.RecordConsoleEvent(ctx, "t2", ConsoleEvent{Event: "signin_maybe"}, at)
			require.Error(t, err, "an unknown event")
			_, err = e.RecordConsoleEvent(ctx, "", ConsoleEvent{Event: ConsoleSignin}, at)
			require.Error(t, err, "no tenant")

			// Audit: the security record only.
			var entries []Entry
			require.NoError(t, e.Audit(ctx, "t2", func(en Entry) error { entries = append(entries, en); return nil }))
			require.Len(t, entries, 1)
			assert.Equal(t, blocked.DecisionID, entries[0].Decision.DecisionID)

			// The page: newest first, by cursor.
			page, next, err := e.AuditPage(ctx, "t2", 0, 3)
			require.NoError(t, err)
			require.Len(t, page, 3)
			assert.Equal(t, []uint64{4, 3, 2}, []uint64{page[0].Seq, page[1].Seq, page[2].Seq})
			assert.Equal(t, ConsoleSignout, page[0].Console.Event)
			assert.Equal(t, "bad token", page[1].Console.Reason)
			assert.Equal(t, "maria.lopez", page[2].Console.ActorID)
			assert.Equal(t, uint64(2), next)
			page, next, err = e.AuditPage(ctx, "t2", next, 3)
			require.NoError(t, err)
			require.Len(t, page, 1)
			assert.Nil(t, page[0].Console)
			assert.Equal(t, "TENANT_MISMATCH", page[0].Security.Decision.Reasons[0].Code)
			assert.Zero(t, next, "the first record: no older page")
			page, _, err = e.AuditPage(ctx, "nobody", 0, 3)
			require.NoError(t, err)
			assert.Empty(t, page, "a tenant with no stream")
			_, _, err = e.AuditPage(ctx, "t2", 0, 0)
			require.Error(t, err)

			// Finding console ids: scoped to the tenant's stream.
			ev, err := e.ConsoleEventByID(ctx, "t2", "console-session:abc")
			require.NoError(t, err)
			assert.Equal(t, signin.Roles, ev.Roles)
			_, err = e.ConsoleEventByID(ctx, "t1", "console-session:abc")
			require.ErrorIs(t, err, store.ErrTampered, "another tenant's id is never read as ours")
			tenant, ev, err := e.ConsoleSignin(ctx, "console-session:abc")
			require.NoError(t, err)
			assert.Equal(t, "t2", tenant, "the index says the tenant")
			assert.Equal(t, "maria", ev.Person)
			_, _, err = e.ConsoleSignin(ctx, "console-signout:abc")
			require.ErrorIs(t, err, store.ErrTampered, "a sign-out is no sign-in")
			_, _, err = e.ConsoleSignin(ctx, "console-session:none")
			require.ErrorIs(t, err, store.ErrNotFound)
			ok, err := e.ConsoleRecorded(ctx, "t2", "console-signout:abc")
			require.NoError(t, err)
			assert.True(t, ok)
			ok, err = e.ConsoleRecorded(ctx, "t2", "console-signout:none")
			require.NoError(t, err)
			assert.False(t, ok)
			_, err = e.ConsoleRecorded(ctx, "t1", start.DecisionID)
			require.ErrorIs(t, err, store.ErrTampered, "a workflow's record is no console event")

			// A console id names no decision.
			_, err = e.Decision(ctx, "console-session:abc")
			require.ErrorIs(t, err, ErrDecisionNotFound)
			d, err := e.Decision(ctx, blocked.DecisionID)
			require.NoError(t, err)
			assert.Equal(t, blocked.DecisionID, d.Decision.DecisionID)

			// Verify, replay and the decision log read the stream whole.
			reps, err := e.VerifyAll(ctx)
			require.NoError(t, err)
			for _, r := range reps {
				assert.True(t, r.OK, "%s/%s: %s", r.Tenant, r.Workflow, r.Problem)
			}
			reps, err = e.VerifyTenant(ctx, "t2")
			require.NoError(t, err)
			for _, r := range reps {
				assert.True(t, r.OK, "%s/%s: %s", r.Tenant, r.Workflow, r.Problem)
			}
			replayed := 0
			require.NoError(t, e.Replay(ctx, nil, ReplayOptions{}, func(r ReplayResult) error {
				replayed++
				assert.False(t, r.Audit, "no console event is replayed")
				return nil
			}))
			assert.Equal(t, 1, replayed, "the start of t1")
			var logged []string
			require.NoError(t, e.DecisionLog(ctx, DecisionLogOptions{Tenant: "t2"}, func(ev DecisionLogEvent) error {
				logged = append(logged, ev.DecisionID)
				return nil
			}))
			assert.Equal(t, []string{blocked.DecisionID}, logged)
		})
	}
}

// TestConsoleEventDecodingIsStrict: an id that names a record other than a console
// event is refused, not read as one.
func TestConsoleEventDecodingIsStrict(t *testing.T) {
	e := openToy(t, toyAllow)
	ctx := context.Background()
	blocked := submit(t, e, strings.Replace(toyHandoff("r-x", 1, ""), `"tenant_id":"t1"`, `"tenant_id":"t2"`, 1))
	_, err := e.ConsoleEventByID(ctx, "t2", blocked.DecisionID)
	require.Error(t, err, "a security record is no console event")
	assert.True(t, errors.Is(err, store.ErrTampered), "%v", err)
}
