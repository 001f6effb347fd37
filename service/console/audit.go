package console

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

// auditPageSize is how many records one page of the audit shows.
const auditPageSize = 50

// auditRow is one record of the tenant's audit stream as the audit page says it.
type auditRow struct {
	Seq       uint64
	Time      string
	Kind      string // signin, signout, signout_all, signin_refused, form_refused, blocked
	What      string // what happened, in words
	Who       string // the person (or the actor of a blocked request)
	Path      string
	Reason    string
	UserAgent string
	Reasons   []engine.Reason // a blocked request's reasons
	Pack      string
}

// auditPage shows the tenant's audit stream to its admins, newest first: who signed in
// and out, who was refused, and the requests blocked as too broken to trust. Paged by
// seq: ?before=<seq> shows the records before it.
func (c *Console) auditPage(w http.ResponseWriter, r *http.Request, ss *session) {
	if !ss.person.Admin {
		c.fail(w, r, ss, http.StatusForbidden, "The audit is shown to your tenant's administrators only.")
		return
	}
	var before uint64
	if v := r.URL.Query().Get("before"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n == 0 {
			c.fail(w, r, ss, http.StatusBadRequest, "The page asked for is not a record number: open the audit from its first page.")
			return
		}
		before = n
	}
	items, next, err := c.e.AuditPage(r.Context(), ss.person.Tenant, before, auditPageSize)
	if err != nil {
		c.storeError(w, r, ss, err)
		return
	}
	rows := make([]auditRow, 0, len(items))
	for _, it := range items {
		rows = append(rows, c.auditRow(it))
	}
	c.render(w, r, http.StatusOK, "audit.html", c.base(ss, map[string]any{"PageTitle": "Audit", "Rows": rows, "Next": next, "First": before == 0}))
}

// auditRow says one record in words.
func (c *Console) auditRow(it engine.AuditItem) auditRow {
	row := auditRow{Seq: it.Seq, Time: it.Time.UTC().Format(time.DateTime + " UTC")}
	if ev := it.Console; ev != nil {
		row.Kind, row.Path, row.Reason, row.UserAgent = ev.Event, ev.Path, ev.Reason, ev.UserAgent
		row.Who = ev.Person
		if ev.ActorID != "" {
			row.Who += " (" + ev.ActorID + ")"
		}
		switch ev.Event {
		case engine.ConsoleSignin:
			row.What = "Signed in"
			if t, err := time.Parse(time.RFC3339Nano, ev.ExpiresAt); err == nil {
				row.What += ", until " + t.UTC().Format(time.DateTime+" UTC")
			}
		case engine.ConsoleSignout:
			row.What = "Signed out"
		case engine.ConsoleSignoutAll:
			row.What = "Signed out everywhere: every session of theirs ended"
		case engine.ConsoleSigninRefused:
			row.What = "Sign-in refused"
		case engine.ConsoleFormRefused:
			row.What = "Form refused: nothing was done"
		}
		return row
	}
	en := it.Security
	row.Kind, row.What, row.Who = "blocked", "Request blocked: too broken to trust", requestActor(en.Request)
	if d := en.Decision; d != nil {
		row.Pack = d.Pack
		row.Reasons = d.Reasons
		if d.WorkflowID != "" {
			row.What = fmt.Sprintf("Request blocked (%s of workflow %s): too broken to trust", strings.ReplaceAll(d.Kind, "_", " "), d.WorkflowID)
		}
	}
	return row
}
