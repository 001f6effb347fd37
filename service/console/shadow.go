package console

import (
	"net/http"
	"slices"

	"github.com/handoff-dev/handoff/engine"
)

// shadowPageSize is how many disagreements the shadow page shows, newest first.
const shadowPageSize = 200

// ShowShadow serves /console/shadow: the decisions of the signed-in person's tenant that
// the server's shadow bundle would decide otherwise, newest first, the live decision
// beside the candidate's, to the tenant's administrators (a principal with "admin":
// true) only. With s nil the page says the server runs no shadow bundle.
func (c *Console) ShowShadow(s *engine.Shadow) {
	c.mux.HandleFunc("GET /console/shadow", c.person(func(w http.ResponseWriter, r *http.Request, ss *session) {
		c.shadowPage(w, r, ss, s)
	}))
}

// shadowRow is one disagreement as the page shows it: the live decision, then the
// candidate's, their reasons titled.
type shadowRow struct {
	engine.ShadowDisagreement
	Sides []engine.ShadowSide
}

func (c *Console) titledSide(pack string, s engine.ShadowSide) engine.ShadowSide {
	rs := make([]engine.Reason, len(s.Reasons))
	for i, r := range s.Reasons {
		r.Title = c.titles().of(pack, r)
		rs[i] = r
	}
	s.Reasons = rs
	return s
}

func (c *Console) shadowPage(w http.ResponseWriter, r *http.Request, ss *session, s *engine.Shadow) {
	if !ss.person.Admin {
		c.fail(w, r, ss, http.StatusForbidden, "The shadow bundle's disagreements are shown to your tenant's administrators only.")
		return
	}
	data := map[string]any{"PageTitle": "Shadow bundle", "Running": s != nil}
	if s == nil {
		c.render(w, r, http.StatusOK, "shadow.html", c.base(ss, data))
		return
	}
	var rows []shadowRow
	err := s.Disagreements(ss.person.Tenant, "", func(d engine.ShadowDisagreement) error {
		rows = append(rows, shadowRow{ShadowDisagreement: d, Sides: []engine.ShadowSide{c.titledSide(d.Pack, d.Live), c.titledSide(d.Pack, d.Candidate)}})
		return nil
	})
	if err != nil {
		c.opts.Logger.Error("console: shadow log", "error", err)
		c.fail(w, r, ss, http.StatusInternalServerError, "The shadow log could not be read.")
		return
	}
	slices.Reverse(rows)
	data["Total"] = len(rows)
	if len(rows) > shadowPageSize {
		rows = rows[:shadowPageSize]
	}
	// The counters are every tenant's: the page shows the bundles only.
	st := s.Stats()
	data["Rows"], data["Candidate"], data["Live"], data["Promoted"] = rows, st.CandidateDigest, st.LiveDigest, !st.Running
	c.render(w, r, http.StatusOK, "shadow.html", c.base(ss, data))
}
