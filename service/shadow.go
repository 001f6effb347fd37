package service

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
)

// shadowOf answers the shadow of the server to an admin: 403 for another principal, 404
// when the server runs none.
func (h *Handler) shadowOf(w http.ResponseWriter, p *Principal) (*engine.Shadow, bool) {
	if !p.Admin {
		writeError(w, handoff.Error{Status: http.StatusForbidden, Code: handoff.CodeForbidden, Message: "the shadow bundle is an admin principal's only",
			Hint: "use a token whose principal has \"admin\": true"})
		return nil, false
	}
	if h.opts.Shadow == nil {
		writeError(w, handoff.Error{Status: http.StatusNotFound, Code: handoff.CodeNotFound, Message: "this server runs no shadow bundle",
			Hint: "start serve with --shadow-bundle DIR"})
		return nil, false
	}
	return h.opts.Shadow, true
}

// shadowStatus answers the shadow's bundles and counters.
func (h *Handler) shadowStatus(w http.ResponseWriter, _ *http.Request, p *Principal) {
	if s, ok := h.shadowOf(w, p); ok {
		writeJSON(w, http.StatusOK, s.Stats())
	}
}

// shadowDisagreements streams the shadow log, one disagreement per line, of the tenant
// and pack of ?tenant= and ?pack= when given.
func (h *Handler) shadowDisagreements(w http.ResponseWriter, r *http.Request, p *Principal) {
	s, ok := h.shadowOf(w, p)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	enc := json.NewEncoder(w)
	q := r.URL.Query()
	err := s.Disagreements(q.Get("tenant"), q.Get("pack"), func(d engine.ShadowDisagreement) error { return enc.Encode(d) })
	if err != nil {
		// The status is sent: the stream ends short.
		h.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "shadow log cut short", slog.String("error", err.Error()))
	}
}

// promoted is the answer of a promotion.
type promoted struct {
	LiveDigest     string `json:"live_digest"`
	PreviousDigest string `json:"previous_digest"`
}

// shadowPromote makes the candidate the live bundle and stops the shadow. Promoting a
// shadow promoted before answers the live bundle again.
func (h *Handler) shadowPromote(w http.ResponseWriter, r *http.Request, p *Principal) {
	s, ok := h.shadowOf(w, p)
	if !ok {
		return
	}
	if !s.Stats().Running {
		writeJSON(w, http.StatusOK, promoted{LiveDigest: h.e.Decider().BundleDigest()})
		return
	}
	old := s.Promote()
	live := h.e.Decider().BundleDigest()
	h.opts.Logger.LogAttrs(r.Context(), slog.LevelInfo, "shadow bundle promoted", slog.String("principal", p.Name),
		slog.String("live_digest", live), slog.String("previous_digest", old.BundleDigest()))
	writeJSON(w, http.StatusOK, promoted{LiveDigest: live, PreviousDigest: old.BundleDigest()})
}

// ShadowCollector exports a shadow's counters: handoff_shadow_decisions_total{result},
// handoff_shadow_disagreements_total{pack,kind,code},
// handoff_shadow_queue_dropped_total and handoff_shadow_queue_depth. Labels never carry
// a tenant, an id or any request content: a kind or pack the live bundle does not know
// is "other".
func ShadowCollector(e *engine.Engine, s *engine.Shadow) prometheus.Collector {
	return &shadowCollector{e: e, s: s}
}

type shadowCollector struct {
	e *engine.Engine
	s *engine.Shadow
}

var (
	shadowDecisions = prometheus.NewDesc("handoff_shadow_decisions_total",
		"Recorded decisions the shadow bundle handled, by result: agreed and disagreed (decided again), unchanged (a pack the candidate does not change), skipped (no bundle can decide it again: redacted, or blocked by the engine), error.",
		[]string{"result"}, nil)
	shadowDisagreementsDesc = prometheus.NewDesc("handoff_shadow_disagreements_total",
		"Decisions the shadow bundle would change, by pack, kind and code: each reason code one decision gives and the other not, outcome:FROM->TO for a flip, next for another routing, field:NAME for another difference.",
		[]string{"pack", "kind", "code"}, nil)
	shadowDropped = prometheus.NewDesc("handoff_shadow_queue_dropped_total",
		"Recorded decisions the shadow's full queue turned away: never decided by the candidate.", nil, nil)
	shadowDepth = prometheus.NewDesc("handoff_shadow_queue_depth",
		"Recorded decisions waiting for the shadow bundle.", nil, nil)
)

func (c *shadowCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- shadowDecisions
	ch <- shadowDisagreementsDesc
	ch <- shadowDropped
	ch <- shadowDepth
}

func (c *shadowCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	for result, n := range map[string]uint64{"agreed": st.Agreed, "disagreed": st.Disagreed, "unchanged": st.Unchanged, "skipped": st.Skipped, "error": st.Errors} {
		ch <- prometheus.MustNewConstMetric(shadowDecisions, prometheus.CounterValue, float64(n), result)
	}
	ch <- prometheus.MustNewConstMetric(shadowDropped, prometheus.CounterValue, float64(st.Dropped))
	ch <- prometheus.MustNewConstMetric(shadowDepth, prometheus.GaugeValue, float64(st.QueueDepth))
	packs := map[string]bool{}
	for _, p := range c.e.Decider().Packs() {
		packs[p.Name] = true
	}
	merged := map[engine.DisagreementKey]uint64{}
	for k, n := range c.s.DisagreementCounts() {
		if !packs[k.Pack] {
			k.Pack = "other"
		}
		if !knownKinds[k.Kind] {
			k.Kind = "other"
		}
		merged[k] += n
	}
	for k, n := range merged {
		ch <- prometheus.MustNewConstMetric(shadowDisagreementsDesc, prometheus.CounterValue, float64(n), k.Pack, k.Kind, k.Code)
	}
}
