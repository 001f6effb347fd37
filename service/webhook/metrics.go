package webhook

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Results of a delivery, as handoff_webhook_deliveries_total counts them.
const (
	resultDelivered = "delivered" // the receiver answered 2xx
	resultRejected  = "rejected"  // it answered a 4xx other than 429: not sent again
	resultExhausted = "exhausted" // every attempt failed, or the event grew too old
	resultAbandoned = "abandoned" // Close's deadline came first
)

// metrics are the notifier's collectors. Their tenant and endpoint labels come from the
// webhooks file, never from a request.
type metrics struct {
	deliveries *prometheus.CounterVec   // tenant, endpoint, result
	attempts   *prometheus.CounterVec   // tenant, endpoint, answer
	retries    *prometheus.CounterVec   // tenant, endpoint
	dropped    *prometheus.CounterVec   // tenant, endpoint
	swept      *prometheus.CounterVec   // tenant, endpoint
	queued     *prometheus.GaugeVec     // tenant, endpoint
	latency    *prometheus.HistogramVec // tenant, endpoint
	sweeps     *prometheus.CounterVec   // result
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	te := []string{"tenant", "endpoint"}
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_webhook_deliveries_total",
			Help: "Webhook events that reached an end, by tenant, endpoint and result: delivered (2xx), rejected (a 4xx other than 429, not retried), exhausted (attempts or age spent), abandoned (shutdown's deadline)."},
			[]string{"tenant", "endpoint", "result"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_webhook_attempts_total",
			Help: "Webhook POSTs, by tenant, endpoint and answer: 2xx, 4xx, 429, 5xx, timeout or error (the connection failed)."},
			[]string{"tenant", "endpoint", "answer"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_webhook_retries_total",
			Help: "Webhook attempts after the first of their event."}, te),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_webhook_dropped_total",
			Help: "Webhook events dropped because the endpoint's queue was full; a sweep sends the gates among them again."}, te),
		swept: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_webhook_swept_total",
			Help: "Webhook events queued by a sweep: gates that wait for a person whose delivery is not recorded."}, te),
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "handoff_webhook_queue_depth",
			Help: "Webhook events queued for an endpoint and not yet taken by a sender."}, te),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "handoff_webhook_attempt_seconds",
			Help: "Duration of one webhook POST, until the answer's status or the failure.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 13)}, te),
		sweeps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_webhook_sweeps_total",
			Help: "Sweeps of the workflows waiting for a person, by result: ok or error."}, []string{"result"}),
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.deliveries, m.attempts, m.retries, m.dropped, m.swept, m.queued, m.latency, m.sweeps} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
