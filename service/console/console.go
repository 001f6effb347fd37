// Package console is the review console: server-rendered pages where the people at a
// workflow's gates see what waits for them and act on it. It signs people in with the
// same tokens as the API, shows only their tenant and the gates their roles may act on,
// and turns each form into a request the engine decides as the signed-in person, with
// the artifacts' exact versions and hashes and an idempotency key made per form.
//
// Pages are html/template (every value escaped for its context), embedded with the
// stylesheet; they need no JavaScript and no network beyond the server. Where scripts
// run, the console's own static/live.js keeps the inbox and its count current.
package console

import (
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// Person is who signs in: a principal of the API whose actor is a human.
type Person struct {
	Name   string   // the principal's name
	Tenant string   // the only tenant the person sees
	ID     string   // the actor id requests carry
	Roles  []string // the roles the person acts in
	Admin  bool     // reads the tenant's audit stream (/console/audit)
	// Refused, with Authenticate's ok false, says why a principal the token names may
	// not sign in; the refusal then goes to the audit stream of Tenant.
	Refused string
}

// Options configure a Console.
type Options struct {
	// Authenticate maps a token to the person it belongs to; ok is false for an
	// unknown or expired token, and for a token whose actor is not a human: then p holds
	// the token's principal (Name, Tenant, ID, Refused) when there is one.
	Authenticate func(token string) (p Person, ok bool)
	// Current says whether the principals still hold the person a session was opened
	// for, with the same tenant, id, roles and admin right, and accept its token now:
	// false ends the session at its next page (the person signs in again), so that a
	// principal removed or changed by a reload of the principals loses its console too.
	// Nil: a session lasts its SessionTTL.
	Current func(p Person) bool
	// Unattributed counts a refusal no tenant's audit stream can hold (why: an unknown
	// token, a forged form without a session). Nil counts nothing.
	Unattributed func(why string)
	// SessionTTL is how long a sign-in lasts. Default 8 hours.
	SessionTTL time.Duration
	// Clock tells the time. Default time.Now.
	Clock func() time.Time
	// Logger receives errors the pages could not show. Nil is silent.
	Logger *slog.Logger
	// PollInterval is how often an open page asks whether new work waits. Default 5 s.
	PollInterval time.Duration
}

// Console serves the pages under /console/.
type Console struct {
	e        *engine.Engine
	opts     Options
	mux      *http.ServeMux
	sessions *sessions
	pages    *template.Template
	views    bundleViews // the live bundle's reasons' titles and filters' choices
	live     *liveLists  // the gates waiting, as live.js asks for them
}

//go:embed templates/*.html static/*
var files embed.FS

// New returns the console of an engine.
func New(e *engine.Engine, opts Options) *Console {
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 8 * time.Hour
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 5 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Unattributed == nil {
		opts.Unattributed = func(string) {}
	}
	c := &Console{e: e, opts: opts, mux: http.NewServeMux(), sessions: newSessions(e, opts.SessionTTL, opts.Clock)}
	c.live = newLiveLists(e)
	c.pages = template.Must(template.New("").Funcs(c.funcs()).Funcs(c.wordFuncs()).Funcs(c.liveFuncs()).ParseFS(files, "templates/*.html"))
	c.routes()
	return c
}

func (c *Console) routes() {
	c.mux.Handle("GET /console/static/", http.StripPrefix("/console/", http.FileServerFS(files)))
	c.mux.HandleFunc("GET /console/signin", c.signinPage)
	c.mux.HandleFunc("POST /console/signin", c.signin)
	c.mux.HandleFunc("POST /console/signout", c.person(c.signout))
	c.mux.HandleFunc("GET /console/signout/all", c.person(c.signoutAllPage))
	c.mux.HandleFunc("POST /console/signout/all", c.person(c.signoutAll))
	c.mux.HandleFunc("GET /console/audit", c.person(c.auditPage))
	c.mux.HandleFunc("GET /console/{$}", c.person(c.inbox))
	c.mux.HandleFunc("GET "+summaryPath, c.person(c.inboxSummaryJSON))
	c.mux.HandleFunc("GET /console/workflows", c.person(c.workflows))
	c.mux.HandleFunc("GET /console/workflows/{workflow}", c.person(c.workflow))
	c.mux.HandleFunc("GET /console/workflows/{workflow}/diff", c.person(c.diff))
	c.mux.HandleFunc("GET /console/workflows/{workflow}/artifacts/{type}/{version}", c.person(c.artifact))
	c.mux.HandleFunc("GET /console/workflows/{workflow}/artifacts/{type}", c.person(c.artifactHistory))
	c.mux.HandleFunc("GET /console/workflows/{workflow}/decided/{id}", c.person(c.decided))
	c.mux.HandleFunc("POST /console/workflows/{workflow}/approval", c.person(c.approve))
	c.mux.HandleFunc("POST /console/workflows/{workflow}/resolution", c.person(c.resolve))
	c.mux.HandleFunc("GET /console/decisions/{id}", c.person(c.explain))
	c.mux.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, nil, http.StatusNotFound, "No such page.")
	})
}

// ServeHTTP serves the pages, with headers that keep them from being framed, sniffed or
// made to run anything but the console's own stylesheet and script, and refuses a form
// posted from a page of another site.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if c.sameOrigin(w, r) {
		c.mux.ServeHTTP(w, r)
	}
}
