package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/internal/nearest"
)

var templateCmd = &command{
	name:  "template",
	args:  "PACK KIND [--target AGENT] [--source AGENT] [--output TYPE]",
	short: "print a request skeleton from the pack's CUE contract",
	long: `Template prints a skeleton of a request of kind KIND for pack PACK, walked from the
pack's CUE request definition (#Requests.KIND): every required field with its CUE doc
comment above it and a placeholder value that satisfies the field's constraint (an id
named after the field, "<text>" for free text, the first value of an enumeration, whose
other values the comment lists), workflow_id and trace_id, and a comment that lists the
optional fields left out. Artifact references are "${ref:TYPE@latest}": submit, eval
and validate resolve each to the {id, type, version, hash} of the latest recorded version
of the request's workflow (write ${ref:TYPE@N} to cite another; 'handoffctl next' lists
the versions to cite).

The text form is JSON with // comment lines (JSONC). With -o json: one JSON document,
the same skeleton without comments, which 'handoffctl validate' accepts once, for a
kind other than start, workflow_id names a recorded workflow of the pack (its
${ref:...} placeholders are resolved against it).

For a handoff, --target AGENT makes the skeleton of a handoff to AGENT: source_agent is
the agent that hands to it (--source AGENT chooses when several do), task_type its
task, output the artifact type the source produces for AGENT's edge (its context
package) with the artifact contract's content, and input_artifacts the types that
output requires (the pack's required_inputs, else the approved types the source
consumes). An unknown PACK, KIND or AGENT is a usage error that lists the closest names.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		target := fs.String("target", "", "a handoff to `AGENT`: its source, output and inputs")
		source := fs.String("source", "", "with --target, the handoff's source `AGENT` when several hand to the target")
		output := fs.String("output", "", "with --target, the output `TYPE` when the source hands several to the target")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) != 2 {
				return usagef("template takes a PACK and a request KIND")
			}
			switch {
			case *target != "" && args[1] != "handoff":
				return usagef("--target makes a handoff's skeleton, not a %s's", args[1])
			case *target == "" && (*source != "" || *output != ""):
				return usagef("--source and --output go with --target")
			}
			dc, err := c.decider(ctx, true)
			if err != nil {
				return err
			}
			t, err := dc.Template(args[0], args[1], engine.TemplateOptions{Target: *target, Source: *source, Output: *output})
			if err != nil {
				return templateUsage(err)
			}
			if c.json() {
				_, err := c.stdout.Write(t.JSON())
				return err
			}
			_, err = io.WriteString(c.stdout, t.JSONC())
			return err
		}
	},
}

// templateUsage turns a template that names what the bundle lacks into a usage error
// that lists the closest names.
func templateUsage(err error) error {
	var te *engine.TemplateError
	if !errors.As(err, &te) {
		return err
	}
	msg := te.Msg
	if te.Name != "" {
		msg += nearestNames(te.Name, te.Known)
	}
	return usagef("%s", msg)
}

// nearestNames lists the three names nearest to name, for a usage error.
func nearestNames(name string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; closest: " + strings.Join(nearest.Names(name, names, 3), ", ")
}
