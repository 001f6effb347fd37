package service

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/handoff-dev/handoff/engine"
)

// storePoolCollector exports the connection pool of a PostgreSQL store, read at each
// scrape. A store without a pool (Badger) exports nothing.
type storePoolCollector struct {
	e                                         *engine.Engine
	acquired, idle, total, max                *prometheus.Desc
	acquires, acquireSeconds, empty, canceled *prometheus.Desc
}

// registerStoreMetrics registers the store's pool metrics with reg.
func registerStoreMetrics(reg prometheus.Registerer, e *engine.Engine) {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	reg.MustRegister(&storePoolCollector{
		e:              e,
		acquired:       d("handoff_store_pool_acquired_conns", "Connections of the store's pool in use."),
		idle:           d("handoff_store_pool_idle_conns", "Connections of the store's pool open and free."),
		total:          d("handoff_store_pool_total_conns", "Connections of the store's pool open or being opened."),
		max:            d("handoff_store_pool_max_conns", "The bound of the store's pool (--pg-max-conns, pool_max_conns)."),
		acquires:       d("handoff_store_pool_acquires_total", "Connections taken from the store's pool."),
		acquireSeconds: d("handoff_store_pool_acquire_seconds_total", "Time spent waiting to take a connection from the store's pool."),
		empty:          d("handoff_store_pool_empty_acquires_total", "Takes that found no free connection and waited for one."),
		canceled:       d("handoff_store_pool_canceled_acquires_total", "Takes given up because their call ended first."),
	})
}

func (c *storePoolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.acquired, c.idle, c.total, c.max, c.acquires, c.acquireSeconds, c.empty, c.canceled} {
		ch <- d
	}
}

func (c *storePoolCollector) Collect(ch chan<- prometheus.Metric) {
	s, ok := c.e.StorePool()
	if !ok {
		return
	}
	gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge(c.acquired, float64(s.AcquiredConns))
	gauge(c.idle, float64(s.IdleConns))
	gauge(c.total, float64(s.TotalConns))
	gauge(c.max, float64(s.MaxConns))
	counter(c.acquires, float64(s.AcquireCount))
	counter(c.acquireSeconds, s.AcquireDuration.Seconds())
	counter(c.empty, float64(s.EmptyAcquireCount))
	counter(c.canceled, float64(s.CanceledAcquireCount))
}
