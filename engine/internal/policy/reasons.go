package policy

import (
	"sort"
	"strings"
)

// ReasonInfo documents one reason code as a policy rule's METADATA declares it.
type ReasonInfo struct {
	Code        string `json:"code"`
	Package     string `json:"package"` // handoff.core, handoff.campaign, ...
	Title       string `json:"title"`
	Description string `json:"description"`
	Outcome     string `json:"outcome,omitempty"` // custom.outcome, when the rule declares it
	File        string `json:"file"`
	Line        int    `json:"line"`
}

// Reasons lists the reason codes of the bundle's policies: one entry per rule whose
// METADATA carries custom.code, sorted by package, then code, then file and line. With
// lazy compilation, a module that does not parse is left out.
func (cp *Policies) Reasons() []ReasonInfo {
	var out []ReasonInfo
	modules, _ := cp.Modules()
	for _, m := range modules {
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		for _, a := range m.Annotations {
			code, ok := a.Custom["code"].(string)
			if !ok {
				continue
			}
			info := ReasonInfo{Code: code, Package: pkg, Title: a.Title, Description: strings.Join(strings.Fields(a.Description), " ")}
			info.Outcome, _ = a.Custom["outcome"].(string)
			if a.Location != nil {
				info.File, info.Line = a.Location.File, a.Location.Row
			}
			out = append(out, info)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return out
}
