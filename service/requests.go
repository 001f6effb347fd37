package service

import (
	"mime"
	"net/http"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine"
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
