package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// Cookie names. The session cookie holds a random token; the store holds only its hash.
const (
	sessionCookie = "handoff_session"
	signinCookie  = "handoff_signin" // the sign-in form's CSRF token (double submit)
)

// maxCachedSignins bounds the sign-in records kept in memory; one more evicts the oldest.
const maxCachedSignins = 4096

// session is one sign-in: the person and the CSRF token every form of theirs carries.
type session struct {
	person  Person
	hash    string // hex SHA-256 of the token: the session's name in the store
	csrf    string
	expires time.Time
	epoch   uint64 // the person's sign-out-everywhere count at sign-in
}

// sessions are records of the tenant's audit stream, so that every `serve` process on
// one store knows every sign-in: sign-in appends a console.signin record indexed as
// console-session:<hash of the token>, sign-out a console.signout indexed as
// console-signout:<hash>, and sign-out everywhere a console.signout_all indexed as
// console-revoke:<tenant>:<person>:<epoch>, which ends every session of the person with
// that epoch. A session's epoch is the smallest n whose revoke id was not recorded when it
// began, so revoke ids are recorded 0, 1, 2... and every live session of a person has the
// same epoch. A request reads the sign-in once (then from a bounded cache: it never
// changes) and, each time, the two ids that would end it: one index read each.
type sessions struct {
	e     *engine.Engine
	ttl   time.Duration
	clock func() time.Time

	mu     sync.Mutex
	byHash map[string]*session
	order  []string          // the hashes of byHash, oldest first
	epochs map[string]uint64 // by revoke key: a person's epochs below it are revoked
}

func newSessions(e *engine.Engine, ttl time.Duration, clock func() time.Time) *sessions {
	return &sessions{e: e, ttl: ttl, clock: clock, byHash: map[string]*session{}, epochs: map[string]uint64{}}
}

