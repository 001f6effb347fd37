package main

import (
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUsageListsEveryFlag holds each command's synopsis to its flags: a flag the usage
// line does not name is one a user never learns of from an error.
func TestUsageListsEveryFlag(t *testing.T) {
	for _, cmd := range commands {
		c := &cli{output: "text"}
		fs := newFlagSet(cmd, c)
		cmd.setup(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if globalFlags[f.Name] {
				return
			}
			mention := regexp.MustCompile(`(^|[\s\[|(])` + regexp.QuoteMeta(dashed(f.Name)) + `($|[\s\]|)=])`)
			assert.Truef(t, mention.MatchString(cmd.args), "handoffctl %s: the usage line %q does not name %s", cmd.name, cmd.args, dashed(f.Name))
		})
	}
}

// TestHelpSaysJSONShape holds each command's help to saying what -o json prints: one
// JSON document, or a stream of them, one per line.
func TestHelpSaysJSONShape(t *testing.T) {
	for _, cmd := range commands {
		long := strings.Join(strings.Fields(cmd.long), " ")
		assert.Regexpf(t, `(?i)-o json`, long, "handoffctl %s: the help does not say what -o json prints", cmd.name)
	}
}
