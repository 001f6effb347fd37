package service

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/bundle"
)

// BundleSource is where a server reloads its bundle from.
type BundleSource struct {
	// Name says where the bundle comes from (a directory, an archive), as GET
	// /v1/admin/bundle shows it.
	Name string
	// Load reads the bundle at the source, checks its signature when one is required
	// and compiles it. An error wrapping bundle.ErrUnsigned or bundle.ErrBadSignature is
	// a signature refused; any other, a bundle that does not load or compile.
	Load func(ctx context.Context) (*engine.Decider, error)
}

// The results of a reload, as the API and handoff_bundle_reloads_total name them.
const (
	ReloadOK           = "ok"
	ReloadInvalid      = "invalid"
	ReloadUnsigned     = "unsigned"
	ReloadBadSignature = "bad_signature"
)

// BundleReload is one attempt to reload the bundle: the answer of POST
// /v1/admin/bundle/reload and the last_reload of GET /v1/admin/bundle.
type BundleReload struct {
	At     time.Time `json:"at"`
	Via    string    `json:"via"` // api or signal
	Result string    `json:"result"`
	// Error says why the bundle was refused; empty when it loaded.
	Error string `json:"error,omitempty"`
	// Digest is the bundle live after the attempt: the new one, or the old one that
	// kept serving. Previous is the one live before it.
	Digest   string `json:"digest"`
	Previous string `json:"previous_digest"`
}

// bundleStatus is the answer of GET /v1/admin/bundle.
type bundleStatus struct {
	Digest string `json:"digest"`
	Source string `json:"source"`
	// LoadedAt is when the live bundle was loaded from the source; absent when another
	// part of the server put it in place (it was not the source's last load).
	LoadedAt   *time.Time    `json:"loaded_at,omitempty"`
	LastReload *BundleReload `json:"last_reload,omitempty"`
}

// reloads serializes the reloads of one handler and remembers the last.
type reloads struct {
	src     *BundleSource
	run     sync.Mutex // one reload at a time
	mu      sync.Mutex // guards what follows
	loaded  string     // the digest the source last loaded, and when
	at      time.Time
	last    *BundleReload
	results *prometheus.CounterVec
	success prometheus.Gauge
}

func newReloads(src *BundleSource, e *engine.Engine, reg prometheus.Registerer) *reloads {
	r := &reloads{src: src, loaded: e.Decider().BundleDigest(), at: time.Now(),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "handoff_bundle_reloads_total",
			Help: "Bundle reloads (SIGHUP or POST /v1/admin/bundle/reload) by result: ok, invalid (does not load or compile), unsigned, bad_signature."}, []string{"result"}),
		success: prometheus.NewGauge(prometheus.GaugeOpts{Name: "handoff_bundle_last_reload_success_timestamp_seconds",
			Help: "When the bundle was last loaded from its source (at start, or by the last reload that succeeded)."}),
	}
	for _, res := range []string{ReloadOK, ReloadInvalid, ReloadUnsigned, ReloadBadSignature} {
		r.results.WithLabelValues(res)
	}
	r.success.Set(float64(r.at.UnixNano()) / 1e9)
	reg.MustRegister(r.results, r.success, liveBundleInfo{e})
	return r
}

// liveBundleInfo exports the digest of the bundle live at the time of the scrape, whoever
// put it in place.
type liveBundleInfo struct{ e *engine.Engine }

var bundleInfoDesc = prometheus.NewDesc("handoff_bundle_info", "The bundle deciding now: 1, labelled with its digest.", []string{"digest"}, nil)

func (liveBundleInfo) Describe(ch chan<- *prometheus.Desc) { ch <- bundleInfoDesc }

func (b liveBundleInfo) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(bundleInfoDesc, prometheus.GaugeValue, 1, b.e.Decider().BundleDigest())
}

