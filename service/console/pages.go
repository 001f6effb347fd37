package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

// render writes a page; a template that fails is logged and answered 500.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, page string, data map[string]any) {
	if _, ok := data["PageTitle"]; !ok {
		data["PageTitle"] = pageTitles[page]
	}
	var b strings.Builder
	if err := c.pages.ExecuteTemplate(&b, page, data); err != nil {
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console page", slog.String("page", page), slog.String("error", err.Error()))
		http.Error(w, "the page could not be made", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// pageTitles name the pages in the browser's tab.
var pageTitles = map[string]string{
	"signin.html": "Sign in", "inbox.html": "Inbox", "workflow.html": "Workflow", "diff.html": "Changes",
	"explain.html": "Explain", "decision.html": "Decision", "error.html": "Error", "artifact.html": "Artifact",
	"history.html": "Versions",
}

// fail answers with a page that says what went wrong.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, ss *session, status int, msg string) {
	c.render(w, r, status, "error.html", c.base(ss, map[string]any{"Message": msg, "Status": status}))
}

// base adds what every page shows of the session.
func (c *Console) base(ss *session, data map[string]any) map[string]any {
	if ss != nil {
		data["Person"] = ss.person
		data["CSRF"] = ss.csrf
	}
	return data
}

// artifactRow is one version of an artifact on the workflow page.
type artifactRow struct {
	Type     string
	Version  int
	Status   string
	Hash     string
	Producer string
	Recorded string
	BasedOn  []engine.ArtifactRef
	Previous int // the version before, for a diff; 0 for the first
}

// workflowView is everything the workflow page shows.
type workflowView struct {
	State     *engine.State
	Timeline  timeline
	Decided   *step // the last decision a person made at a gate of the workflow
	Artifacts []artifactRow
	Diagram   template.HTML
	Path      []pathStep // the statuses the workflow went through, for a narrow screen
	Verify    store.VerifyReport
	Gate      *gate
	Forms     *forms
	Reading   []*versionView // the versions the gate is about, to read beside its forms
}

// pathStep is one status on the workflow's path.
type pathStep struct {
	Status  string
	Current bool
}

// maxPath is how many statuses of a path the list shows: the latest, so that the
// list, like the timeline, does not grow with the history.
const maxPath = 40

func (c *Console) workflow(w http.ResponseWriter, r *http.Request, ss *session) {
	v, ok := c.loadWorkflow(w, r, ss)
	if !ok {
		return
	}
	c.render(w, r, http.StatusOK, "workflow.html", c.base(ss, map[string]any{"W": v}))
}

// loadWorkflow reads the workflow of the request's path in the person's tenant, or
// answers 404: a workflow of another tenant is not found either. The timeline is one
// page (?before= the seq it ends before); the diagram's path and the last decision at
// a gate are read from the whole history, of which only they are kept.
func (c *Console) loadWorkflow(w http.ResponseWriter, r *http.Request, ss *session) (*workflowView, bool) {
	ctx := r.Context()
	tenant, id := ss.person.Tenant, r.PathValue("workflow")
	var before uint64
	if b := r.URL.Query().Get("before"); b != "" {
		n, err := strconv.ParseUint(b, 10, 64)
		if err != nil || n == 0 {
			c.fail(w, r, ss, http.StatusBadRequest, "The page of the timeline asked for (before="+b+") is not a decision's number.")
			return nil, false
		}
		before = n
	}
	st, err := c.e.State(ctx, tenant, id)
	if err != nil {
		c.storeError(w, r, ss, err)
		return nil, false
	}
	v := &workflowView{State: st}
	page, err := c.e.HistoryBefore(ctx, tenant, id, before, timelinePage)
	if err != nil {
		c.storeError(w, r, ss, err)
		return nil, false
	}
	v.Timeline = newTimeline(page)
	var path []transition
	err = c.e.History(ctx, tenant, id, func(en engine.Entry) error {
		d := en.Decision
		if d == nil {
			return nil
		}
		if d.StatusBefore != "" && d.StatusAfter != "" && d.StatusBefore != d.StatusAfter {
			path = append(path, transition{From: d.StatusBefore, To: d.StatusAfter})
		}
		if (d.Kind == "approval" || d.Kind == "resolution") && d.Outcome != engine.Block {
			s := newStep(en)
			v.Decided = &s
		}
		return nil
	})
	if err != nil {
		c.storeError(w, r, ss, err)
		return nil, false
	}
	if v.Verify, err = c.e.Verify(ctx, tenant, id); err != nil {
		v.Verify = store.VerifyReport{Problem: err.Error()}
	}
	v.Artifacts = artifactRows(st)
	if pk, ok := c.packOf(st.Pack); ok {
		v.Diagram = stateDiagram(pk, path, st.Status)
		v.Path = pathOf(pk.initial, path, st.Status)
		// A workflow that ends handed to a person (support's ESCALATED) still shows
		// them what it holds; only a workflow that goes on takes their forms.
		if g, ok := pk.gate(st); ok {
			v.Gate = &g
			if acting := g.actingRoles(ss.person.Roles); len(acting) > 0 && !st.Terminal {
				v.Forms = c.formsFor(pk, st, acting)
			}
			v.Reading = c.reading(ctx, st, v.Forms)
		}
	}
	return v, true
}

// pathOf is the statuses a workflow went through, from initial along path, the latest
// maxPath of them.
func pathOf(initial string, path []transition, current string) []pathStep {
	out := []pathStep{{Status: initial}}
	for _, t := range path {
		out = append(out, pathStep{Status: t.To})
	}
	if len(out) > maxPath {
		out = out[len(out)-maxPath:]
	}
	if last := &out[len(out)-1]; last.Status == current {
		last.Current = true
	}
	return out
}

// artifactRows are the versions of the workflow's artifacts, by type, oldest first.
func artifactRows(st *engine.State) []artifactRow {
	var rows []artifactRow
	for _, typ := range slices.Sorted(maps.Keys(st.Artifacts)) {
		rows = append(rows, versionRows(st, typ)...)
	}
	return rows
}

// versionRows are the versions of one artifact type of st, oldest first, each with the
// version before it.
func versionRows(st *engine.State, typ string) []artifactRow {
	h := st.Artifacts[typ]
	if h == nil {
		return nil
	}
	nums := make([]int, 0, len(h.Versions))
	for k := range h.Versions {
		if n, err := strconv.Atoi(k); err == nil {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	rows := make([]artifactRow, 0, len(nums))
	for i, n := range nums {
		av := h.Versions[strconv.Itoa(n)]
		row := artifactRow{Type: typ, Version: n, Status: av.Status, Hash: av.Ref.Hash, Producer: av.Producer, Recorded: av.RecordedAt, BasedOn: av.BasedOn}
		if i > 0 {
			row.Previous = nums[i-1]
		}
		rows = append(rows, row)
	}
	return rows
}

// requestActor is "type:id" of the actor a recorded request names.
func requestActor(req json.RawMessage) string {
	var r struct {
		Actor struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"actor"`
	}
	if json.Unmarshal(req, &r) != nil || r.Actor.ID == "" {
		return "?"
	}
	return r.Actor.Type + ":" + r.Actor.ID
}

// storeError answers a read that failed: a workflow not in the person's tenant is not
// found; anything else is said as it is.
func (c *Console) storeError(w http.ResponseWriter, r *http.Request, ss *session, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, engine.ErrDecisionNotFound):
		c.fail(w, r, ss, http.StatusNotFound, "There is no such workflow, decision or artifact version in your tenant.")
	case store.Retryable(err):
		c.fail(w, r, ss, http.StatusServiceUnavailable, "The store's database cannot be reached or is busy: try again in a moment.")
	default:
		c.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "console read", slog.String("error", err.Error()))
		c.fail(w, r, ss, http.StatusInternalServerError, "The page could not be read from the store.")
	}
}

// explain shows the rules behind a decision of the person's tenant.
func (c *Console) explain(w http.ResponseWriter, r *http.Request, ss *session) {
	ctx := r.Context()
	id := r.PathValue("id")
	en, err := c.e.Decision(ctx, id)
	if err == nil && (en.Decision == nil || en.Decision.TenantID != ss.person.Tenant) {
		err = engine.ErrDecisionNotFound
	}
	if err != nil {
		c.storeError(w, r, ss, err)
		return
	}
	ex, err := c.e.Explain(ctx, id)
	if err != nil {
		c.storeError(w, r, ss, err)
		return
	}
	pack := en.Decision.Pack
	c.render(w, r, http.StatusOK, "explain.html", c.base(ss, map[string]any{"X": ex, "Pack": pack, "Actor": requestActor(en.Request)}))
}

// diff shows what changed between two versions of an artifact.
func (c *Console) diff(w http.ResponseWriter, r *http.Request, ss *session) {
	ctx := r.Context()
	st, err := c.e.State(ctx, ss.person.Tenant, r.PathValue("workflow"))
	if err != nil {
		c.storeError(w, r, ss, err)
		return
	}
	typ, from, to := r.URL.Query().Get("type"), r.URL.Query().Get("from"), r.URL.Query().Get("to")
	h := st.Artifacts[typ]
	if h == nil || h.Versions[from] == nil || h.Versions[to] == nil {
		c.fail(w, r, ss, http.StatusNotFound, fmt.Sprintf("This workflow has no versions %s and %s of that artifact.", from, to))
		return
	}
	a, b := h.Versions[from], h.Versions[to]
	lines := diffLines(contentLines(a.Content), contentLines(b.Content))
	c.render(w, r, http.StatusOK, "diff.html", c.base(ss, map[string]any{
		"Workflow": st.WorkflowID, "Type": typ, "From": a, "To": b, "Lines": lines, "Changed": changed(lines)}))
}
