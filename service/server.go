package service

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service/console"
)

// Options configure a Handler. The zero value serves nobody: set Principals, or
// InsecureDev for a demo.
type Options struct {
	// Principals authenticate every /v1 call. Nil refuses them all, unless InsecureDev.
	Principals *Principals
	// InsecureDev serves /v1 without authentication, every caller an admin and every
	// request submitted unchecked: for a demo on loopback only. Default false.
	InsecureDev bool
	// Logger receives one access log line per call (method, path, status, principal,
	// duration; never a body). Nil is silent.
	Logger *slog.Logger
	// Registerer receives the service's metrics. Default: a registry of its own, served
	// at /metrics with the Go and process collectors.
	Registerer prometheus.Registerer
	// Gatherer is served at /metrics when Registerer is set. Default: the registry of
	// its own.
	Gatherer prometheus.Gatherer
	// Shadow, when set, is served to admins at /v1/admin/shadow and to a tenant's admins
	// on the console. Its metrics are the host's to register (ShadowCollector).
	Shadow *engine.Shadow
	// Bundle is where POST /v1/admin/bundle/reload and ReloadBundle load the bundle
	// from. Nil: the bundle is not reloaded.
	Bundle *BundleSource
}

// Handler serves one engine. A request body is bounded by the engine's own limit
// (engine.Limits.MaxBytes): a larger one is answered 413 and never decided.
type Handler struct {
	e       *engine.Engine
	opts    Options
	limit   int64 // the largest request body, in bytes: the engine's
	mux     *http.ServeMux
	metrics *metrics
	ready   func(context.Context) error
	docs    sync.Map // "bundle digest/pack" -> a pack's OpenAPI document, built once
	reloads *reloads
}

// New returns the handler of an engine. The engine stays the caller's to close, after
// the server that uses the handler has shut down. It becomes the engine's Observer: the
// stages of every decision and the store's group commits are in its metrics.
func New(e *engine.Engine, opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{e: e, opts: opts, limit: int64(e.Decider().Limits().MaxBytes), mux: http.NewServeMux()}
	h.metrics = newMetrics(&h.opts, e)
	e.SetObserver(h.metrics)
	h.reloads = newReloads(opts.Bundle, e, h.metrics.registerer)
	h.routes()
	return h
}

// person signs a person in to the console: a principal whose actor is a human. A token
// of another principal is refused with that principal named, so that the refusal goes to
// its tenant's audit stream; an unknown one names nobody.
func (h *Handler) person(token string) (console.Person, bool) {
	if h.opts.Principals == nil || token == "" {
		return console.Person{}, false
	}
	p, expired := h.opts.Principals.lookup(token, time.Now())
	if p == nil && expired != nil {
		p = h.opts.Principals.holder(token)
	}
	if p == nil {
		return console.Person{}, false
	}
	cp := console.Person{Name: p.Name, Tenant: p.Tenant, ID: p.ID, Roles: p.Roles, Admin: p.Admin}
	switch {
	case expired != nil:
		cp.Refused = "the token expired at " + expired.UTC().Format(time.RFC3339)
	case p.Type != "human":
		cp.Refused = "the token is not a person's (" + p.Type + "): only people sign in to the console"
	default:
		return cp, true
	}
	return cp, false
}

// stillPerson says whether the principals (read again since, perhaps) still hold the
// person a console session was opened for, as it was.
func (h *Handler) stillPerson(p console.Person) bool {
	return h.opts.Principals != nil && h.opts.Principals.holds(p.Name, p.Tenant, p.ID, p.Roles, p.Admin, time.Now())
}

// route is one endpoint of the API, as the OpenAPI document lists it.
type route struct {
	method, path string
	public       bool // served without a token
	handle       func(http.ResponseWriter, *http.Request, *Principal)
}

func (h *Handler) endpoints() []route {
	return []route{
		{"GET", "/health", true, h.health},
		{"GET", "/health/ready", true, h.healthReady},
		{"GET", "/metrics", true, h.serveMetrics},
		{"GET", "/v1/openapi.json", true, h.openapi},
		{"POST", "/v1/requests", false, h.submit},
		{"POST", "/v1/evaluate", false, h.evaluate},
		{"GET", "/v1/whoami", false, h.whoami},
		{"GET", "/v1/tenants/{tenant}/workflows", false, h.workflows},
		{"GET", "/v1/tenants/{tenant}/workflows/{workflow}", false, ofTenant(h.state)},
		{"GET", "/v1/tenants/{tenant}/workflows/{workflow}/log", false, ofTenant(h.history)},
		{"GET", "/v1/tenants/{tenant}/workflows/{workflow}/next", false, ofTenant(h.next)},
		{"GET", "/v1/workflows/{workflow}/next", false, h.ownNext},
		{"GET", "/v1/tenants/{tenant}/audit", false, ofTenant(h.audit)},
		{"GET", "/v1/tenants/{tenant}/verify", false, ofTenant(h.verify)},
		{"GET", "/v1/tenants/{tenant}/decisions", false, ofTenant(h.decisionLog)},
		{"GET", "/v1/decisions/{id}", false, h.decision},
		{"GET", "/v1/decisions/{id}/explain", false, h.explain},
		{"GET", "/v1/backup", false, h.backup},
		{"GET", "/v1/packs", false, h.packs},
		{"GET", "/v1/packs/{pack}/contract", false, h.contract},
		{"GET", "/v1/packs/{pack}/schemas", false, h.schemas},
		{"GET", "/v1/packs/{pack}/schemas/{kind}", false, h.kindSchema},
		{"GET", "/v1/packs/{pack}/openapi.json", false, h.packOpenAPI},
		{"GET", "/v1/packs/{pack}/templates/{kind}", false, h.template},
		{"GET", "/v1/reasons", false, h.reasons},
		{"GET", "/v1/admin/shadow", false, h.shadowStatus},
		{"GET", "/v1/admin/shadow/disagreements", false, h.shadowDisagreements},
		{"POST", "/v1/admin/shadow/promote", false, h.shadowPromote},
		{"GET", "/v1/admin/bundle", false, h.bundleState},
		{"POST", "/v1/admin/bundle/reload", false, h.reloadBundle},
	}
}

