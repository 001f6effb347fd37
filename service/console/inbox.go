package console

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// inboxItem is one workflow waiting for the signed-in person.
type inboxItem struct {
	Workflow string
	Pack     string
	Gate     string
	Status   string
	Waited   string
	Reasons  []engine.Reason
	Why      string // the transition that brought the workflow here, when no reason says why
	New      bool   // active since the person last saw the inbox
}

// inboxRounds bounds the reads of one inbox page: a page is filled from as many pages of
// the engine as it takes, up to this many, and is shorter after that.
const inboxRounds = 8

// inbox lists the workflows waiting for the person, a page at a time, newest activity
// first, each checked against its gate, whose acting roles the person must hold. Shown
// to the person (not fetched by live.js), it marks everything on it seen.
func (c *Console) inbox(w http.ResponseWriter, r *http.Request, ss *session) {
	ctx := r.Context()
	p := ss.person
	now := c.opts.Clock() // before the read: what is recorded later counts as new
	f := filters{Limit: r.URL.Query().Get("limit"), Cursor: r.URL.Query().Get("cursor")}
	limit, err := readLimit(f.Limit)
	if err != nil {
		c.queryError(w, r, ss, err, "inbox.html", map[string]any{"F": f})
		return
	}
	if limit == 0 {
		limit = engine.DefaultPageSize
	}
	// Each round reads no more rows than the page still needs, so that the page after
	// starts where the last round ended.
	packs := map[string]*pack{}
	seen := c.lastSeen(r)
	q := waitingForMe(p, f.Cursor, limit)
	var items []inboxItem
	next := ""
	for round := 0; round < inboxRounds; round++ {
		page, err := c.e.FindWorkflows(ctx, p.Tenant, q)
		if err != nil {
			c.queryError(w, r, ss, err, "inbox.html", map[string]any{"F": f})
			return
		}
		for _, row := range page.Rows {
			if item, ok := c.inboxItem(ctx, p, packs, row); ok {
				item.New = row.Active.After(seen)
				items = append(items, item)
			}
		}
		next = page.Next
		if len(items) >= limit || next == "" {
			break
		}
		q.Cursor, q.Limit = next, limit-len(items)
	}
	if r.Header.Get(liveHeader) != "1" {
		markSeen(w, r, now)
		seen = now
	}
	data := map[string]any{"Items": items, "Paging": pagingOf("/console/", f, next), "Refresh": "/console/" + queryString(f.here())}
	if s, err := c.summarize(ctx, p, seen); err == nil {
		data["Version"], data["Unread"] = s.Version, s.UnreadText
	}
	c.render(w, r, http.StatusOK, "inbox.html", c.base(ss, data))
}

// inboxItem is what the inbox shows of a row waiting for the person; ok is false when
// its gate is not the person's after all.
func (c *Console) inboxItem(ctx context.Context, p Person, packs map[string]*pack, row engine.WorkflowRow) (inboxItem, bool) {
	st, err := c.e.State(ctx, p.Tenant, row.WorkflowID)
	if err != nil {
		return inboxItem{}, false
	}
	pk, read := packs[st.Pack]
	if !read {
		pk, _ = c.packOf(st.Pack)
		packs[st.Pack] = pk
	}
	if pk == nil {
		return inboxItem{}, false
	}
	g, ok := pk.gate(st)
	if !ok || len(g.actingRoles(p.Roles)) == 0 {
		return inboxItem{}, false
	}
	item := inboxItem{Workflow: row.WorkflowID, Pack: row.Pack, Gate: g.Title, Status: st.Status}
	if d, err := c.e.Standing(ctx, p.Tenant, row.WorkflowID); err == nil && d != nil {
		item.Reasons = d.Reasons
		for _, t := range pk.transitions {
			if t.From == d.StatusBefore && t.To == d.StatusAfter {
				item.Why = t.On
				break
			}
		}
		if t, err := time.Parse(time.RFC3339Nano, d.DecidedAt); err == nil {
			item.Waited = waited(c.opts.Clock().Sub(t))
		}
	}
	return item, true
}

// waitingForMe asks for the workflows waiting for one of p's roles: at a gate where
// the role acts now, or ended handed to it (support's ESCALATED).
func waitingForMe(p Person, cursor string, limit int) engine.WorkflowQuery {
	return engine.WorkflowQuery{Waiting: engine.WaitingMe, Roles: p.Roles, Cursor: cursor, Limit: limit}
}

// waited is a duration in words, to the minute.
func waited(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " " + plural(int(d%time.Hour/time.Minute), "minute")
	}
	return plural(int(d/(24*time.Hour)), "day")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
