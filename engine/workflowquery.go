package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/store"
)

// Who a workflow waits for, as WorkflowQuery.Waiting selects it.
const (
	WaitingMe     = "me"     // a person holding one of WorkflowQuery.Roles may act now
	WaitingAnyone = "anyone" // a person may act now (the standing decision is await_human)
	WaitingNobody = "nobody" // no person is waited for
)

// Page sizes of FindWorkflows.
const (
	DefaultPageSize = 25
	MaxPageSize     = 200
)

// ErrBadCursor is the error of a WorkflowQuery whose cursor no page gave.
var ErrBadCursor = errors.New("engine: the cursor is not one a page of workflows gave")

// WorkflowQuery selects a page of a tenant's workflows, most recent activity first. The
// zero value is the first page of all of them. Every filter set must hold.
type WorkflowQuery struct {
	Pack   string // only this pack's
	Status string // only those in this status
	// Waiting is WaitingMe, WaitingAnyone or WaitingNobody; "" selects all.
	Waiting string
	Roles   []string // the person's roles, for WaitingMe
	Agent   string   // an agent that produced an artifact or may act now
	Reason  string   // a reason code of the latest decision
	// Search keeps the workflows whose id or subject id holds it, in any case.
	Search string
	// Since and Until bound the time of the latest decision: Since ≤ t < Until. Zero
	// leaves that side open.
	Since, Until time.Time
	// Cursor is WorkflowPage.Next of the page before; "" for the first page. A cursor
	// is only valid with the query that gave it.
	Cursor string
	// Limit is the page size: DefaultPageSize when 0, at most MaxPageSize.
	Limit int
}

// WorkflowRow is one workflow of a page: its summary and what the filters read.
type WorkflowRow struct {
	WorkflowSummary
	SubjectID string    `json:"subject_id"`
	CreatedAt string    `json:"created_at"`
	Active    time.Time `json:"active_at"` // the time of the latest decision
	Decisions uint64    `json:"decisions"` // how many decisions the log holds
	// Roles are the human roles that may act now, when the standing decision is
	// await_human; empty otherwise.
	Roles []string `json:"roles"`
	// Agents produced an artifact of the workflow or may act on it now.
	Agents []string `json:"agents"`
	// Reasons are the reason codes of the latest decision, in its order.
	Reasons []string `json:"reasons"`
}

// WorkflowPage is one page of FindWorkflows.
type WorkflowPage struct {
	Rows []WorkflowRow `json:"workflows"`
	// Next is the cursor of the page after; "" on the last page.
	Next string `json:"next,omitempty"`
}

// errRowsEnough stops the walk of the summaries once a page and one more row are found,
// or once they are older than the query selects.
var errRowsEnough = errors.New("engine: the page is full")

// FindWorkflows returns one page of a tenant's workflows that q selects, most recent
// activity first (ties by workflow id). It reads the store's summaries of the tenant's
// workflows in that order from the cursor, and stops at the row after the page: a page
// costs the summaries read to fill it, not the workflows of the tenant nor their
// histories. Filters that select few workflows read more summaries for a page; Since
// and Until bound the summaries read.
func (e *Engine) FindWorkflows(ctx context.Context, tenant string, q WorkflowQuery) (WorkflowPage, error) {
	limit, err := q.limit()
	if err != nil {
		return WorkflowPage{}, err
	}
	after, err := decodeCursor(q.Cursor)
	if err != nil {
		return WorkflowPage{}, err
	}
	unkept, _, err := e.summarizeMissing(ctx, e.log, tenant)
	if err != nil {
		return WorkflowPage{}, err
	}
	from := after
	if !q.Until.IsZero() && (from == nil || q.Until.Before(from.Active)) {
		from = &cursor{Active: q.Until} // nothing active at Until or later is selected
	}
	var rows []WorkflowRow
	take := func(row WorkflowRow) error {
		if !q.Since.IsZero() && row.Active.Before(q.Since) {
			return errRowsEnough // the rest is older still
		}
		if q.Selects(row) && (after == nil || after.before(row)) {
			if rows = append(rows, row); len(rows) > limit {
				return errRowsEnough
			}
		}
		return nil
	}
	err = e.log.Summaries(ctx, tenant, from.summaryCursor(), func(s store.Summary) error {
		row, err := e.summaryRow(ctx, tenant, s)
		if err != nil {
			return err
		}
		// The rows the store could not keep come in their place in the order.
		for len(unkept) > 0 && compareRows(unkept[0].row, row) < 0 {
			if err := e.takeUnkept(ctx, tenant, &unkept, take); err != nil {
				return err
			}
		}
		return take(row)
	})
	for err == nil && len(unkept) > 0 {
		err = e.takeUnkept(ctx, tenant, &unkept, take)
	}
	if err != nil && !errors.Is(err, errRowsEnough) {
		return WorkflowPage{}, err
	}
	var page WorkflowPage
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		page.Next = encodeCursor(cursor{Active: last.Active, Workflow: last.WorkflowID})
	}
	page.Rows = rows
	if page.Rows == nil {
		page.Rows = []WorkflowRow{}
	}
	return page, nil
}

// takeUnkept gives take the first of the rows the store could not keep, with its
// standing outcome.
func (e *Engine) takeUnkept(ctx context.Context, tenant string, unkept *[]unkeptRow, take func(WorkflowRow) error) error {
	u := (*unkept)[0]
	*unkept = (*unkept)[1:]
	row, err := e.standOn(ctx, tenant, u.row, u.head)
	if err != nil {
		return err
	}
	return take(row)
}

