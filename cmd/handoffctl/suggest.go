package main

import (
	"flag"
	"strings"

	"github.com/handoff-dev/handoff/internal/nearest"
)

// closest returns the candidate nearest to word by edit distance, or "" when none is
// near enough to be what was meant: at most a third of the word's length wrong (and
// at least one edit allowed, but not every letter), or word a prefix of exactly one candidate.
func closest(word string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := nearest.Distance(strings.ToLower(word), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" && bestDist <= max(1, len(word)/3) && bestDist < len(word) {
		return best
	}
	var prefixed []string
	for _, c := range candidates {
		if len(word) >= 2 && strings.HasPrefix(c, word) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// commandNames lists every command's name, for suggestions.
func commandNames() []string {
	names := make([]string, 0, len(commands)+1)
	for _, c := range commands {
		names = append(names, c.name)
	}
	return append(names, "help")
}

// flagNames lists the flags a flag set defines.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// undefinedFlag reads the name of the flag in a "flag provided but not defined" error
// of package flag, and finds it in args as typed (with its dashes, without a value).
func undefinedFlag(err error, args []string) (typed, name string, ok bool) {
	const prefix = "flag provided but not defined: -"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", "", false
	}
	name = strings.TrimPrefix(msg, prefix)
	for _, a := range args {
		if a == "--" {
			break
		}
		bare, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && bare == name {
			typed, _, _ = strings.Cut(a, "=")
			return typed, name, true
		}
	}
	return "-" + name, name, true
}

// dashed writes a flag name as the help writes it: -o, --tenant.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
