package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/store"
)

func (h *Handler) submit(w http.ResponseWriter, r *http.Request, p *Principal) {
	h.decide(w, r, p, true)
}

func (h *Handler) evaluate(w http.ResponseWriter, r *http.Request, p *Principal) {
	h.decide(w, r, p, false)
}

// noDecision answers an error of the engine the table does not name: no decision could
// be made, and the host treats the request as blocked.
var noDecision = handoff.Error{Status: http.StatusServiceUnavailable, Code: handoff.CodeNoDecision, Message: "no decision could be made",
	Hint: "treat the request as blocked; the server's log has the cause"}

// decide answers a request with its decision: 200 for every decision, a block too; 403
// when the request is not its principal's (the block is recorded in the principal's
// tenant's audit stream and returned with the error); 503 when no decision could be made.
func (h *Handler) decide(w http.ResponseWriter, r *http.Request, p *Principal, record bool) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeError(w, handoff.Error{Status: http.StatusUnsupportedMediaType, Code: handoff.CodeUnsupportedMedia, Message: "a request is sent as application/json", Hint: "set Content-Type: application/json"})
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	start := time.Now()
	var d *engine.Decision
	var err error
	switch {
	case h.opts.InsecureDev && record:
		d, err = h.e.Submit(r.Context(), body)
	case h.opts.InsecureDev:
		d, err = h.e.Evaluate(r.Context(), body)
	case record:
		d, err = h.e.SubmitFrom(r.Context(), body, p.engine())
	default:
		d, err = h.e.EvaluateFrom(r.Context(), body, p.engine())
	}
	if err != nil {
		h.metrics.noDecision.Inc()
		h.failAs(w, r, err, noDecision)
		return
	}
	h.metrics.observeDecision(d, record, time.Since(start))
	if d.IdentityMismatch() {
		msg := "the request is not the authenticated principal's"
		for _, reason := range d.Reasons {
			if reason.Code == handoff.CodeIdentityMismatch {
				msg = reason.Message // names the principal, never what the request claims
				break
			}
		}
		writeError(w, handoff.Error{Status: http.StatusForbidden, Code: handoff.CodeIdentityMismatch, Message: msg,
			Hint: "a token sends requests of its own tenant and actor only, claiming only its roles", Decision: d})
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// tenant returns the call's tenant when the principal may read it; otherwise it answers
// 403 and returns false.
func tenant(w http.ResponseWriter, r *http.Request, p *Principal) (string, bool) {
	t := r.PathValue("tenant")
	if !p.may(t) {
		writeError(w, handoff.Error{Status: http.StatusForbidden, Code: handoff.CodeForbidden, Message: "the token may not read tenant " + t, Hint: "a token reads its own tenant only, unless its principal is an admin"})
		return "", false
	}
	return t, true
}

func (h *Handler) workflows(w http.ResponseWriter, r *http.Request, p *Principal) {
	t, ok := tenant(w, r, p)
	if !ok {
		return
	}
	q := r.URL.Query()
	awaiting := q.Get("awaiting")
	if awaiting != "" && awaiting != "human" {
		writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest, Message: "awaiting must be human", Hint: "awaiting=human lists the workflows that wait for a person"})
		return
	}
	out, err := h.e.ListWorkflows(r.Context(), t, engine.WorkflowFilter{Pack: q.Get("pack"), Status: q.Get("status"), AwaitingHuman: awaiting == "human"})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenant_id": t, "workflows": out})
}

