package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/pgtest"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/postgres"
)

// playToGate plays the campaign's happy path on e as workflow wf (request ids made its
// own) until its first gate, and returns the gate's decision.
func playToGate(t *testing.T, e *engine.Engine, wf string) *engine.Decision {
	t.Helper()
	ctx := context.Background()
	sc, err := scenario.Load("../../policies_test/handoff/campaign/scenarios/01-happy-path.scenario")
	require.NoError(t, err)
	p := scenario.NewPlayer(e)
	for _, step := range sc.Steps {
		var req map[string]any
		require.NoError(t, json.Unmarshal(step.Request, &req))
		req["request_id"] = req["request_id"].(string) + "-" + wf
		if req["kind"] == "start" {
			req["workflow_id"] = wf
		}
		raw, err := json.Marshal(req)
		require.NoError(t, err)
		body, err := p.Render(ctx, raw)
		require.NoError(t, err)
		d, err := e.Submit(ctx, body)
		require.NoError(t, err)
		require.Equal(t, step.Expect.Outcome, d.Outcome, "step %q: %v", step.Name, d.Reasons)
		p.Observe(body, d)
		if d.Outcome == engine.AwaitHuman {
			return d
		}
	}
	t.Fatal("the scenario reaches no gate")
	return nil
}

// TestRestartResendsTheUndeliveredGate: two workflows reach a gate; the receiver takes
// one event and refuses the other (400: not retried, not recorded). After a restart on
// the same store and records, the sweep sends the refused gate again, and only it.
func TestRestartResendsTheUndeliveredGate(t *testing.T) {
	t.Run("badger", func(t *testing.T) {
		dir := t.TempDir()
		open := func() (*engine.Engine, Deliveries) {
			e, err := engine.Open(context.Background(), engine.Options{Dir: filepath.Join(dir, "db"), LazyPolicies: true})
			require.NoError(t, err)
			recs, err := OpenFileDeliveries(filepath.Join(dir, "db", DeliveriesFile), 0)
			require.NoError(t, err)
			return e, recs
		}
		restartResends(t, open)
	})
	t.Run("postgres", func(t *testing.T) {
		u := pgtest.URL(t)
		_, err := postgres.Migrate(context.Background(), store.Options{URL: u})
		require.NoError(t, err)
		open := func() (*engine.Engine, Deliveries) {
			e, err := engine.Open(context.Background(), engine.Options{StoreURL: u, LazyPolicies: true})
			require.NoError(t, err)
			recs, err := OpenPostgresDeliveries(context.Background(), u)
			require.NoError(t, err)
			return e, recs
		}
		restartResends(t, open)
	})
}

func restartResends(t *testing.T, open func() (*engine.Engine, Deliveries)) {
	ctx := context.Background()
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ int, got received) {
		var ev Event
		if json.Unmarshal(got.body, &ev) != nil || ev.WorkflowID == "wf-left" {
			w.WriteHeader(http.StatusBadRequest)
		}
	})
	cfg := testConfig(t, rc.srv.URL)
	opts := fastOptions()

	e, recs := open()
	opts.Deliveries = recs
	n, err := New(e, cfg, opts)
	require.NoError(t, err)
	taken, left := playToGate(t, e, "wf-taken"), playToGate(t, e, "wf-left")
	takenID, leftID := WebhookID("acme", "pager", taken.DecisionID), WebhookID("acme", "pager", left.DecisionID)
	m := n.m
	require.Eventually(t, func() bool {
		return value(m.deliveries.WithLabelValues("acme", "pager", resultDelivered)) == 1 &&
			value(m.deliveries.WithLabelValues("acme", "pager", resultRejected)) == 1
	}, 60*time.Second, 10*time.Millisecond)
	assert.Equal(t, 1.0, value(m.sweeps.WithLabelValues("ok")), "the sweep at start found nothing to send")
	require.NoError(t, n.Close(ctx))
	require.NoError(t, recs.Close())
	require.NoError(t, e.Close())
	before := rc.all()
	require.Len(t, before, 2)

	e, recs = open()
	defer e.Close()
	defer recs.Close()
	opts.Deliveries = recs
	rc.answer = nil // takes everything now
	n, err = New(e, cfg, opts)
	require.NoError(t, err)
	defer n.Close(ctx)
	m = n.m
	require.Eventually(t, func() bool {
		return value(m.sweeps.WithLabelValues("ok")) == 1 && value(m.deliveries.WithLabelValues("acme", "pager", resultDelivered)) == 1
	}, 60*time.Second, 10*time.Millisecond)
	assert.Equal(t, 1.0, value(m.swept.WithLabelValues("acme", "pager")), "the sweep queued one gate")
	after := rc.all()[len(before):]
	require.Len(t, after, 1)
	assert.Equal(t, leftID, after[0].id, "the refused gate again, with its id")
	assert.Equal(t, before[1].body, after[0].body, "the same event")
	for _, id := range []string{takenID, leftID} {
		done, err := recs.Delivered(ctx, "acme", id)
		require.NoError(t, err)
		assert.True(t, done, id)
	}
}
