package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
)

// received is one POST a receiver got.
type received struct {
	id, event, signature string
	body                 []byte
	at                   time.Time
}

// receiver is a webhook endpoint on loopback: answer decides each POST's fate, by its
// number (1 for the first) and what it got.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(w http.ResponseWriter, r *http.Request, n int, got received)
}

func newReceiver(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int, got received)) *receiver {
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		got := received{id: r.Header.Get(IDHeader), event: r.Header.Get(EventHeader),
			signature: r.Header.Get(SignatureHeader), body: body, at: time.Now()}
		rc.got = append(rc.got, got)
		n := len(rc.got)
		rc.mu.Unlock()
		if rc.answer != nil {
			rc.answer(w, r, n, got)
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

func (rc *receiver) count() int { return len(rc.all()) }

// setup is a notifier of one endpoint (tenant acme, every event) on an engine of its own.
type setup struct {
	n    *Notifier
	e    *engine.Engine
	reg  *prometheus.Registry
	recs Deliveries
	ep   *Endpoint
}

func testConfig(t *testing.T, url string) *Config {
	t.Helper()
	doc := fmt.Sprintf(`{"webhooks": [{"name": "pager", "tenant_id": "acme", "url": %q, "events": ["await_human", "escalation"], "secret_env": "S"}]}`, url)
	c, err := ParseConfig([]byte(doc), env(map[string]string{"S": testSecret}))
	require.NoError(t, err)
	return c
}

// fastOptions retry at once, so that tests do not wait.
func fastOptions() Options {
	return Options{Timeout: 5 * time.Second, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, SweepDelay: 10 * time.Millisecond}
}

func newSetup(t *testing.T, e *engine.Engine, recordsAt, url string, opts Options) *setup {
	t.Helper()
	if e == nil {
		var err error
		e, err = engine.Open(context.Background(), engine.Options{InMemory: true, LazyPolicies: true})
		require.NoError(t, err)
		t.Cleanup(func() { _ = e.Close() })
	}
	if recordsAt == "" {
		recordsAt = filepath.Join(t.TempDir(), DeliveriesFile)
	}
	recs, err := OpenFileDeliveries(recordsAt, 0)
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	opts.Deliveries, opts.Registerer = recs, reg
	cfg := testConfig(t, url)
	n, err := New(e, cfg, opts)
	require.NoError(t, err)
	s := &setup{n: n, e: e, reg: reg, recs: recs, ep: cfg.Endpoints[0]}
	t.Cleanup(func() { s.close(t) })
	return s
}

func (s *setup) close(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	assert.NoError(t, s.n.Close(ctx))
	assert.NoError(t, s.recs.Close())
}

// counter reads one series of a counter vector.
func (s *setup) counter(name string, labels ...string) float64 {
	m := s.n.m
	vec := map[string]*prometheus.CounterVec{"deliveries": m.deliveries, "attempts": m.attempts, "retries": m.retries,
		"dropped": m.dropped, "swept": m.swept, "sweeps": m.sweeps}[name]
	return value(vec.WithLabelValues(labels...))
}

// value reads a counter or a gauge.
func value(c prometheus.Metric) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// ended is how many events reached an end, whatever it was.
func (s *setup) ended() float64 {
	n := 0.0
	for _, r := range []string{resultDelivered, resultRejected, resultExhausted, resultAbandoned} {
		n += s.counter("deliveries", "acme", "pager", r)
	}
	return n
}

// gate is a recorded await_human decision of tenant acme, with free text in its reason.
func gate(id string) *engine.Decision {
	return &engine.Decision{DecisionID: id, RequestID: "req-" + id, WorkflowID: "wf/" + id, TenantID: "acme", Kind: "handoff", Pack: "campaign",
		Outcome: engine.AwaitHuman, StatusBefore: "STRATEGY", StatusAfter: "STRATEGY_APPROVAL",
		Reasons:   []engine.Reason{{Code: "HUMAN_APPROVAL_REQUIRED", Title: "A person approves the strategy", Message: "the draft says: call Jane at 555-0100", Path: "output.content"}},
		Next:      []engine.Next{{Agent: "campaign_approver", Task: "strategy_approval"}},
		Recorded:  true,
		DecidedAt: "2026-03-01T09:00:00Z"}
}

// TestDeliverySignedAndVerified: the receiver gets the gate's event, signed; it verifies
// with the endpoint's secret and fails with another or once stale; nothing of the
// decision's free text is in it; the delivery is recorded.
func TestDeliverySignedAndVerified(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSetup(t, nil, "", rc.srv.URL, fastOptions())
	s.n.recorded(gate("dec-1"))
	require.Eventually(t, func() bool { return s.ended() == 1 }, 30*time.Second, 5*time.Millisecond)
	got := rc.all()
	require.Len(t, got, 1)
	r := got[0]
	assert.Equal(t, WebhookID("acme", "pager", "dec-1"), r.id)
	assert.Equal(t, EventAwaitHuman, r.event)
	assert.NoError(t, Verify([]byte(testSecret), r.signature, r.body, time.Minute, r.at))
	assert.ErrorIs(t, Verify([]byte("not the endpoint's secret at all"), r.signature, r.body, time.Minute, r.at), ErrBadSignature)
	assert.ErrorIs(t, Verify([]byte(testSecret), r.signature, r.body, time.Minute, r.at.Add(time.Hour)), ErrStale)

	var ev map[string]any
	require.NoError(t, json.Unmarshal(r.body, &ev))
	assert.Equal(t, r.id, ev["id"])
	assert.Equal(t, "await_human", ev["type"])
	assert.Equal(t, "acme", ev["tenant_id"])
	assert.Equal(t, "wf/dec-1", ev["workflow_id"])
	assert.Equal(t, "STRATEGY_APPROVAL", ev["status"])
	assert.Equal(t, "/console/workflows/wf%2Fdec-1", ev["console_path"])
	assert.Equal(t, []any{map[string]any{"code": "HUMAN_APPROVAL_REQUIRED", "title": "A person approves the strategy"}}, ev["reasons"])
	assert.Equal(t, []any{"campaign_approver"}, ev["next"])
	assert.NotContains(t, string(r.body), "Jane", "a reason's message is never sent")
	assert.NotContains(t, string(r.body), "output.content")

	assert.Equal(t, 1.0, s.counter("deliveries", "acme", "pager", resultDelivered))
	done, err := s.recs.Delivered(context.Background(), "acme", r.id)
	require.NoError(t, err)
	assert.True(t, done)
	done, err = s.recs.Delivered(context.Background(), "globex", r.id)
	require.NoError(t, err)
	assert.False(t, done, "records are a tenant's")

	// Another tenant's decision, and one that waits for nobody, send nothing.
	other := gate("dec-2")
	other.TenantID = "globex"
	s.n.recorded(other)
	moved := gate("dec-3")
	moved.Outcome = engine.Allow
	s.n.recorded(moved)
	s.close(t)
	assert.Equal(t, 1, rc.count())
}

// TestFirstAttemptFailsThenDelivered: the first POST gets a 503, or its connection is
// closed without an answer; the second, with the same id and body, is delivered.
func TestFirstAttemptFailsThenDelivered(t *testing.T) {
	for name, fail := range map[string]func(w http.ResponseWriter){
		"503": func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) },
		"connection closed": func(w http.ResponseWriter) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int, _ received) {
				if n == 1 {
					fail(w)
				}
			})
			s := newSetup(t, nil, "", rc.srv.URL, fastOptions())
			s.n.recorded(gate("dec-1"))
			require.Eventually(t, func() bool { return s.ended() == 1 }, 30*time.Second, 5*time.Millisecond)
			got := rc.all()
			require.Len(t, got, 2)
			assert.Equal(t, got[0].id, got[1].id, "the idempotency id is the same on a retry")
			assert.Equal(t, string(got[0].body), string(got[1].body))
			assert.Equal(t, 1.0, s.counter("deliveries", "acme", "pager", resultDelivered))
			assert.Equal(t, 1.0, s.counter("retries", "acme", "pager"))
			assert.Equal(t, 1.0, s.counter("attempts", "acme", "pager", "2xx"))
			if name == "503" {
				assert.Equal(t, 1.0, s.counter("attempts", "acme", "pager", "5xx"))
			} else {
				assert.Equal(t, 1.0, s.counter("attempts", "acme", "pager", "error"))
			}
		})
	}
}

