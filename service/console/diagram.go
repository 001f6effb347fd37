package console

import (
	"fmt"
	"html/template"
	"slices"
	"strings"
)

// Layout of the state diagram: the statuses stacked in the contract's order, each
// transition an arc beside them, forward ones on the right and backward ones on the
// left, so that no arc crosses a status.
const (
	boxW, boxH = 220, 28
	rowH       = 42
	boxX       = 210
	top        = 16
	maxBend    = 190
)

// stateDiagram draws the pack's state machine as SVG: the statuses, every transition,
// the transitions path took (highlighted) and the current status.
func stateDiagram(p *pack, path []transition, current string) template.HTML {
	index := map[string]int{}
	for i, s := range p.statuses {
		index[s] = i
	}
	taken := map[[2]string]bool{}
	visited := map[string]bool{p.initial: true}
	for _, t := range path {
		taken[[2]string{t.From, t.To}] = true
		visited[t.From], visited[t.To] = true, true
	}
	height := top*2 + len(p.statuses)*rowH
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="diagram" viewBox="0 0 %d %d" role="img" aria-label="state machine" xmlns="http://www.w3.org/2000/svg">`, boxX*2+boxW, height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>`)
	// Arcs first, so that the boxes sit on top of them; the taken ones last of all.
	type arc struct {
		t     transition
		taken bool
	}
	seen := map[[2]string]bool{}
	var arcs []arc
	for _, t := range p.transitions {
		k := [2]string{t.From, t.To}
		_, okFrom := index[t.From]
		_, okTo := index[t.To]
		if seen[k] || !okFrom || !okTo || t.From == t.To {
			continue
		}
		seen[k] = true
		arcs = append(arcs, arc{t, taken[k]})
	}
	slices.SortStableFunc(arcs, func(a, b arc) int {
		switch {
		case a.taken == b.taken:
			return 0
		case a.taken:
			return 1
		}
		return -1
	})
	for _, a := range arcs {
		i, j := index[a.t.From], index[a.t.To]
		y1, y2 := centerY(i), centerY(j)
		bend := min(maxBend, 24+14*abs(j-i))
		x := boxX + boxW
		if j < i {
			x, bend = boxX, -bend
		}
		class := "edge"
		if a.taken {
			class = "edge taken"
		}
		fmt.Fprintf(&b, `<path class="%s" d="M%d,%d C%d,%d %d,%d %d,%d" marker-end="url(#arrow)"><title>%s → %s: %s</title></path>`,
			class, x, y1, x+bend, y1, x+bend, y2, x, y2, esc(a.t.From), esc(a.t.To), esc(a.t.On))
	}
	for i, s := range p.statuses {
		class := "status"
		switch {
		case s == current:
			class += " current"
		case visited[s]:
			class += " visited"
		}
		if slices.Contains(p.terminal, s) {
			class += " terminal"
		}
		y := top + i*rowH
		fmt.Fprintf(&b, `<g class="%s" data-status="%s"><rect x="%d" y="%d" width="%d" height="%d" rx="6"/><text x="%d" y="%d">%s</text></g>`,
			class, esc(s), boxX, y, boxW, boxH, boxX+boxW/2, y+boxH/2+5, esc(s))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every name in it went through esc
}

func centerY(i int) int { return top + i*rowH + boxH/2 }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// esc escapes text for SVG markup.
func esc(s string) string { return template.HTMLEscapeString(s) }
