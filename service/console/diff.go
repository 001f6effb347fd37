package console

import (
	"encoding/json"
	"strings"
)

// diffLine is one line of a diff: kept (' '), removed ('-') or added ('+').
type diffLine struct {
	Op   string
	Text string
}

// maxDiffCells bounds the table of the line diff; past it, the versions are shown as
// one removed and one added block.
const maxDiffCells = 4 << 20

// contentLines is an artifact's content as indented JSON with sorted keys, one line per
// element: a stable text to compare.
func contentLines(v map[string]any) []string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the page escapes; here the text stays as the agent wrote it
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return []string{"(content that cannot be shown)"}
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// diffLines is the shortest edit from a to b, line by line (a longest common
// subsequence).
func diffLines(a, b []string) []diffLine {
	n, m := len(a), len(b)
	if n*m > maxDiffCells {
		out := make([]diffLine, 0, n+m)
		for _, l := range a {
			out = append(out, diffLine{"-", l})
		}
		for _, l := range b {
			out = append(out, diffLine{"+", l})
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	out := make([]diffLine, 0, max(n, m))
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{" ", a[i]})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{"-", a[i]})
			i++
		default:
			out = append(out, diffLine{"+", b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, diffLine{"-", a[i]})
	}
	for ; j < m; j++ {
		out = append(out, diffLine{"+", b[j]})
	}
	return out
}

// changed counts the lines a diff removes or adds.
func changed(lines []diffLine) int {
	n := 0
	for _, l := range lines {
		if l.Op != " " {
			n++
		}
	}
	return n
}
