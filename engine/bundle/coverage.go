package bundle

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
)

// DefaultMinCoverage is the Rego coverage every pack must reach, in percent.
const DefaultMinCoverage = 90.0

// CoverageReport is the Rego coverage of a test run, per policy file and per pack, and
// the minimum every pack must reach.
type CoverageReport struct {
	Min   float64        `json:"min"`
	Packs []CoverageUnit `json:"packs"`
	Files []CoverageUnit `json:"files"`
}

// CoverageUnit is the coverage of one file or pack: Coverage is in percent, 100 when
// it has no line.
type CoverageUnit struct {
	Name       string  `json:"name"`
	Covered    int     `json:"covered_lines"`
	NotCovered int     `json:"not_covered_lines"`
	Coverage   float64 `json:"coverage"`
	// NotCoveredRows lists the rows no test reached (files only).
	NotCoveredRows []string `json:"not_covered_rows,omitempty"`
}

func (u *CoverageUnit) compute() {
	if total := u.Covered + u.NotCovered; total > 0 {
		u.Coverage = 100 * float64(u.Covered) / float64(total)
	} else {
		u.Coverage = 100
	}
}

// policyCoverage summarizes OPA's coverage report over the policy files (tests left
// out), grouped by pack: the directory after handoff/ (core, campaign, ...). With packs,
// only the files of those packs are reported.
func policyCoverage(cov *cover.Cover, modules map[string]*ast.Module, min float64, packs []string) CoverageReport {
	rep := cov.Report(modules)
	out := CoverageReport{Min: min, Packs: []CoverageUnit{}, Files: []CoverageUnit{}}
	byPack := map[string]*CoverageUnit{}
	for file, fr := range rep.Files {
		name := packOf(file)
		if isTestFile(file) || len(packs) > 0 && !slices.Contains(packs, name) {
			continue
		}
		u := CoverageUnit{Name: file, Covered: fr.CoveredLines, NotCovered: fr.NotCoveredLines}
		u.NotCoveredRows = rowRanges(fr.NotCovered)
		u.compute()
		out.Files = append(out.Files, u)
		p := byPack[name]
		if p == nil {
			p = &CoverageUnit{Name: name}
			byPack[name] = p
		}
		p.Covered += fr.CoveredLines
		p.NotCovered += fr.NotCoveredLines
	}
	for _, p := range byPack {
		p.compute()
		out.Packs = append(out.Packs, *p)
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Name < out.Files[j].Name })
	sort.Slice(out.Packs, func(i, j int) bool { return out.Packs[i].Name < out.Packs[j].Name })
	return out
}

// rowRanges writes the rows of ranges as "3", "5-9": overlapping and adjacent ranges
// merged into one, in order.
func rowRanges(ranges []cover.Range) []string {
	type span struct{ from, to int }
	spans := make([]span, 0, len(ranges))
	for _, r := range ranges {
		spans = append(spans, span{r.Start.Row, max(r.Start.Row, r.End.Row)})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(a.from-b.from, a.to-b.to) })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.from <= merged[n-1].to+1 {
			merged[n-1].to = max(merged[n-1].to, s.to)
			continue
		}
		merged = append(merged, s)
	}
	var out []string
	for _, s := range merged {
		if s.from == s.to {
			out = append(out, fmt.Sprint(s.from))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", s.from, s.to))
		}
	}
	return out
}

// packOf names the pack of a policy file: the directory after handoff/, else the file's
// directory.
func packOf(file string) string {
	parts := strings.Split(filepath.ToSlash(file), "/")
	for i, p := range parts {
		if p == "handoff" && i+2 < len(parts) {
			return parts[i+1]
		}
	}
	return filepath.Dir(file)
}

// Below lists the packs under the minimum, each as "NAME PERCENT%".
func (r CoverageReport) Below() []string {
	var out []string
	for _, p := range r.Packs {
		if p.Coverage < r.Min {
			out = append(out, fmt.Sprintf("%s %.1f%%", p.Name, p.Coverage))
		}
	}
	return out
}

// isTestFile says whether a file holds tests rather than policies.
func isTestFile(path string) bool { return strings.HasSuffix(path, "_test.rego") }
