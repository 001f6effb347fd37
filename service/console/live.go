package console

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// The inbox keeps itself current: static/live.js asks inboxSummary every few seconds
// how many gates wait for the person, how many of them are new since the person last
// saw the inbox, and a version of the list; when the version moves, it fetches the inbox
// again and puts its list in place of the one shown.

const (
	// seenCookie holds when the person last saw the inbox, in Unix nanoseconds. It only
	// decides a count, so it is not signed; it is read strictly all the same.
	seenCookie = "handoff_inbox_seen"
	// liveHeader marks a request live.js makes for the inbox's list: it refreshes what
	// is on screen, and is not the person looking at the inbox again.
	liveHeader = "X-Console-Live"
	// summaryPath is the JSON live.js polls.
	summaryPath = "/console/inbox/summary"
)

// seenRE is what a seen cookie may hold: a positive decimal int64.
var seenRE = regexp.MustCompile(`^[1-9][0-9]{0,18}$`)

// lastSeen is when the person last saw the inbox; zero when the cookie is missing,
// malformed or in the future (then everything waiting counts as new).
func (c *Console) lastSeen(r *http.Request) time.Time {
	ck, err := r.Cookie(seenCookie)
	if err != nil || !seenRE.MatchString(ck.Value) {
		return time.Time{}
	}
	n, err := strconv.ParseInt(ck.Value, 10, 64)
	if err != nil {
		return time.Time{}
	}
	t := time.Unix(0, n)
	if t.After(c.opts.Clock()) {
		return time.Time{}
	}
	return t
}

// markSeen keeps the time the person saw the inbox.
func markSeen(w http.ResponseWriter, r *http.Request, at time.Time) {
	setCookie(w, r, seenCookie, strconv.FormatInt(at.UnixNano(), 10), 365*24*60*60)
}

// inboxSummary is what live.js reads of the gates waiting for a person.
type inboxSummary struct {
	Waiting int  `json:"waiting"` // gates waiting for the person, among the latest engine.MaxPageSize waiting for anyone
	More    bool `json:"more"`    // and there may be more than that
	Unread  int  `json:"unread"`  // of them, those active since the person last saw the inbox
	// UnreadText is the count as the navigation shows it: "" for none, "200+" past
	// what was counted.
	UnreadText string `json:"unread_text"`
	// Version changes whenever a gate waiting for the person appears, moves or goes.
	Version string `json:"version"`
}

// summarize is what live.js reads of the gates waiting for p: the count, the unread
// among them (those active after seen), and the list's version.
func (c *Console) summarize(ctx context.Context, p Person, seen time.Time) (inboxSummary, error) {
	w, err := c.live.waiting(ctx, c, p)
	if err != nil {
		return inboxSummary{}, err
	}
	s := inboxSummary{Waiting: len(w.active), More: w.more, Version: w.version}
	for _, at := range w.active {
		if at.After(seen) {
			s.Unread++
		}
	}
	if s.Unread > 0 {
		s.UnreadText = strconv.Itoa(s.Unread)
		if s.More && s.Unread == s.Waiting { // every one counted is new: so may be those past it
			s.UnreadText += "+"
		}
	}
	return s, nil
}

// waitingList is what a summary is made of: when each gate waiting for people of some
// roles was last active, newest first, and a version of the list.
type waitingList struct {
	active  []time.Time
	more    bool // more wait than were read
	version string
	gen     uint64    // the tenant's decisions recorded here when it was read
	read    time.Time // when it was read
}

// waitingMaxAge bounds how long a list read is used while no decision of its tenant is
// recorded by this engine: decisions recorded by another process on the same store are
// not announced here, and show after at most this long.
const waitingMaxAge = 10 * time.Second

// liveLists keeps the waiting lists read, so that every open page asking every few
// seconds costs a read of the store only when its tenant recorded a decision.
type liveLists struct {
	mu    sync.Mutex
	gens  map[string]uint64      // tenant → decisions recorded by this engine
	lists map[string]waitingList // tenant and roles → the list read
}

func newLiveLists(e *engine.Engine) *liveLists {
	l := &liveLists{gens: map[string]uint64{}, lists: map[string]waitingList{}}
	e.OnRecorded(func(d *engine.Decision) {
		l.mu.Lock()
		l.gens[d.TenantID]++
		l.mu.Unlock()
	})
	return l
}

// waiting is the list of the gates waiting for p: the one read before when its tenant
// recorded nothing since and it is recent, else read again.
func (l *liveLists) waiting(ctx context.Context, c *Console, p Person) (waitingList, error) {
	roles := slices.Clone(p.Roles)
	slices.Sort(roles)
	key := p.Tenant + "\x00" + strings.Join(roles, "\x00")
	now := c.opts.Clock()
	l.mu.Lock()
	gen := l.gens[p.Tenant]
	w, ok := l.lists[key]
	l.mu.Unlock()
	if ok && w.gen == gen && now.Sub(w.read) < waitingMaxAge && !now.Before(w.read) {
		return w, nil
	}
	w, err := c.readWaiting(ctx, p)
	if err != nil {
		return waitingList{}, err
	}
	w.gen, w.read = gen, now
	l.mu.Lock()
	l.lists[key] = w
	l.mu.Unlock()
	return w, nil
}

// readWaiting reads the gates waiting for p, newest first: one page of the largest size.
func (c *Console) readWaiting(ctx context.Context, p Person) (waitingList, error) {
	page, err := c.e.FindWorkflows(ctx, p.Tenant, waitingForMe(p, "", engine.MaxPageSize))
	if err != nil {
		return waitingList{}, err
	}
	w := waitingList{more: page.Next != ""}
	h := sha256.New()
	for _, row := range page.Rows {
		w.active = append(w.active, row.Active)
		var b []byte
		b = binary.AppendUvarint(b, uint64(len(row.WorkflowID)))
		b = append(b, row.WorkflowID...)
		b = binary.AppendVarint(b, row.Active.UnixNano())
		b = binary.AppendUvarint(b, row.Decisions)
		b = binary.AppendUvarint(b, row.StateVersion)
		_, _ = h.Write(b)
	}
	_, _ = h.Write([]byte(page.Next))
	w.version = base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
	return w, nil
}

// withUnread adds the navigation's unread count to a page's data. It is only a count: a
// store that fails here fails the page no more than its own reads do, and is logged.
func (c *Console) withUnread(r *http.Request, ss *session, data map[string]any) {
	s, err := c.summarize(r.Context(), ss.person, c.lastSeen(r))
	if err != nil {
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelWarn, "console unread count", slog.String("error", err.Error()))
		return
	}
	data["Unread"] = s.UnreadText
}

// inboxSummaryJSON answers live.js: the person's own tenant and roles, never stored by
// a cache (ServeHTTP says no-store for every answer).
func (c *Console) inboxSummaryJSON(w http.ResponseWriter, r *http.Request, ss *session) {
	s, err := c.summarize(r.Context(), ss.person, c.lastSeen(r))
	if err != nil {
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console inbox summary", slog.String("error", err.Error()))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":"the inbox could not be read"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s)
}

// liveFuncs are the templates' helpers for live.js.
func (c *Console) liveFuncs() template.FuncMap {
	return template.FuncMap{
		// liveInterval is how often live.js polls, in milliseconds.
		"liveInterval": func() int64 { return c.opts.PollInterval.Milliseconds() },
		"summaryPath":  func() string { return summaryPath },
		// titleCount is the unread count as the page's title starts with it.
		"titleCount": func(n any) string {
			s, _ := n.(string)
			if strings.TrimSpace(s) == "" {
				return ""
			}
			return "(" + s + ") "
		},
	}
}
