package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/handoff-dev/handoff/engine"
)

// Options configure a Notifier. Zero values take the defaults.
type Options struct {
	// Deliveries records the events receivers took (required): FileDeliveries beside a
	// Badger store, PostgresDeliveries in a PostgreSQL store.
	Deliveries Deliveries
	// Logger receives a line per event that reached an end other than delivered, per
	// drop and per failed sweep; ids only, never a URL or a body. Nil is silent.
	Logger *slog.Logger
	// Registerer receives the notifier's metrics (handoff_webhook_*). Nil registers none.
	Registerer prometheus.Registerer
	// Client sends the POSTs. Default: a client that follows no redirect (a 3xx is an
	// answer, not retried).
	Client *http.Client
	// Timeout bounds one attempt, until the answer's status. Default 10s.
	Timeout time.Duration
	// MaxAttempts bounds the attempts of one event, the first included. Default 8.
	MaxAttempts int
	// MaxAge bounds how long an event is retried after it was queued. Default 1h.
	MaxAge time.Duration
	// MinBackoff and MaxBackoff bound the wait before a retry: MinBackoff doubled per
	// attempt, at most MaxBackoff, with jitter (half of it random). A longer Retry-After
	// is waited instead. Defaults 1s and 5m.
	MinBackoff, MaxBackoff time.Duration
	// QueueSize bounds the events queued per endpoint; past it an event is dropped,
	// counted and logged. Default 1000.
	QueueSize int
	// Concurrency bounds the POSTs in flight per endpoint. Default 4.
	Concurrency int
	// SweepDelay is how long after a drop or an exhausted event the next sweep comes
	// (several coalesce into one). Default 1m.
	SweepDelay time.Duration
}

func (o *Options) defaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = max(o.Concurrency, 4)
		o.Client = &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	setDefault(&o.Timeout, 10*time.Second)
	setDefault(&o.MaxAttempts, 8)
	setDefault(&o.MaxAge, time.Hour)
	setDefault(&o.MinBackoff, time.Second)
	setDefault(&o.MaxBackoff, 5*time.Minute)
	setDefault(&o.QueueSize, 1000)
	setDefault(&o.Concurrency, 4)
	setDefault(&o.SweepDelay, time.Minute)
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Notifier sends the events of an engine's recorded decisions to the endpoints of a
// Config: signed POSTs, retried, at least once. It listens to the engine
// (engine.Engine.OnRecorded) and, at start and after a drop, sweeps the workflows
// waiting for a person for gates whose delivery is not recorded.
type Notifier struct {
	e        *engine.Engine
	opts     Options
	m        *metrics
	senders  []*sender
	byTenant map[string][]*sender

	// ctx ends the attempts and waits in flight: at Close's deadline.
	ctx    context.Context
	cancel context.CancelFunc
	// sweepCtx ends a sweep in progress: at Close.
	sweepCtx    context.Context
	sweepCancel context.CancelFunc
	sweepAsked  chan struct{} // a sweep is wanted; capacity 1
	stopSweeps  chan struct{}

	mu      sync.RWMutex // held to send on a queue; Lock to close them
	closed  bool
	workers sync.WaitGroup
	sweeper sync.WaitGroup
}

// sender is one endpoint's queue and what it holds.
type sender struct {
	ep       *Endpoint
	queue    chan *job
	mu       sync.Mutex
	inflight map[string]bool // ids queued or being sent: a sweep does not queue them again
	lastLog  time.Time
	unlogged int // drops since the last drop logged
}

// job is one event to deliver.
type job struct {
	ev     Event
	body   []byte
	queued time.Time
}

