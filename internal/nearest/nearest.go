// Package nearest finds the names nearest to a mistyped one, for an error that says
// what was meant: handoffctl's usage errors and the HTTP API's hints share it.
package nearest

import (
	"slices"
	"sort"
)

// Names returns at most n of names, nearest to name by Distance first (in their order
// among equals). names is left as it is.
func Names(name string, names []string, n int) []string {
	sorted := slices.Clone(names)
	sort.SliceStable(sorted, func(i, j int) bool {
		return Distance(name, sorted[i]) < Distance(name, sorted[j])
	})
	if len(sorted) > n {
		sorted = sorted[:n]
	}
	return sorted
}

// Distance is the Damerau–Levenshtein distance (with adjacent transpositions) between
// a and b, in bytes.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
