package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/cover"
)

// defaultMinCoverage is the Rego coverage every pack must reach under test --coverage.
const defaultMinCoverage = 90.0

// coverageReport is the JSON form of test --coverage: per policy file and per pack.
type coverageReport struct {
	Min   float64        `json:"min"`
	Packs []coverageUnit `json:"packs"`
	Files []coverageUnit `json:"files"`
}

// coverageUnit is the coverage of one file or pack.
type coverageUnit struct {
	Name       string  `json:"name"`
	Covered    int     `json:"covered_lines"`
	NotCovered int     `json:"not_covered_lines"`
	Coverage   float64 `json:"coverage"`
	// NotCoveredRows lists the rows no test reached (files only).
	NotCoveredRows []string `json:"not_covered_rows,omitempty"`
}

func (u *coverageUnit) compute() {
	if total := u.Covered + u.NotCovered; total > 0 {
		u.Coverage = 100 * float64(u.Covered) / float64(total)
	} else {
		u.Coverage = 100
	}
}

// policyCoverage summarizes OPA's coverage report over the policy files (tests left
// out), grouped by pack: the directory after handoff/ (core, campaign, ...).
func policyCoverage(cov *cover.Cover, modules map[string]*ast.Module, min float64) coverageReport {
	rep := cov.Report(modules)
	out := coverageReport{Min: min, Packs: []coverageUnit{}, Files: []coverageUnit{}}
	packs := map[string]*coverageUnit{}
	for file, fr := range rep.Files {
		if strings.HasSuffix(file, "_test.rego") {
			continue
		}
		u := coverageUnit{Name: file, Covered: fr.CoveredLines, NotCovered: fr.NotCoveredLines}
		for _, r := range fr.NotCovered {
			row := fmt.Sprint(r.Start.Row)
			if r.End.Row != r.Start.Row {
				row = fmt.Sprintf("%d-%d", r.Start.Row, r.End.Row)
			}
			if n := len(u.NotCoveredRows); n == 0 || u.NotCoveredRows[n-1] != row {
				u.NotCoveredRows = append(u.NotCoveredRows, row)
			}
		}
		u.compute()
		out.Files = append(out.Files, u)
		name := packOf(file)
		p := packs[name]
		if p == nil {
			p = &coverageUnit{Name: name}
			packs[name] = p
		}
		p.Covered += fr.CoveredLines
		p.NotCovered += fr.NotCoveredLines
	}
	for _, p := range packs {
		p.compute()
		out.Packs = append(out.Packs, *p)
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Name < out.Files[j].Name })
	sort.Slice(out.Packs, func(i, j int) bool { return out.Packs[i].Name < out.Packs[j].Name })
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

// below lists the packs under the minimum.
func (r coverageReport) below() []string {
	var out []string
	for _, p := range r.Packs {
		if p.Coverage < r.Min {
			out = append(out, fmt.Sprintf("%s %.1f%%", p.Name, p.Coverage))
		}
	}
	return out
}

// print writes the per-file and per-pack table.
func (r coverageReport) print(c *cli) {
	fmt.Fprintln(c.stdout, "\ncoverage")
	t := newTable(c.stdout)
	for _, f := range r.Files {
		rows := ""
		if len(f.NotCoveredRows) > 0 {
			rows = "not covered: " + strings.Join(f.NotCoveredRows, ", ")
		}
		fmt.Fprintf(t, "  %s\t%5.1f%%\t%s\n", f.Name, f.Coverage, rows)
	}
	t.flush()
	t = newTable(c.stdout)
	for _, p := range r.Packs {
		mark := "ok"
		if p.Coverage < r.Min {
			mark = fmt.Sprintf("BELOW %.0f%%", r.Min)
		}
		fmt.Fprintf(t, "pack %s\t%5.1f%%\t%d of %d lines\t%s\n", p.Name, p.Coverage, p.Covered, p.Covered+p.NotCovered, mark)
	}
	t.flush()
}