// ReloadBundle loads the bundle from the handler's source beside the live one and, when
// it loads, verifies and compiles, makes it the bundle of every decision that starts
// from now on; otherwise the live one keeps deciding. via says what asked (api or
// signal). One reload runs at a time; each is logged in one line.
func (h *Handler) ReloadBundle(ctx context.Context, via string) BundleReload {
	r := h.reloads
	r.run.Lock()
	defer r.run.Unlock()
	rep := BundleReload{At: time.Now().UTC(), Via: via, Previous: h.e.Decider().BundleDigest()}
	var dc *engine.Decider
	err := errors.New("the server has no bundle source to reload from")
	if r.src != nil {
		dc, err = r.src.Load(ctx)
	}
	switch {
	case err == nil:
		h.e.SwapDecider(dc)
		rep.Result = ReloadOK
	case errors.Is(err, bundle.ErrUnsigned):
		rep.Result = ReloadUnsigned
	case errors.Is(err, bundle.ErrBadSignature):
		rep.Result = ReloadBadSignature
	default:
		rep.Result = ReloadInvalid
	}
	rep.Digest = h.e.Decider().BundleDigest()
	attrs := []slog.Attr{slog.String("via", via), slog.String("result", rep.Result), slog.String("digest", rep.Digest), slog.String("previous_digest", rep.Previous)}
	if err != nil {
		rep.Error = err.Error()
		h.opts.Logger.LogAttrs(ctx, slog.LevelError, "bundle reload refused: the previous bundle keeps deciding", append(attrs, slog.String("error", rep.Error))...)
	} else {
		h.opts.Logger.LogAttrs(ctx, slog.LevelInfo, "bundle reloaded", attrs...)
	}
	r.results.WithLabelValues(rep.Result).Inc()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = &rep
	if err == nil {
		r.loaded, r.at = dc.BundleDigest(), rep.At
		r.success.Set(float64(rep.At.UnixNano()) / 1e9)
	}
	return rep
}

// ReloadPrincipals makes the principals of next those the handler authenticates every
// call from now on with.
func (h *Handler) ReloadPrincipals(next *Principals) {
	if h.opts.Principals == nil {
		return // InsecureDev: no principals to replace
	}
	h.opts.Principals.Replace(next)
	h.opts.Logger.LogAttrs(context.Background(), slog.LevelInfo, "principals reloaded", slog.Int("principals", next.Len()))
}

// bundleState answers GET /v1/admin/bundle.
func (h *Handler) bundleState(w http.ResponseWriter, _ *http.Request, p *Principal) {
	if !admin(w, p) {
		return
	}
	r := h.reloads
	st := bundleStatus{Digest: h.e.Decider().BundleDigest()}
	if r.src != nil {
		st.Source = r.src.Name
	}
	r.mu.Lock()
	if r.loaded == st.Digest {
		at := r.at.UTC()
		st.LoadedAt = &at
	}
	st.LastReload = r.last
	r.mu.Unlock()
	writeJSON(w, http.StatusOK, st)
}

// reloadBundle answers POST /v1/admin/bundle/reload: 200 with the new bundle, 422 with
// why it was refused while the old one keeps deciding.
func (h *Handler) reloadBundle(w http.ResponseWriter, r *http.Request, p *Principal) {
	if !admin(w, p) {
		return
	}
	// A caller that hangs up does not cancel a compile half done into "invalid".
	rep := h.ReloadBundle(context.WithoutCancel(r.Context()), "api")
	status := http.StatusOK
	if rep.Result != ReloadOK {
		status = http.StatusUnprocessableEntity
	}
	writeJSON(w, status, rep)
}

// admin answers 403 unless p is an admin.
func admin(w http.ResponseWriter, p *Principal) bool {
	if !p.Admin {
		writeError(w, handoff.Error{Status: http.StatusForbidden, Code: handoff.CodeForbidden, Message: "the bundle is an admin principal's to see and reload",
			Hint: "use a token whose principal has \"admin\": true"})
	}
	return p.Admin
}
