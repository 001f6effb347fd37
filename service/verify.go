package service

import (
	"net/http"

	"github.com/handoff-dev/handoff/store"
)

func (h *Handler) verify(w http.ResponseWriter, r *http.Request, t string) {
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
