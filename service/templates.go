package service

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
	"github.com/handoff-dev/handoff/internal/nearest"
)

// template answers a request skeleton of a pack, as handoffctl template -o json. With
// workflow_id, a workflow of the caller's own tenant, it answers the skeleton filled for
// that workflow (scenario.FilledTemplate): a workflow of another tenant is not found,
// whoever asks.
func (h *Handler) template(w http.ResponseWriter, r *http.Request, p *Principal) {
	pack, kind, q := r.PathValue("pack"), r.PathValue("kind"), r.URL.Query()
	opts := engine.TemplateOptions{Target: q.Get("target"), Source: q.Get("source"), Output: q.Get("output")}
	tpl, err := h.e.Decider().Template(pack, kind, opts)
	if err != nil {
		h.templateError(w, r, pack, kind, opts, err)
		return
	}
	wf := q.Get("workflow_id")
	if wf == "" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(tpl.JSON())
		return
	}
	st, err := h.e.State(r.Context(), p.Tenant, wf)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if st.Pack != pack {
		writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest,
			Message: fmt.Sprintf("workflow %s is of pack %s, not %s", wf, st.Pack, pack),
			Hint:    fmt.Sprintf("ask /v1/packs/%s/templates/%s?workflow_id=%s", st.Pack, kind, wf)})
		return
	}
	trace, err := h.traceOf(r, st)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	filled, err := scenario.FillTemplate(r.Context(), tpl.JSON(), st, trace)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, filled)
}

// errFirstEntry stops a read of a workflow's log after its first entry.
var errFirstEntry = errors.New("first entry read")

// traceOf is the workflow's trace: the trace_id its start request named.
func (h *Handler) traceOf(r *http.Request, st *engine.State) (string, error) {
	var trace string
	err := h.e.History(r.Context(), st.TenantID, st.WorkflowID, func(e engine.Entry) error {
		if e.Decision != nil {
			trace = e.Decision.TraceID
		}
		return errFirstEntry
	})
	if err != nil && !errors.Is(err, errFirstEntry) {
		return "", err
	}
	return trace, nil
}

// templateError answers a template the bundle cannot make: an unknown pack or kind (the
// path's) is not found, an unknown agent or output type (the query's) or options that
// do not go together a bad request; the hint names the closest names there are.
func (h *Handler) templateError(w http.ResponseWriter, r *http.Request, pack, kind string, opts engine.TemplateOptions, err error) {
	var te *engine.TemplateError
	if !errors.As(err, &te) {
		h.fail(w, r, err)
		return
	}
	a := handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest, Message: strings.TrimPrefix(te.Error(), "engine: ")}
	_, packKnown := h.e.Decider().Tables(pack)
	if !packKnown || te.Name == kind && te.Name != opts.Target && te.Name != opts.Output {
		a.Status, a.Code = http.StatusNotFound, handoff.CodeNotFound
	}
	switch {
	case te.Name != "" && len(te.Known) > 0:
		a.Hint = "the closest: " + strings.Join(nearest.Names(te.Name, te.Known, 3), ", ")
	case !packKnown:
		a.Hint = "the packs are listed at /v1/packs"
	default:
		a.Hint = "target names the agent a handoff goes to; source and output go with it"
	}
	writeError(w, a)
}