// randomToken is 32 random bytes, URL-safe.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// tokenHash is the hex SHA-256 of a session token: what the store knows of it.
func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// csrfToken is the CSRF token of a session, derived from its token under a label of its
// own: no process needs to keep it, and the store's hash of the token does not give it.
func csrfToken(token string) string {
	sum := sha256.Sum256([]byte("handoff console csrf\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func signinID(hash string) string  { return "console-session:" + hash }
func signoutID(hash string) string { return "console-signout:" + hash }

// revokeID names a person's sign-out everywhere of epoch n. Tenant and name are escaped:
// neither may then hold the separator.
func revokeID(p Person, n uint64) string {
	return "console-revoke:" + revokeKey(p) + ":" + strconv.FormatUint(n, 10)
}

func revokeKey(p Person) string { return url.QueryEscape(p.Tenant) + ":" + url.QueryEscape(p.Name) }

// epoch is the smallest n whose revoke id is not recorded for p.
func (s *sessions) epoch(ctx context.Context, p Person) (uint64, error) {
	s.mu.Lock()
	n := s.epochs[revokeKey(p)]
	s.mu.Unlock()
	for {
		done, err := s.e.ConsoleRecorded(ctx, p.Tenant, revokeID(p, n))
		if err != nil {
			return 0, err
		}
		if !done {
			break
		}
		n++
	}
	s.mu.Lock()
	s.epochs[revokeKey(p)] = max(s.epochs[revokeKey(p)], n)
	s.mu.Unlock()
	return n, nil
}

// start signs p in: it records the sign-in and returns the session's token.
func (s *sessions) start(ctx context.Context, p Person, ev engine.ConsoleEvent) (string, *session, error) {
	epoch, err := s.epoch(ctx, p)
	if err != nil {
		return "", nil, err
	}
	token := randomToken()
	now := s.clock()
	ss := &session{person: p, hash: tokenHash(token), csrf: csrfToken(token), expires: now.Add(s.ttl), epoch: epoch}
	ev.Event, ev.ID, ev.Session, ev.Epoch = engine.ConsoleSignin, signinID(ss.hash), ss.hash, epoch
	ev.Person, ev.ActorID, ev.Roles, ev.Admin = p.Name, p.ID, p.Roles, p.Admin // what the session is read back as
	ev.ExpiresAt = ss.expires.UTC().Format(time.RFC3339Nano)
	if _, err := s.e.RecordConsoleEvent(ctx, p.Tenant, ev, now); err != nil {
		return "", nil, err
	}
	s.remember(ss)
	return token, ss, nil
}

// remember caches a sign-in, the oldest evicted past the bound.
func (s *sessions) remember(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byHash[ss.hash]; ok {
		return
	}
	for len(s.order) >= maxCachedSignins {
		delete(s.byHash, s.order[0])
		s.order = s.order[1:]
	}
	s.byHash[ss.hash] = ss
	s.order = append(s.order, ss.hash)
}

// forget drops a sign-in from the cache: it has ended.
func (s *sessions) forget(hash string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byHash, hash) // its place in order goes when it comes first
}

// get returns the live session of token: nil when there is none, it has expired, or
// it was signed out. An error is a store that could not say: the caller fails closed.
func (s *sessions) get(ctx context.Context, token string) (*session, error) {
	if token == "" {
		return nil, nil
	}
	hash := tokenHash(token)
	s.mu.Lock()
	ss := s.byHash[hash]
	s.mu.Unlock()
	if ss == nil {
		tenant, ev, err := s.e.ConsoleSignin(ctx, signinID(hash))
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		expires, err := time.Parse(time.RFC3339Nano, ev.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("console: sign-in %s: expires_at %q: %w", ev.ID, ev.ExpiresAt, store.ErrTampered)
		}
		ss = &session{person: Person{Name: ev.Person, Tenant: tenant, ID: ev.ActorID, Roles: ev.Roles, Admin: ev.Admin},
			hash: hash, csrf: csrfToken(token), expires: expires, epoch: ev.Epoch}
		s.remember(ss)
	}
	if !s.clock().Before(ss.expires) {
		s.forget(hash)
		return nil, nil
	}
	for _, id := range []string{signoutID(hash), revokeID(ss.person, ss.epoch)} {
		ended, err := s.e.ConsoleRecorded(ctx, ss.person.Tenant, id)
		if err != nil {
			return nil, err
		}
		if ended {
			s.forget(hash)
			return nil, nil
		}
	}
	return ss, nil
}

// end records that the person signed out of ss; signing out twice is once.
func (s *sessions) end(ctx context.Context, ss *session, ev engine.ConsoleEvent) error {
	ev.Event, ev.ID, ev.Session = engine.ConsoleSignout, signoutID(ss.hash), ss.hash
	return s.record(ctx, ss, ev)
}

// endAll records that the person signed out of every session of theirs: those of the
// session's epoch, which are all that are live.
func (s *sessions) endAll(ctx context.Context, ss *session, ev engine.ConsoleEvent) error {
	ev.Event, ev.ID, ev.Epoch = engine.ConsoleSignoutAll, revokeID(ss.person, ss.epoch), ss.epoch
	return s.record(ctx, ss, ev)
}

// record appends an event that ends sessions; one recorded already (another tab,
// another process) is as good.
func (s *sessions) record(ctx context.Context, ss *session, ev engine.ConsoleEvent) error {
	_, err := s.e.RecordConsoleEvent(ctx, ss.person.Tenant, ev, s.clock())
	var dup *store.DuplicateIDError
	if err != nil && !errors.As(err, &dup) {
		return err
	}
	s.forget(ss.hash)
	return nil
}

// setCookie sets a cookie the pages' scripts cannot read, sent only to this site's
// own requests, and only over TLS when the request came over TLS.
func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/console/", MaxAge: maxAge,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// sameToken compares two tokens in constant time; empty never matches.
func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// crossOrigin says why a request that changes something did not come from a page of
// this console, or "" when nothing says it did not. Defence in depth beside the CSRF
// token: a token a script of another page got hold of is of no use from another site.
// Sec-Fetch-Site, set by the browser, decides when present ("same-origin"; "none" is a
// navigation the person made): a proxy in front cannot change what it means. Without
// it (an older browser), the Origin of the page must be the host the request was sent
// to, over TLS when the console is served over TLS. A request with neither header comes
// from no browser's page, and the token alone guards it.
func crossOrigin(r *http.Request) string {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "same-origin", "none":
		return ""
	case "":
	default:
		return "Sec-Fetch-Site: " + site
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	if u, err := url.Parse(origin); err != nil || u.Host != r.Host || (r.TLS != nil && u.Scheme != "https") {
		return "Origin: " + origin
	}
	return ""
}

// sameOrigin refuses, with a page that says so and a log line, a request that changes
// something and comes from a page of another site; it is true for every other request.
// The refusal goes to the audit stream of the person whose session the request carries;
// a browser sends none with a request from another site (the cookie is SameSite=Strict),
// so it is mostly only logged.
func (c *Console) sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	why := crossOrigin(r)
	if why == "" || canary.SkipOriginCheck {
		return true
	}
	c.opts.Logger.LogAttrs(r.Context(), slog.LevelWarn, "console: cross-origin request refused",
		slog.String("method", r.Method), slog.String("path", r.URL.EscapedPath()), slog.String("header", why))
	var ss *session
	if ck, err := r.Cookie(sessionCookie); err == nil {
		ss, _ = c.sessions.get(r.Context(), ck.Value) // a store that cannot say: only the log line
	}
	c.refuseForm(r, ss, "sent from a page of another site ("+why+")")
	c.fail(w, r, nil, http.StatusForbidden, "This form was sent from a page of another site, not from this console: nothing was done. Open the console and send it from its own page.")
	return false
}

// refuseForm records a refused form in the audit stream of the session's tenant. Without
// a session the form names no tenant, and an audit stream is a tenant's: it is counted
// (Options.Unattributed) and only logged.
func (c *Console) refuseForm(r *http.Request, ss *session, reason string) {
	if ss == nil {
		c.unattributed(r, "console_forged_form", reason)
		return
	}
	ev := c.event(r, ss.person)
	ev.Event, ev.Reason = engine.ConsoleFormRefused, reason
	c.audit(r, ss.person.Tenant, ev)
}

// unattributed counts and logs a refusal no tenant's audit stream can hold.
func (c *Console) unattributed(r *http.Request, why, reason string) {
	c.opts.Unattributed(why)
	c.opts.Logger.LogAttrs(r.Context(), slog.LevelWarn, "console: refused, no tenant to record it for",
		slog.String("why", why), slog.String("reason", reason), slog.String("path", truncate(r.URL.EscapedPath(), maxPathLen)),
		slog.String("user_agent", truncate(r.UserAgent(), maxUserAgentLen)))
}

// Bounds of what an event keeps of a request.
const (
	maxPathLen      = 512
	maxUserAgentLen = 200
)

// event is an event of p on request r: who, where, with what browser. Never a token nor
// anything of the form.
func (c *Console) event(r *http.Request, p Person) engine.ConsoleEvent {
	return engine.ConsoleEvent{Person: p.Name, ActorID: p.ID, Roles: p.Roles, Admin: p.Admin,
		Path: truncate(r.URL.EscapedPath(), maxPathLen), UserAgent: truncate(r.UserAgent(), maxUserAgentLen)}
}

// audit records a refusal; one the store cannot take is logged, and the refusal stands.
func (c *Console) audit(r *http.Request, tenant string, ev engine.ConsoleEvent) {
	if _, err := c.e.RecordConsoleEvent(r.Context(), tenant, ev, c.opts.Clock()); err != nil {
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console: could not record a refusal in the audit stream",
			slog.String("tenant_id", tenant), slog.String("event", ev.Event), slog.String("reason", ev.Reason), slog.String("error", err.Error()))
	}
}

