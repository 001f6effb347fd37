package service

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
)

// decisionLog streams a tenant's decisions in OPA's decision-log shape, one JSON object
// per line, from the time of ?since= (RFC 3339) when given.
func (h *Handler) decisionLog(w http.ResponseWriter, r *http.Request, t string) {
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
