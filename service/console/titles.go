package console

import (
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

// titles name reasons in plain words. A reason carries the METADATA title of the rule
// that produced it; one recorded before reasons carried titles is named by the rules
// that could have produced it, those of its decision's pack and of core that carry its
// code, when they share one title, and otherwise by its code in words. A code means
// different things in different packs and rules ("No assessment rule decides the
// request", "Request out of sequence"): a title is never taken from another pack, nor
// from one of several rules that disagree.
type titles map[string]map[string]map[string]bool // code → owner → the titles of its rules

// newTitles indexes the rules that carry reason codes (engine.Reasons) by code and owner.
func newTitles(rules []engine.ReasonInfo) titles {
	t := titles{}
	for _, r := range rules {
		o, ok := owner(r.Package)
		if !ok || r.Title == "" {
			continue
		}
		if t[r.Code] == nil {
			t[r.Code] = map[string]map[string]bool{}
		}
		if t[r.Code][o] == nil {
			t[r.Code][o] = map[string]bool{}
		}
		t[r.Code][o][r.Title] = true
	}
	return t
}

// owner is who a policy package belongs to, as the engine groups them: "core" for
// handoff.core and the packages under it, the pack's name for handoff.<pack>...
func owner(pkg string) (string, bool) {
	rest, ok := strings.CutPrefix(pkg, "handoff.")
	if !ok {
		return "", false
	}
	o, _, _ := strings.Cut(rest, ".")
	return o, o != ""
}

// of is the title of reason r of a decision of pack ("" for a request routed to no
// pack).
func (t titles) of(pack string, r engine.Reason) string {
	if r.Title != "" {
		return r.Title
	}
	owners := []string{"core"}
	if pack != "" && pack != "core" {
		owners = append(owners, pack)
	}
	var only string
	for _, o := range owners {
		for title := range t[r.Code][o] {
			if only != "" && title != only {
				return words(r.Code)
			}
			only = title
		}
	}
	if only == "" {
		return words(r.Code)
	}
	return only
}
