package service

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
)

// metrics are the service's Prometheus collectors. Labels never carry a tenant, an id
// or any request content.
type metrics struct {
	decisions   *prometheus.CounterVec   // pack, kind, outcome, mode
	latency     *prometheus.HistogramVec // mode
	resends     *prometheus.CounterVec   // mode
	injections  *prometheus.CounterVec   // pack, outcome, mode
	policyFails *prometheus.CounterVec   // code: POLICY_ERROR, POLICY_TIMEOUT
	noDecision  prometheus.Counter
	authRefused *prometheus.CounterVec // why: missing, unknown
	calls       *prometheus.CounterVec // route, status
	callTime    *prometheus.HistogramVec
	stages      *prometheus.HistogramVec // stage
	batches     prometheus.Histogram
	handler     http.Handler
	registerer  prometheus.Registerer // where collectors of other parts of the handler go
}

func newMetrics(opts *Options, e *engine.Engine) *metrics {
	reg, gather := opts.Registerer, opts.Gatherer
	if reg == nil {
		r := prometheus.NewRegistry()
		r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		reg, gather = r, r
	}
	f := func(c prometheus.Collector) prometheus.Collector { reg.MustRegister(c); return c }
	m := &metrics{
		decisions: f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_decisions_total",
			Help: "Decisions made, by pack, request kind, outcome and mode (submit records, evaluate does not)."},
			[]string{"pack", "kind", "outcome", "mode"})).(*prometheus.CounterVec),
		latency: f(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "handoff_decision_seconds",
			Help: "Time to decide a request (and record it, for submit).", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)},
			[]string{"mode"})).(*prometheus.HistogramVec),
		resends: f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_resends_total",
			Help: "Requests decided before and answered with the recorded decision (the same request_id and request again), by mode; not in handoff_decisions_total nor handoff_decision_seconds."},
			[]string{"mode"})).(*prometheus.CounterVec),
		injections: f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_injection_suspected_total",
			Help: "Decisions carrying INJECTION_SUSPECTED (a string of the request matches an injection pattern), by pack, the reason's outcome (allow: flagged to the next agent and the person at the gate; block: refused, in a pack whose seed demands it) and mode."},
			[]string{"pack", "outcome", "mode"})).(*prometheus.CounterVec),
		policyFails: f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_policy_failures_total",
			Help: "Decisions the policy could not make, blocked closed: POLICY_ERROR or POLICY_TIMEOUT."},
			[]string{"code"})).(*prometheus.CounterVec),
		noDecision: f(prometheus.NewCounter(prometheus.CounterOpts{Name: "handoff_no_decision_total",
			Help: "Requests answered 503: no decision could be made (the store failed)."})).(prometheus.Counter),
		authRefused: f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_auth_refused_total",
			Help: "Calls refused 401, by why: missing, unknown or expired token; and console refusals no tenant can record (console_unknown_token, console_forged_form)."}, []string{"why"})).(*prometheus.CounterVec),
		calls: f(prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_http_requests_total",
			Help: "HTTP calls by route and status."}, []string{"route", "status"})).(*prometheus.CounterVec),
		callTime: f(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "handoff_http_request_seconds",
			Help: "HTTP call duration by route.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)},
			[]string{"route"})).(*prometheus.HistogramVec),
		stages: f(prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "handoff_stage_seconds",
			Help: "Time of each stage of a decision: decode, validate, policy, commit.", Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)},
			[]string{"stage"})).(*prometheus.HistogramVec),
		batches: f(prometheus.NewHistogram(prometheus.HistogramOpts{Name: "handoff_group_commit_appends",
			Help: "Appends per durable store transaction (the group commit).", Buckets: prometheus.ExponentialBuckets(1, 2, 10)})).(prometheus.Histogram),
	}
	f(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "handoff_store_bytes",
		Help: "The store's size on disk (tables and value log), as last measured."},
		func() float64 { return float64(e.StoreSize()) }))
	registerStoreMetrics(reg, e)
	m.registerer = reg
	if gather != nil {
		m.handler = promhttp.HandlerFor(gather, promhttp.HandlerOpts{})
	}
	return m
}

// knownKinds are the request kinds a label may name.
var knownKinds = map[string]bool{"start": true, "handoff": true, "review": true, "approval": true,
	"failure": true, "resolution": true, "outcome": true, "cancel": true}

func (m *metrics) observeDecision(d *engine.Decision, record bool, took time.Duration) {
	mode := "evaluate"
	if record {
		mode = "submit"
	}
	if d.Resent() { // no new decision: the recorded one again
		m.resends.WithLabelValues(mode).Inc()
		return
	}
	pack := d.Pack
	if pack == "" {
		pack = "none"
	}
	kind := d.Kind
	if !knownKinds[kind] { // the request's own text: never a label
		kind = "other"
	}
	m.decisions.WithLabelValues(pack, kind, string(d.Outcome), mode).Inc()
	m.latency.WithLabelValues(mode).Observe(took.Seconds())
	for _, c := range d.Codes() {
		if c == "POLICY_ERROR" || c == "POLICY_TIMEOUT" {
			m.policyFails.WithLabelValues(c).Inc()
		}
	}
	for _, r := range d.Reasons {
		if r.Code == "INJECTION_SUSPECTED" {
			outcome := string(r.Outcome)
			if outcome != string(engine.Allow) {
				outcome = string(engine.Block)
			}
			m.injections.WithLabelValues(pack, outcome, mode).Inc()
			break
		}
	}
}

// Stage implements engine.Observer.
func (m *metrics) Stage(stage string, took time.Duration) {
	m.stages.WithLabelValues(stage).Observe(took.Seconds())
}

// GroupCommit implements engine.Observer.
func (m *metrics) GroupCommit(appends int) { m.batches.Observe(float64(appends)) }

func (m *metrics) observeCall(route string, status int, took time.Duration) {
	m.calls.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.callTime.WithLabelValues(route).Observe(took.Seconds())
}

func (h *Handler) serveMetrics(w http.ResponseWriter, r *http.Request, _ *Principal) {
	if h.metrics.handler == nil {
		writeError(w, handoff.Error{Status: http.StatusNotFound, Code: handoff.CodeNotFound, Message: "metrics are served by the host's own registry"})
		return
	}
	h.metrics.handler.ServeHTTP(w, r)
}