// truncate cuts s to at most n bytes, on a character's boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// session returns the session of a request's cookie: nil without one. It answers the
// request, and is false, when the store could not say.
func (c *Console) session(w http.ResponseWriter, r *http.Request) (*session, bool) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, true
	}
	ss, err := c.sessions.get(r.Context(), ck.Value)
	if err == nil && ss != nil && c.opts.Current != nil && !c.opts.Current(ss.person) {
		return nil, true // its principal is gone or changed: sign in again
	}
	if err != nil {
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console: session", slog.String("error", err.Error()))
		status, msg := http.StatusInternalServerError, "Your session could not be checked: nothing was done. Try again; if it persists, tell your administrator."
		if store.Retryable(err) {
			status, msg = http.StatusServiceUnavailable, "The store's database cannot be reached or is busy: your session could not be checked. Try again in a moment."
		}
		c.fail(w, r, nil, status, msg)
		return nil, false
	}
	return ss, true
}

// person wraps a page that needs a signed-in person: without a session it goes to the
// sign-in page; a POST must carry the session's CSRF token.
func (c *Console) person(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ss, ok := c.session(w, r)
		if !ok {
			return
		}
		if ss == nil {
			if r.Method != http.MethodGet {
				c.fail(w, r, nil, http.StatusUnauthorized, "Your session has ended: sign in again.")
				return
			}
			http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if !sameToken(r.PostFormValue("csrf"), ss.csrf) && !canary.SkipCSRF {
				c.refuseForm(r, ss, "its CSRF token is missing or wrong")
				c.fail(w, r, ss, http.StatusForbidden, "This form was not sent from a page of this console (its CSRF token is missing or wrong): nothing was done. Reload the page and try again.")
				return
			}
		}
		h(w, r, ss)
	}
}