// New starts a notifier of e's decisions for the endpoints of cfg: it listens to e from
// now on and sweeps at once. Close stops it.
func New(e *engine.Engine, cfg *Config, opts Options) (*Notifier, error) {
	if opts.Deliveries == nil {
		return nil, errors.New("webhook: Options.Deliveries is required: where deliveries are recorded")
	}
	opts.defaults()
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, fmt.Errorf("webhook: metrics: %w", err)
	}
	n := &Notifier{e: e, opts: opts, m: m, byTenant: map[string][]*sender{},
		sweepAsked: make(chan struct{}, 1), stopSweeps: make(chan struct{})}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.sweepCtx, n.sweepCancel = context.WithCancel(n.ctx)
	for _, ep := range cfg.Endpoints {
		s := &sender{ep: ep, queue: make(chan *job, opts.QueueSize), inflight: map[string]bool{}}
		n.senders = append(n.senders, s)
		n.byTenant[ep.Tenant] = append(n.byTenant[ep.Tenant], s)
		m.queued.WithLabelValues(ep.Tenant, ep.Name).Set(0)
		for range opts.Concurrency {
			n.workers.Add(1)
			go n.work(s)
		}
	}
	e.OnRecorded(n.recorded)
	n.sweeper.Add(1)
	go n.sweepLoop()
	return n, nil
}

// recorded queues the events of a decision the engine recorded. It runs on the
// decision's path: it never waits.
func (n *Notifier) recorded(d *engine.Decision) {
	for _, s := range n.byTenant[d.TenantID] {
		typ := EventType(d, s.ep.EscalationStatuses)
		if typ != "" && s.ep.wants(typ) {
			n.enqueue(s, newEvent(s.ep, typ, d))
		}
	}
}

// enqueue queues an event for its endpoint unless it is queued or in flight already;
// a full queue drops it (counted, logged) and asks for a sweep. It reports whether the
// event is on its way.
func (n *Notifier) enqueue(s *sender, ev Event) bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		return false
	}
	s.mu.Lock()
	if s.inflight[ev.ID] {
		s.mu.Unlock()
		return true
	}
	s.inflight[ev.ID] = true
	s.mu.Unlock()
	select {
	case s.queue <- &job{ev: ev, body: ev.body(), queued: time.Now()}:
		n.m.queued.WithLabelValues(s.ep.Tenant, s.ep.Name).Inc()
		return true
	default:
	}
	n.m.dropped.WithLabelValues(s.ep.Tenant, s.ep.Name).Inc()
	s.mu.Lock()
	delete(s.inflight, ev.ID)
	s.unlogged++
	logNow := time.Since(s.lastLog) >= time.Second
	dropped := s.unlogged
	if logNow {
		s.lastLog, s.unlogged = time.Now(), 0
	}
	s.mu.Unlock()
	if logNow {
		n.opts.Logger.Warn("webhook queue full: events dropped; a sweep will send the gates among them again",
			"tenant_id", s.ep.Tenant, "endpoint", s.ep.Name, "dropped", dropped, "event_id", ev.ID, "decision_id", ev.DecisionID)
	}
	n.askSweep()
	return false
}

// work delivers the events of one endpoint's queue until it is closed.
func (n *Notifier) work(s *sender) {
	defer n.workers.Done()
	for j := range s.queue {
		n.m.queued.WithLabelValues(s.ep.Tenant, s.ep.Name).Dec()
		n.deliver(s, j)
		s.mu.Lock()
		delete(s.inflight, j.ev.ID)
		s.mu.Unlock()
	}
}

// Close stops taking events and waits for the queued ones to be delivered, until ctx
// ends: then the attempts in flight are cut and the events left are abandoned (counted;
// a gate among them is sent again by the next start's sweep). The engine stays the
// caller's, and so do the Deliveries.
func (n *Notifier) Close(ctx context.Context) error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	for _, s := range n.senders {
		close(s.queue)
	}
	n.mu.Unlock()
	close(n.stopSweeps)
	n.sweepCancel()
	done := make(chan struct{})
	go func() {
		n.workers.Wait()
		n.sweeper.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("webhook: the events still queued or in flight were abandoned at the deadline: %w", ctx.Err())
		n.cancel()
		<-done
	}
	n.cancel()
	return err
}
