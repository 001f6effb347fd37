package service

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
)

// workflows lists a tenant's workflows. Without limit or cursor it answers every one
// the filters select, in id order; with either, one page of them, most recent activity
// first, with the cursor of the next page.
func (h *Handler) workflows(w http.ResponseWriter, r *http.Request, p *Principal) {
	t := r.PathValue("tenant")
	if !p.may(t) {
		writeError(w, handoff.Error{Status: http.StatusForbidden, Code: handoff.CodeForbidden, Message: "the token may not read tenant " + t, Hint: "a token reads its own tenant only, unless its principal is an admin"})
		return
	}
	q, paged, err := workflowQuery(r.URL.Query(), p)
	if err != nil {
		writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest, Message: err.Error(), Hint: workflowQueryHint})
		return
	}
	var rows []engine.WorkflowRow
	var next string
	for {
		page, err := h.e.FindWorkflows(r.Context(), t, q)
		if errors.Is(err, engine.ErrBadCursor) {
			writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest, Message: err.Error(), Hint: "a cursor is the next field of the page before, with the same filters"})
			return
		}
		if err != nil {
			h.fail(w, r, err)
			return
		}
		rows = append(rows, page.Rows...)
		if paged || page.Next == "" {
			next = page.Next
			break
		}
		q.Cursor = page.Next
	}
	if !paged {
		slices.SortFunc(rows, func(a, b engine.WorkflowRow) int { return strings.Compare(a.WorkflowID, b.WorkflowID) })
	}
	out := make([]handoff.WorkflowRow, len(rows))
	for i, row := range rows {
		out[i] = wireRow(row)
	}
	body := map[string]any{"tenant_id": t, "workflows": out}
	if next != "" {
		body["next"] = next
	}
	writeJSON(w, http.StatusOK, body)
}

const workflowQueryHint = "filters: pack, status, awaiting=human, waiting=me|anyone|nobody, agent, reason, q (part of the id or subject), since and until (RFC 3339); pages: limit (1-200) and cursor"

// workflowQuery reads a list's filters and paging; paged is true when the query asks
// for a page (limit or cursor).
func workflowQuery(v url.Values, p *Principal) (q engine.WorkflowQuery, paged bool, err error) {
	for key := range v {
		switch key {
		case "pack", "status", "awaiting", "waiting", "agent", "reason", "q", "since", "until", "limit", "cursor":
		default:
			return q, false, fmt.Errorf("unknown parameter %q", key)
		}
		if len(v[key]) > 1 {
			return q, false, fmt.Errorf("parameter %q is given %d times", key, len(v[key]))
		}
	}
	q = engine.WorkflowQuery{Pack: v.Get("pack"), Status: v.Get("status"), Agent: v.Get("agent"), Reason: v.Get("reason"), Search: v.Get("q"), Cursor: v.Get("cursor")}
	switch awaiting := v.Get("awaiting"); awaiting {
	case "":
	case "human":
		q.Waiting = engine.WaitingAnyone
	default:
		return q, false, errors.New("awaiting must be human")
	}
	switch waiting := v.Get("waiting"); waiting {
	case "":
	case engine.WaitingMe:
		if p.Type != "human" || len(p.Roles) == 0 {
			return q, false, errors.New("waiting=me lists what waits for a person's roles: this token's principal is not a person with roles")
		}
		q.Waiting, q.Roles = waiting, p.Roles
	case engine.WaitingAnyone, engine.WaitingNobody:
		if q.Waiting != "" && q.Waiting != waiting {
			return q, false, errors.New("awaiting=human and waiting=" + waiting + " contradict each other")
		}
		q.Waiting = waiting
	default:
		return q, false, fmt.Errorf("waiting %q: want me, anyone or nobody", waiting)
	}
	for key, at := range map[string]*time.Time{"since": &q.Since, "until": &q.Until} {
		if s := v.Get(key); s != "" {
			if *at, err = time.Parse(time.RFC3339, s); err != nil {
				return q, false, fmt.Errorf("%s %q is not an RFC 3339 time", key, s)
			}
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > engine.MaxPageSize {
			return q, false, fmt.Errorf("limit %q: want a whole number from 1 to %d", s, engine.MaxPageSize)
		}
		q.Limit = n
		paged = true
	}
	if q.Cursor != "" {
		paged = true
	}
	if !paged {
		q.Limit = engine.MaxPageSize
	}
	return q, paged, nil
}

// wireRow is a page's row as the API serves it.
func wireRow(r engine.WorkflowRow) handoff.WorkflowRow {
	s := r.WorkflowSummary
	return handoff.WorkflowRow{WorkflowID: s.WorkflowID, Pack: s.Pack, Status: s.Status, Terminal: s.Terminal,
		StateVersion: s.StateVersion, UpdatedAt: s.UpdatedAt, Standing: s.Standing, SubjectID: r.SubjectID,
		CreatedAt: r.CreatedAt, ActiveAt: r.Active.UTC().Format("2006-01-02T15:04:05.000Z"), Decisions: r.Decisions,
		Roles: orEmpty(r.Roles), Agents: orEmpty(r.Agents), Reasons: orEmpty(r.Reasons)}
}

// orEmpty keeps a list a list in JSON: [] rather than null.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (h *Handler) state(w http.ResponseWriter, r *http.Request, t string) {
	st, err := h.e.State(r.Context(), t, r.PathValue("workflow"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) history(w http.ResponseWriter, r *http.Request, t string) {
	wf := r.PathValue("workflow")
	if _, err := h.e.State(r.Context(), t, wf); err != nil {
		h.fail(w, r, err)
		return
	}
	entries := []engine.Entry{}
	err := h.e.History(r.Context(), t, wf, func(e engine.Entry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenant_id": t, "workflow_id": wf, "entries": entries})
}