// Routes lists the endpoints served, as "METHOD /path" with the OpenAPI document's path
// templates.
func Routes() []string {
	var out []string
	for _, rt := range (&Handler{}).endpoints() {
		out = append(out, rt.method+" "+rt.path)
	}
	return out
}

func (h *Handler) routes() {
	for _, rt := range h.endpoints() {
		h.mux.Handle(rt.method+" "+rt.path, h.wrap(rt))
	}
	con := console.New(h.e, console.Options{Authenticate: h.person, Current: h.stillPerson, Logger: h.opts.Logger,
		Unattributed: func(why string) { h.metrics.authRefused.WithLabelValues(why).Inc() }})
	con.ShowShadow(h.opts.Shadow)
	h.mux.Handle("/console/", con)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, handoff.Error{Status: http.StatusNotFound, Code: handoff.CodeNotFound, Message: "no such endpoint", Hint: "the endpoints are listed at /v1/openapi.json"})
	})
}

// ServeHTTP serves the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// wrap authenticates a call, drains what its answer left unread of its body, and logs
// it.
func (h *Handler) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		var p *Principal
		defer func() {
			name := ""
			if p != nil {
				name = p.Name
			}
			h.metrics.observeCall(rt.path, sw.status, time.Since(start))
			h.opts.Logger.LogAttrs(r.Context(), slog.LevelInfo, "http",
				slog.String("method", r.Method), slog.String("route", rt.path), slog.Int("status", sw.status),
				slog.String("principal", name), slog.Duration("duration", time.Since(start)))
		}()
		if rt.method == http.MethodPost {
			defer takeBody(sw, r).drain(sw, r)
		} else if r.ContentLength != 0 {
			// A body no handler reads: close after the answer rather than wait for it.
			sw.Header().Set("Connection", "close")
		}
		if !rt.public {
			var ok bool
			if p, ok = h.authenticate(sw, r); !ok {
				return
			}
		}
		rt.handle(sw, r, p)
	})
}

// devPrincipal is every caller of an InsecureDev handler.
var devPrincipal = &Principal{Name: "insecure-dev", Admin: true}

// authenticate finds the principal of the call's bearer token, or answers 401.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*Principal, bool) {
	if h.opts.InsecureDev {
		return devPrincipal, true
	}
	token, found := bearer(r.Header.Get("Authorization"))
	if !found {
		h.metrics.authRefused.WithLabelValues("missing").Inc()
		writeError(w, handoff.Error{Status: http.StatusUnauthorized, Code: handoff.CodeUnauthenticated, Message: "no bearer token", Hint: "send Authorization: Bearer TOKEN with a token of the server's principals file"})
		return nil, false
	}
	p, expired := h.opts.Principals.lookup(token, time.Now())
	if expired != nil {
		h.metrics.authRefused.WithLabelValues("expired").Inc()
		writeError(w, handoff.Error{Status: http.StatusUnauthorized, Code: handoff.CodeUnauthenticated, Message: "the token has expired",
			Hint: "the token expired at " + expired.UTC().Format(time.RFC3339) + " (expires_at in the server's principals file): ask for a new one"})
		return nil, false
	}
	if p == nil {
		h.metrics.authRefused.WithLabelValues("unknown").Inc()
		writeError(w, handoff.Error{Status: http.StatusUnauthorized, Code: handoff.CodeUnauthenticated, Message: "the token is not a principal's", Hint: "check the token; the server's principals file holds its SHA-256 (handoffctl token hash)"})
		return nil, false
	}
	return p, true
}

// bearer is the token of an Authorization header: the scheme is case-insensitive
// (RFC 7235) and may be followed by more than one space.
func bearer(auth string) (string, bool) {
	scheme, token, _ := strings.Cut(auth, " ")
	token = strings.Trim(token, " ")
	return token, strings.EqualFold(scheme, "Bearer") && token != ""
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ofTenant serves a route under /v1/tenants/{tenant} with the call's tenant when the
// principal may read it, and answers 403 otherwise: no such route can skip the check.
func ofTenant(fn func(w http.ResponseWriter, r *http.Request, tenant string)) func(http.ResponseWriter, *http.Request, *Principal) {
	return func(w http.ResponseWriter, r *http.Request, p *Principal) {
		t := r.PathValue("tenant")
		if !p.may(t) {
			writeError(w, handoff.Error{Status: http.StatusForbidden, Code: handoff.CodeForbidden, Message: "the token may not read tenant " + t, Hint: "a token reads its own tenant only, unless its principal is an admin"})
			return
		}
		fn(w, r, t)
	}
}