func (c *Console) signinPage(w http.ResponseWriter, r *http.Request) {
	token := randomToken()
	setCookie(w, r, signinCookie, token, 600)
	c.render(w, r, http.StatusOK, "signin.html", map[string]any{"CSRF": token})
}

func (c *Console) signin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	ck, err := r.Cookie(signinCookie)
	if err != nil || !sameToken(r.PostFormValue("csrf"), ck.Value) {
		c.unattributed(r, "console_forged_form", "the sign-in form's CSRF token is missing or wrong")
		c.fail(w, r, nil, http.StatusForbidden, "The sign-in form was not sent from this console's sign-in page: nothing was done.")
		return
	}
	p, ok := c.opts.Authenticate(r.PostFormValue("token"))
	if !ok {
		if p.Tenant != "" {
			// A principal of the tenant who may not sign in: the tenant's admins see it.
			ev := c.event(r, p)
			ev.Event, ev.Reason = engine.ConsoleSigninRefused, p.Refused
			c.audit(r, p.Tenant, ev)
		} else {
			// An unknown token names no tenant, and an audit stream is a tenant's: it is
			// counted and logged only.
			c.unattributed(r, "console_unknown_token", "the token is unknown")
		}
		token := randomToken()
		setCookie(w, r, signinCookie, token, 600)
		c.render(w, r, http.StatusUnauthorized, "signin.html", map[string]any{"CSRF": token,
			"Error": "That token does not sign a person in: it is unknown, expired, or an agent's."})
		return
	}
	token, _, err := c.sessions.start(r.Context(), p, c.event(r, p))
	if err != nil {
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console: sign-in", slog.String("tenant_id", p.Tenant), slog.String("error", err.Error()))
		c.fail(w, r, nil, http.StatusServiceUnavailable, "Your sign-in could not be recorded: you are not signed in. Try again in a moment.")
		return
	}
	setCookie(w, r, signinCookie, "", -1)
	setCookie(w, r, sessionCookie, token, int(c.opts.SessionTTL.Seconds()))
	http.Redirect(w, r, "/console/", http.StatusSeeOther)
}

func (c *Console) signout(w http.ResponseWriter, r *http.Request, ss *session) {
	c.endSession(w, r, ss, c.sessions.end)
}

// signoutAllPage asks whether to sign out everywhere.
func (c *Console) signoutAllPage(w http.ResponseWriter, r *http.Request, ss *session) {
	c.render(w, r, http.StatusOK, "signout-all.html", c.base(ss, map[string]any{"PageTitle": "Sign out everywhere"}))
}

// signoutAll signs the person out of every session of theirs, in every browser and
// every process on the store.
func (c *Console) signoutAll(w http.ResponseWriter, r *http.Request, ss *session) {
	c.endSession(w, r, ss, c.sessions.endAll)
}

func (c *Console) endSession(w http.ResponseWriter, r *http.Request, ss *session, end func(context.Context, *session, engine.ConsoleEvent) error) {
	if err := end(r.Context(), ss, c.event(r, ss.person)); err != nil {
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console: sign-out", slog.String("tenant_id", ss.person.Tenant), slog.String("error", err.Error()))
		c.fail(w, r, ss, http.StatusServiceUnavailable, "Your sign-out could not be recorded: you are still signed in. Try again in a moment.")
		return
	}
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
}