func (h *Handler) state(w http.ResponseWriter, r *http.Request, p *Principal) {
	t, ok := tenant(w, r, p)
	if !ok {
		return
	}
	st, err := h.e.State(r.Context(), t, r.PathValue("workflow"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) history(w http.ResponseWriter, r *http.Request, p *Principal) {
	t, ok := tenant(w, r, p)
	if !ok {
		return
	}
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

func (h *Handler) audit(w http.ResponseWriter, r *http.Request, p *Principal) {
	t, ok := tenant(w, r, p)
	if !ok {
		return
	}
	entries := []engine.Entry{}
	err := h.e.Audit(r.Context(), t, func(e engine.Entry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) { // no audit stream yet: an empty one
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenant_id": t, "entries": entries})
}

func (h *Handler) verify(w http.ResponseWriter, r *http.Request, p *Principal) {
	t, ok := tenant(w, r, p)
	if !ok {
		return
	}
	var reports []store.VerifyReport
	var err error
	if wf := r.URL.Query().Get("workflow"); wf != "" {
		var rep store.VerifyReport
		rep, err = h.e.Verify(r.Context(), t, wf)
		reports = []store.VerifyReport{rep}
	} else {
		reports, err = h.e.VerifyTenant(r.Context(), t)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	allOK := true
	for _, rep := range reports {
		allOK = allOK && rep.OK
	}
	if reports == nil {
		reports = []store.VerifyReport{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenant_id": t, "ok": allOK, "reports": reports})
}

// decisionLog streams a tenant's decisions in OPA's decision-log shape, one JSON object
// per line, from the time of ?since= (RFC 3339) when given.
func (h *Handler) decisionLog(w http.ResponseWriter, r *http.Request, p *Principal) {
	t, ok := tenant(w, r, p)
	if !ok {
		return
	}
	opts := engine.DecisionLogOptions{Tenant: t, Workflow: r.URL.Query().Get("workflow")}
	if s := r.URL.Query().Get("since"); s != "" {
		since, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			writeError(w, handoff.Error{Status: http.StatusBadRequest, Code: handoff.CodeBadRequest, Message: "since must be an RFC 3339 time", Hint: "since=2026-11-02T09:00:00Z; the timestamp of the last event read is the cursor to go on from"})
			return
		}
		opts.Since = since
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	started := false
	err := h.e.DecisionLog(r.Context(), opts, func(ev engine.DecisionLogEvent) error {
		started = true
		if err := enc.Encode(ev); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	})
	switch {
	case err == nil:
	case !started:
		h.fail(w, r, err)
	default:
		// The status is sent; the stream ends short, and the client goes on from the
		// last timestamp it read.
		h.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "decision log cut short", slog.String("error", err.Error()))
	}
}

// decision answers a recorded decision and its log entry, read through the decision-id
// index.
func (h *Handler) decision(w http.ResponseWriter, r *http.Request, p *Principal) {
	ent, err := h.e.Decision(r.Context(), r.PathValue("id"))
	switch {
	case err != nil:
		h.fail(w, r, err)
	case ent.Decision == nil || !p.may(ent.Decision.TenantID):
		writeError(w, handoff.DecisionNotFound)
	default:
		writeJSON(w, http.StatusOK, ent)
	}
}

func (h *Handler) explain(w http.ResponseWriter, r *http.Request, p *Principal) {
	ex, err := h.e.Explain(r.Context(), r.PathValue("id"))
	switch {
	case err != nil:
		h.fail(w, r, err)
	case ex.Decision == nil || !p.may(ex.Decision.TenantID):
		writeError(w, handoff.DecisionNotFound)
	default:
		writeJSON(w, http.StatusOK, ex)
	}
}

// backup streams a full copy of the store: every tenant's, so an admin's only.
func (h *Handler) backup(w http.ResponseWriter, r *http.Request, p *Principal) {
	if !p.Admin {
		writeError(w, handoff.Error{Status: http.StatusForbidden, Code: handoff.CodeForbidden, Message: "a backup holds every tenant: an admin principal's only", Hint: "use a token whose principal has \"admin\": true"})
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="handoff.backup"`)
	fw := &firstWrite{w: w}
	if err := h.e.Backup(r.Context(), fw); err != nil {
		if fw.wrote {
			// The status is sent; a cut stream fails the restore that reads it.
			h.opts.Logger.LogAttrs(r.Context(), slog.LevelError, "backup", slog.String("error", err.Error()))
			return
		}
		w.Header().Del("Content-Disposition")
		h.fail(w, r, err)
	}
}

// firstWrite tells whether anything was written through it.
type firstWrite struct {
	w     io.Writer
	wrote bool
}

func (f *firstWrite) Write(p []byte) (int, error) {
	f.wrote = true
	return f.w.Write(p)
}

func (h *Handler) packs(w http.ResponseWriter, r *http.Request, _ *Principal) {
	writeJSON(w, http.StatusOK, map[string]any{"bundle_digest": h.e.BundleDigest(), "packs": h.e.Packs()})
}

// contract answers one pack's contract tables as exported from its CUE (the data its
// Rego reads): agents and what each produces, artifact contracts and their fields,
// context packages, limits, the workflow. Hosts derive their agents' tools from it.
func (h *Handler) contract(w http.ResponseWriter, r *http.Request, _ *Principal) {
	pack := r.PathValue("pack")
	tables, ok := h.e.Tables(pack)
	if !ok {
		writeError(w, handoff.Error{Status: http.StatusNotFound, Code: handoff.CodeNotFound, Message: fmt.Sprintf("no pack %q", pack), Hint: "the packs are listed at /v1/packs"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"bundle_digest": h.e.BundleDigest(), "pack": pack, "tables": tables})
}

func (h *Handler) reasons(w http.ResponseWriter, r *http.Request, _ *Principal) {
	writeJSON(w, http.StatusOK, map[string]any{"bundle_digest": h.e.BundleDigest(), "reasons": h.e.Reasons()})
}

func (h *Handler) health(w http.ResponseWriter, _ *http.Request, _ *Principal) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// healthReady answers 200 when the store can record a decision (storeReady).
func (h *Handler) healthReady(w http.ResponseWriter, r *http.Request, _ *Principal) {
	h.storeReady(w, r)
}
