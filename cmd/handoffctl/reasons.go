package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
)

var reasonsCmd = &command{
	name:  "reasons",
	args:  "[--markdown]",
	short: "list the reason codes the bundle's policies can produce",
	long: `Reasons lists every reason code of the bundle, read from the METADATA of the Rego
rules that produce it: the package, the code, the outcome it decides and the rule's
title, with its file and line. A code produced by several rules is listed once per rule.

--markdown prints one table per package, as the README's reason-code section shows them.
With -o json the output is a JSON array of engine.ReasonInfo.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		markdown := fs.Bool("markdown", false, "print Markdown tables, one per package")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) > 0 {
				return usagef("reasons takes no arguments")
			}
			e, err := c.open(ctx, memoryStore)
			if err != nil {
				return err
			}
			defer closeEngine(e, &err)
			reasons := e.Reasons()
			switch {
			case c.json():
				return writeJSON(c.stdout, reasons)
			case *markdown:
				pkg := ""
				seen := map[string]bool{}
				for _, r := range reasons {
					if r.Package != pkg {
						pkg = r.Package
						fmt.Fprintf(c.stdout, "\n#### %s\n\n| code | outcome | meaning |\n|---|---|---|\n", pkg)
					}
					key := pkg + "/" + r.Code
					if seen[key] {
						continue
					}
					seen[key] = true
					outcome := r.Outcome
					if outcome == "" {
						outcome = "block"
					}
					fmt.Fprintf(c.stdout, "| `%s` | %s | %s |\n", r.Code, outcome, markdownCell(r.Title+": "+r.Description))
				}
				return nil
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

// markdownCell keeps a table cell on one line and its pipes literal.
func markdownCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
