package console

import (
	"encoding/json"
	"slices"

	"github.com/handoff-dev/handoff/engine"
)

// timelinePage is how many decisions a page of the timeline shows: the latest, and a
// link to those before. A workflow of a thousand decisions opens as fast as one of ten.
const timelinePage = 50

// step is one recorded decision on the timeline.
type step struct {
	Seq      uint64
	Time     string
	Actor    string
	Decision *engine.Decision
	Answer   string // what a person answered at a gate (APPROVE, ...), for an approval
	Comment  string // a person's own words on an approval or a resolution: untrusted text
}

// newStep reads what the timeline shows of a recorded entry.
func newStep(en engine.Entry) step {
	var req struct {
		Actor struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"actor"`
		Decision  string `json:"decision"`
		Comment   string `json:"comment"`
		Rationale string `json:"rationale"`
	}
	s := step{Seq: en.Seq, Time: en.Time, Actor: "?", Decision: en.Decision}
	if json.Unmarshal(en.Request, &req) == nil {
		if req.Actor.ID != "" {
			s.Actor = req.Actor.Type + ":" + req.Actor.ID
		}
		if req.Actor.Type == "human" {
			s.Answer, s.Comment = req.Decision, req.Comment
			if s.Comment == "" {
				s.Comment = req.Rationale
			}
		}
	}
	return s
}

// line is one line of the timeline: a decision, or a run of decisions alike (the same
// actor, kind, outcome and reasons, none with a person's words) folded into one, its
// first and last shown and the rest behind a <details>.
type line struct {
	step         // the first of the run
	Last  step   // the last of the run; the first itself when Count is 1
	Count int    // how many decisions the line stands for
	Run   []step // every decision of a folded run, oldest first
}

// Folded says the line stands for more than one decision.
func (l line) Folded() bool { return l.Count > 1 }

// alike says b repeats a: a run of them says nothing one line does not.
func alike(a, b step) bool {
	da, db := a.Decision, b.Decision
	if da == nil || db == nil || a.Comment != "" || b.Comment != "" || a.Actor != b.Actor || a.Answer != b.Answer {
		return false
	}
	return da.Kind == db.Kind && da.Outcome == db.Outcome && da.StatusBefore == db.StatusBefore &&
		da.StatusAfter == db.StatusAfter && len(da.Events) == 0 && len(db.Events) == 0 &&
		slices.Equal(da.Codes(), db.Codes())
}

// fold turns steps, oldest first, into the timeline's lines.
func fold(steps []step) []line {
	var out []line
	for _, s := range steps {
		if n := len(out); n > 0 && alike(out[n-1].Last, s) {
			l := &out[n-1]
			if l.Count == 1 {
				l.Run = []step{l.step}
			}
			l.Last, l.Count, l.Run = s, l.Count+1, append(l.Run, s)
			continue
		}
		out = append(out, line{step: s, Last: s, Count: 1})
	}
	return out
}

// timeline is a page of a workflow's timeline.
type timeline struct {
	Lines []line
	// Older is the seq to ask for the page before (?before=), 0 when this page starts
	// at the first decision; Newer says a later page exists (the latest is without
	// ?before=), NewerBefore the ?before= of the page just after, 0 for the latest.
	Older       uint64
	Newer       bool
	NewerBefore uint64
	Total       uint64 // the decisions of the whole history
	First, Last uint64 // the seqs this page shows
}

// newTimeline makes the page of the timeline from a page of history.
func newTimeline(p engine.HistoryPage) timeline {
	t := timeline{Total: p.Last}
	steps := make([]step, 0, len(p.Entries))
	for _, en := range p.Entries {
		steps = append(steps, newStep(en))
	}
	t.Lines = fold(steps)
	if len(steps) == 0 {
		return t
	}
	t.First, t.Last = steps[0].Seq, steps[len(steps)-1].Seq
	if t.First > 1 {
		t.Older = t.First
	}
	if t.Last < p.Last {
		t.Newer = true
		if next := t.Last + 1 + timelinePage; next <= p.Last {
			t.NewerBefore = next
		}
	}
	return t
}