// TestSlowReceiverRetried: a receiver that answers after the attempt's timeout is sent
// the event again.
func TestSlowReceiverRetried(t *testing.T) {
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int, _ received) {
		if n == 1 {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
	})
	opts := fastOptions()
	opts.Timeout = time.Second
	s := newSetup(t, nil, "", rc.srv.URL, opts)
	s.n.recorded(gate("dec-1"))
	require.Eventually(t, func() bool { return s.ended() == 1 }, 30*time.Second, 5*time.Millisecond)
	assert.Equal(t, 1.0, s.counter("attempts", "acme", "pager", "timeout"))
	assert.Equal(t, 1.0, s.counter("deliveries", "acme", "pager", resultDelivered))
	assert.Equal(t, 2, rc.count())
}

// TestRefusedNotRetried: a 4xx ends the event at once, unrecorded; a 429 is retried,
// after its Retry-After; attempts are bounded.
func TestRefusedNotRetried(t *testing.T) {
	rc := newReceiver(t, func(w http.ResponseWriter, _ *http.Request, n int, got received) {
		switch got.id {
		case WebhookID("acme", "pager", "dec-400"):
			w.WriteHeader(http.StatusBadRequest)
		case WebhookID("acme", "pager", "dec-429"):
			if n == 2 { // after dec-400's
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
			}
		case WebhookID("acme", "pager", "dec-500"):
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	opts := fastOptions()
	opts.Concurrency, opts.MaxAttempts = 1, 3
	s := newSetup(t, nil, "", rc.srv.URL, opts)
	for _, id := range []string{"dec-400", "dec-429", "dec-500"} {
		s.n.recorded(gate(id))
	}
	require.Eventually(t, func() bool { return s.ended() == 3 }, 30*time.Second, 5*time.Millisecond)
	ids := map[string]int{}
	for _, r := range rc.all() {
		ids[r.id]++
	}
	assert.Equal(t, 1, ids[WebhookID("acme", "pager", "dec-400")], "a 400 is not retried")
	assert.Equal(t, 2, ids[WebhookID("acme", "pager", "dec-429")], "a 429 is")
	assert.Equal(t, 3, ids[WebhookID("acme", "pager", "dec-500")], "a 500 until the attempts are spent")
	assert.Equal(t, 1.0, s.counter("deliveries", "acme", "pager", resultRejected))
	assert.Equal(t, 1.0, s.counter("deliveries", "acme", "pager", resultDelivered))
	assert.Equal(t, 1.0, s.counter("deliveries", "acme", "pager", resultExhausted))
	assert.Equal(t, 1.0, s.counter("attempts", "acme", "pager", "4xx"))
	assert.Equal(t, 1.0, s.counter("attempts", "acme", "pager", "429"))
	done, err := s.recs.Delivered(context.Background(), "acme", WebhookID("acme", "pager", "dec-400"))
	require.NoError(t, err)
	assert.False(t, done)
}

// TestQueueOverflowCounted: with the sender busy and the queue full, events are dropped
// and counted; the queued ones are delivered once the receiver answers again.
func TestQueueOverflowCounted(t *testing.T) {
	release := make(chan struct{})
	rc := newReceiver(t, func(_ http.ResponseWriter, _ *http.Request, n int, _ received) {
		if n == 1 {
			<-release
		}
	})
	opts := fastOptions()
	opts.Concurrency, opts.QueueSize = 1, 2
	opts.SweepDelay = time.Hour // the sweep a drop asks for is not this test's
	s := newSetup(t, nil, "", rc.srv.URL, opts)
	s.n.recorded(gate("dec-0"))
	require.Eventually(t, func() bool { return rc.count() == 1 }, 30*time.Second, 5*time.Millisecond)
	for i := 1; i <= 5; i++ {
		s.n.recorded(gate(fmt.Sprintf("dec-%d", i)))
	}
	assert.Equal(t, 3.0, s.counter("dropped", "acme", "pager"))
	assert.Equal(t, 2.0, value(s.n.m.queued.WithLabelValues("acme", "pager")))
	close(release)
	require.Eventually(t, func() bool { return s.ended() == 3 }, 30*time.Second, 5*time.Millisecond)
	assert.Equal(t, 3.0, s.counter("deliveries", "acme", "pager", resultDelivered))
	assert.Equal(t, 0.0, value(s.n.m.queued.WithLabelValues("acme", "pager")))
}

// TestCloseAbandonsAtTheDeadline: Close waits for a queued event, then cuts the attempt
// in flight at its deadline.
func TestCloseAbandonsAtTheDeadline(t *testing.T) {
	rc := newReceiver(t, func(_ http.ResponseWriter, r *http.Request, _ int, _ received) { <-r.Context().Done() })
	opts := fastOptions()
	opts.Timeout = time.Minute
	s := newSetup(t, nil, "", rc.srv.URL, opts)
	s.n.recorded(gate("dec-1"))
	require.Eventually(t, func() bool { return rc.count() == 1 }, 30*time.Second, 5*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := s.n.Close(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 1.0, s.counter("deliveries", "acme", "pager", resultAbandoned))
	s.n.recorded(gate("dec-2")) // after Close: nothing
	assert.Equal(t, 1, rc.count())
}

// TestMetricsExported: the collectors are in the registry given, by tenant and endpoint.
func TestMetricsExported(t *testing.T) {
	rc := newReceiver(t, nil)
	s := newSetup(t, nil, "", rc.srv.URL, fastOptions())
	s.n.recorded(gate("dec-1"))
	require.Eventually(t, func() bool { return s.ended() == 1 }, 30*time.Second, 5*time.Millisecond)
	mfs, err := s.reg.Gather()
	require.NoError(t, err)
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	for _, want := range []string{"handoff_webhook_deliveries_total", "handoff_webhook_attempts_total", "handoff_webhook_queue_depth",
		"handoff_webhook_attempt_seconds", "handoff_webhook_sweeps_total"} {
		assert.Contains(t, names, want)
	}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "handoff_webhook_attempt_seconds":
			require.Len(t, mf.GetMetric(), 1)
			assert.Equal(t, uint64(1), mf.GetMetric()[0].GetHistogram().GetSampleCount())
		case "handoff_webhook_deliveries_total":
			byResult := map[string]float64{}
			for _, m := range mf.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				assert.Equal(t, "acme", labels["tenant"])
				assert.Equal(t, "pager", labels["endpoint"])
				byResult[labels["result"]] = m.GetCounter().GetValue()
			}
			assert.Equal(t, 1.0, byResult["delivered"])
			assert.Equal(t, 0.0, byResult["rejected"]+byResult["exhausted"]+byResult["abandoned"])
		}
	}
}

func TestEventType(t *testing.T) {
	esc := DefaultEscalationStatuses
	d := func(edit func(d *engine.Decision)) *engine.Decision {
		x := gate("d")
		x.Outcome = engine.Allow
		x.StatusBefore, x.StatusAfter = "QA", "QA"
		edit(x)
		return x
	}
	assert.Equal(t, EventAwaitHuman, EventType(d(func(x *engine.Decision) { x.Outcome = engine.AwaitHuman }), esc))
	assert.Equal(t, EventAwaitHuman, EventType(d(func(x *engine.Decision) { x.Outcome = engine.AwaitHuman; x.RequiresHumanReview = true }), esc), "await_human first")
	assert.Equal(t, EventEscalation, EventType(d(func(x *engine.Decision) { x.RequiresHumanReview = true }), esc))
	assert.Equal(t, EventEscalation, EventType(d(func(x *engine.Decision) { x.Outcome = engine.Fail; x.ConflictID = "c-1" }), esc))
	assert.Equal(t, EventEscalation, EventType(d(func(x *engine.Decision) { x.StatusAfter = "ESCALATED" }), esc))
	assert.Equal(t, "", EventType(d(func(x *engine.Decision) { x.StatusBefore, x.StatusAfter = "ESCALATED", "ESCALATED" }), esc), "already escalated: acknowledged")
	assert.Equal(t, "", EventType(d(func(x *engine.Decision) { x.StatusAfter = "ESCALATED" }), []string{"HUMAN_REVIEW"}))
	assert.Equal(t, "", EventType(d(func(x *engine.Decision) { x.Outcome = engine.Block; x.RequiresHumanReview = true }), esc), "a block changes nothing")
	assert.Equal(t, "", EventType(d(func(*engine.Decision) {}), esc))
}

func TestBackoffAndRetryAfter(t *testing.T) {
	n := &Notifier{opts: Options{MinBackoff: time.Second, MaxBackoff: 10 * time.Second}}
	for try, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 40: 10 * time.Second} {
		for range 20 {
			d := n.backoff(try)
			assert.True(t, d >= want/2 && d <= want, "try %d: %s not in [%s, %s]", try, d, want/2, want)
		}
	}
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	assert.Equal(t, 120*time.Second, retryAfter("120", now))
	assert.Equal(t, 90*time.Second, retryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now))
	for _, v := range []string{"", "-5", "soon", now.Add(-time.Minute).Format(http.TimeFormat)} {
		assert.Zero(t, retryAfter(v, now), v)
	}
}
