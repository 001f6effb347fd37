package service

import (
	"io"
	"log/slog"
	"net/http"

	"github.com/handoff-dev/handoff"
)

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
