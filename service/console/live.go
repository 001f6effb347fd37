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
	"strconv"
	"strings"
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

// summarize reads the gates waiting for p (waitingFilter), newest first, among one page
// of the largest size of those waiting for anyone: the count, the unread among them
// (those active after seen), and the list's version.
func (c *Console) summarize(ctx context.Context, p Person, seen time.Time) (inboxSummary, error) {
	page, err := c.e.FindWorkflows(ctx, p.Tenant, engine.WorkflowQuery{Waiting: engine.WaitingAnyone, Limit: engine.MaxPageSize})
	if err != nil {
		return inboxSummary{}, err
	}
	s := inboxSummary{More: page.Next != ""}
	mine := c.waitingFor(p)
	h := sha256.New()
	for _, row := range page.Rows {
		if !mine.keeps(ctx, row) {
			continue
		}
		s.Waiting++
		if row.Active.After(seen) {
			s.Unread++
		}
		var b []byte
		b = binary.AppendUvarint(b, uint64(len(row.WorkflowID)))
		b = append(b, row.WorkflowID...)
		b = binary.AppendVarint(b, row.Active.UnixNano())
		b = binary.AppendUvarint(b, row.Decisions)
		b = binary.AppendUvarint(b, row.StateVersion)
		_, _ = h.Write(b)
	}
	_, _ = h.Write([]byte(page.Next))
	s.Version = base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
	if s.Unread > 0 {
		s.UnreadText = strconv.Itoa(s.Unread)
		if s.More && s.Unread == s.Waiting { // every one counted is new: so may be those past it
			s.UnreadText += "+"
		}
	}
	return s, nil
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