// summarize is the row of a workflow in state st whose latest decision (nil when
// unreadable) was recorded at time at. What the head knows better is left to the caller:
// the count of decisions, the state version and the standing outcome; Roles holds every
// human role that may act, until standOn keeps them only for a workflow that awaits a
// person.
func (e *Engine) summarize(st *State, latest *Decision, at time.Time) WorkflowRow {
	row := WorkflowRow{
		WorkflowSummary: WorkflowSummary{WorkflowID: st.WorkflowID, Pack: st.Pack, Status: st.Status, Terminal: st.Terminal,
			StateVersion: st.StateVersion, UpdatedAt: st.UpdatedAt},
		SubjectID: st.SubjectID, CreatedAt: st.CreatedAt, Active: at.UTC(),
		Roles: []string{}, Agents: []string{}, Reasons: []string{},
	}
	for _, h := range st.Artifacts {
		for _, v := range h.Versions {
			if v.Producer != "" {
				row.Agents = append(row.Agents, v.Producer)
			}
		}
	}
	// A workflow that ended handed to people (support's ESCALATED) still waits for
	// them, as the console's inbox shows it; no agent acts on an ended one.
	agents, roles, _ := e.Decider().acting(st) // a pack the bundle lacks has no actors
	if !st.Terminal {
		row.Agents = append(row.Agents, agents...)
	}
	row.Roles = append(row.Roles, roles...)
	slices.Sort(row.Agents)
	row.Agents = slices.Compact(row.Agents)
	slices.Sort(row.Roles)
	row.Roles = slices.Compact(row.Roles)
	if latest != nil {
		for _, r := range latest.Reasons {
			if !slices.Contains(row.Reasons, r.Code) {
				row.Reasons = append(row.Reasons, r.Code)
			}
		}
	}
	return row
}

// Selects reports whether row passes every filter of q (not its cursor).
func (q WorkflowQuery) Selects(row WorkflowRow) bool {
	switch {
	case q.Pack != "" && row.Pack != q.Pack,
		q.Status != "" && row.Status != q.Status,
		q.Agent != "" && !slices.Contains(row.Agents, q.Agent),
		q.Reason != "" && !slices.Contains(row.Reasons, q.Reason),
		!q.Since.IsZero() && row.Active.Before(q.Since),
		!q.Until.IsZero() && !row.Active.Before(q.Until):
		return false
	}
	switch q.Waiting {
	case WaitingMe:
		if row.Standing != AwaitHuman || !slices.ContainsFunc(q.Roles, func(r string) bool { return slices.Contains(row.Roles, r) }) {
			return false
		}
	case WaitingAnyone:
		if row.Standing != AwaitHuman {
			return false
		}
	case WaitingNobody:
		if row.Standing == AwaitHuman {
			return false
		}
	}
	if s := strings.ToLower(q.Search); s != "" {
		return strings.Contains(strings.ToLower(row.WorkflowID), s) || strings.Contains(strings.ToLower(row.SubjectID), s)
	}
	return true
}

// limit checks the query's own fields and returns its page size.
func (q WorkflowQuery) limit() (int, error) {
	switch q.Waiting {
	case "", WaitingMe, WaitingAnyone, WaitingNobody:
	default:
		return 0, fmt.Errorf("engine: waiting %q: want %q, %q, %q or nothing", q.Waiting, WaitingMe, WaitingAnyone, WaitingNobody)
	}
	switch {
	case q.Limit < 0:
		return 0, fmt.Errorf("engine: page size %d is negative", q.Limit)
	case q.Limit == 0:
		return DefaultPageSize, nil
	case q.Limit > MaxPageSize:
		return MaxPageSize, nil
	}
	return q.Limit, nil
}

// compareRows orders rows most recent activity first, then by workflow id.
func compareRows(a, b WorkflowRow) int {
	if c := b.Active.Compare(a.Active); c != 0 {
		return c
	}
	return strings.Compare(a.WorkflowID, b.WorkflowID)
}

// maxCursorWorkflow bounds the workflow id a cursor names: the longest a store takes.
const maxCursorWorkflow = 1024

// cursor is where a page ended: its last row's activity and workflow.
type cursor struct {
	Active   time.Time
	Workflow string
}

// summaryCursor is where the store's walk of summaries starts for c: nil from the start.
func (c *cursor) summaryCursor() *store.SummaryCursor {
	if c == nil {
		return nil
	}
	return &store.SummaryCursor{Active: c.Active, Workflow: c.Workflow}
}

// before reports whether row comes after the cursor in the pages' order.
func (c *cursor) before(row WorkflowRow) bool {
	return compareRows(WorkflowRow{WorkflowSummary: WorkflowSummary{WorkflowID: c.Workflow}, Active: c.Active}, row) < 0
}

func encodeCursor(c cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.Active.UTC().Format(time.RFC3339Nano) + "\x00" + c.Workflow))
}

func decodeCursor(s string) (*cursor, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrBadCursor
	}
	at, wf, ok := strings.Cut(string(b), "\x00")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || wf == "" || len(wf) > maxCursorWorkflow {
		return nil, ErrBadCursor
	}
	return &cursor{Active: t, Workflow: wf}, nil
}
