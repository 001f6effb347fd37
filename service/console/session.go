package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/handoff-dev/handoff/internal/canary"
)

// Cookie names. The session cookie holds a random id; everything else stays here.
const (
	sessionCookie = "handoff_session"
	signinCookie  = "handoff_signin" // the sign-in form's CSRF token (double submit)
)

// session is one sign-in: the person and the CSRF token every form of theirs carries.
type session struct {
	person  Person
	csrf    string
	expires time.Time
}

// sessions are kept in memory: a restart signs everyone out.
type sessions struct {
	mu    sync.Mutex
	byID  map[string]*session
	ttl   time.Duration
	clock func() time.Time
}

func newSessions(ttl time.Duration, clock func() time.Time) *sessions {
	return &sessions{byID: map[string]*session{}, ttl: ttl, clock: clock}
}

// randomToken is 32 random bytes, URL-safe.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// start signs p in and returns the session id.
func (s *sessions) start(p Person) (string, *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	for id, ss := range s.byID {
		if now.After(ss.expires) {
			delete(s.byID, id)
		}
	}
	id := randomToken()
	ss := &session{person: p, csrf: randomToken(), expires: now.Add(s.ttl)}
	s.byID[id] = ss
	return id, ss
}

// get returns the live session of id.
func (s *sessions) get(id string) (*session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.byID[id]
	if ok && s.clock().After(ss.expires) {
		delete(s.byID, id)
		return nil, false
	}
	return ss, ok
}

func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
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
	c.fail(w, r, nil, http.StatusForbidden, "This form was sent from a page of another site, not from this console: nothing was done. Open the console and send it from its own page.")
	return false
}

// person wraps a page that needs a signed-in person: without a session it goes to the
// sign-in page; a POST must carry the session's CSRF token.
func (c *Console) person(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var ss *session
		if ck, err := r.Cookie(sessionCookie); err == nil {
			ss, _ = c.sessions.get(ck.Value)
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
		c.fail(w, r, nil, http.StatusForbidden, "The sign-in form was not sent from this console's sign-in page: nothing was done.")
		return
	}
	p, ok := c.opts.Authenticate(r.PostFormValue("token"))
	if !ok {
		token := randomToken()
		setCookie(w, r, signinCookie, token, 600)
		c.render(w, r, http.StatusUnauthorized, "signin.html", map[string]any{"CSRF": token,
			"Error": "That token does not sign a person in: it is unknown, expired, or an agent's."})
		return
	}
	id, _ := c.sessions.start(p)
	setCookie(w, r, signinCookie, "", -1)
	setCookie(w, r, sessionCookie, id, int(c.opts.SessionTTL.Seconds()))
	http.Redirect(w, r, "/console/", http.StatusSeeOther)
}

func (c *Console) signout(w http.ResponseWriter, r *http.Request, ss *session) {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		c.sessions.end(ck.Value)
	}
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
}
