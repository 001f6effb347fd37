package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/handoff-dev/handoff/engine"
)

var reasonsCmd = &command{
	name:  "reasons",
	args:  "[--markdown]",
	short: "list the reason codes the bundle's policies can produce",
	long: `Reasons lists every reason code of the bundle, read from the METADATA of the Rego
rules that produce it: the package, the code, the outcome it decides and the rule's
title, with its file and line. A code produced by several rules is listed once per rule.

--markdown prints one table per package, with every outcome a code's rules decide, as
docs/reasons.md shows them (a test keeps docs/reasons.md in step).
With -o json the output is a JSON array of engine.ReasonInfo.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		markdown := fs.Bool("markdown", false, "print Markdown tables, one per package")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) > 0 {
				return usagef("reasons takes no arguments")
			}
			// Compiled at once: a module that does not parse or compile fails the
			// command instead of dropping out of the list.
			dc, err := c.decider(ctx, false)
			if err != nil {
				return err
			}
			reasons := dc.Reasons()
			switch {
			case c.json():
				return writeJSON(c.stdout, reasons)
			case *markdown:
				_, err := io.WriteString(c.stdout, reasonsMarkdown(reasons))
				return err
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PACKAGE\tCODE\tOUTCOME\tTITLE\tRULE")
			for _, r := range reasons {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s:%d\n", r.Package, r.Code, r.Outcome, r.Title, r.File, r.Line)
			}
			return tw.Flush()
		}
	},
}

// engineReasons are the codes the engine produces itself, when no policy decided.
var engineReasons = []engine.ReasonInfo{{
	Package: "engine", Code: "POLICY_TIMEOUT", Outcome: "block",
	Title:       "Policy timeout",
	Description: "The policy did not decide within the evaluation deadline (`Options.EvalTimeout`): fail closed.",
}}

// reasonsMarkdown is one table per package, one row per code: every outcome the code's
// rules decide, and what each rule means. A code one rule produces reads "title:
// description"; a code of several rules lists each as "title (outcome): description".
func reasonsMarkdown(reasons []engine.ReasonInfo) string {
	var b strings.Builder
	all := append(slices.Clone(reasons), engineReasons...)
	for i := 0; i < len(all); {
		pkg := all[i].Package
		fmt.Fprintf(&b, "\n#### %s\n\n| code | outcomes | meaning |\n|---|---|---|\n", pkg)
		for i < len(all) && all[i].Package == pkg {
			j := i
			for j < len(all) && all[j].Package == pkg && all[j].Code == all[i].Code {
				j++
			}
			b.WriteString(reasonRow(all[i:j]))
			i = j
		}
	}
	return b.String()
}

// reasonRow is the table row of the rules of one code.
func reasonRow(rules []engine.ReasonInfo) string {
	var outcomes, meanings []string
	for _, r := range rules {
		o := r.Outcome
		if o == "" {
			o = "block"
		}
		if !slices.Contains(outcomes, o) {
			outcomes = append(outcomes, o)
		}
		m := r.Title + ": " + r.Description
		if len(rules) > 1 {
			m = r.Title + " (" + o + "): " + r.Description
		}
		if !slices.Contains(meanings, m) {
			meanings = append(meanings, m)
		}
	}
	slices.Sort(outcomes)
	for i, m := range meanings {
		meanings[i] = markdownCell(m)
	}
	return fmt.Sprintf("| `%s` | %s | %s |\n", rules[0].Code, strings.Join(outcomes, ", "), strings.Join(meanings, "<br>"))
}

// markdownCell keeps a table cell on one line and its pipes literal.
func markdownCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
