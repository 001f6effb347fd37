package main

import (
	"fmt"
	"strings"

	"github.com/handoff-dev/handoff/engine/bundle"
)

// printCoverage writes the per-file and per-pack table.
func printCoverage(c *cli, r bundle.CoverageReport) {
	fmt.Fprintln(c.stdout, "\ncoverage")
	t := newTable(c.stdout)
	for _, f := range r.Files {
		rows := ""
		if len(f.NotCoveredRows) > 0 {
			rows = "\tnot covered: " + strings.Join(f.NotCoveredRows, ", ")
		}
		fmt.Fprintf(t, "  %s\t%5.1f%%%s\n", f.Name, f.Coverage, rows)
	}
	t.flush()
	t = newTable(c.stdout)
	for _, p := range r.Packs {
		mark := "ok"
		if p.Coverage < r.Min {
			mark = fmt.Sprintf("BELOW %.0f%%", r.Min)
		}
		fmt.Fprintf(t, "pack %s\t%5.1f%%\t%d of %s\t%s\n", p.Name, p.Coverage, p.Covered, count(p.Covered+p.NotCovered, "line"), mark)
	}
	t.flush()
}
