package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/handoff-dev/handoff/engine"
)

var workflowsCmd = &command{
	name:  "workflows",
	args:  "--tenant T [--pack P] [--status S] [--awaiting-human]",
	short: "list a tenant's workflows",
	long: `Workflows lists the workflows of tenant T, in id order, from the store of --store or
through --server: pack, status, state version, when the state last changed, and the
standing outcome (the latest decision that was not a block: await_human when the
workflow waits for a person). --pack and --status keep those of one pack or status;
--awaiting-human keeps those waiting for a person.

With -o json the output is a list of objects: workflow_id, pack, status, terminal,
state_version, updated_at, standing.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "the tenant `T` (required)")
		pack := fs.String("pack", "", "only the workflows of pack `P`")
		status := fs.String("status", "", "only the workflows in status `S`")
		awaiting := fs.Bool("awaiting-human", false, "only the workflows waiting for a person")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *tenant == "" {
				return usagef("--tenant is required: every read is scoped by tenant")
			}
			if len(args) > 0 {
				return usagef("workflows takes no arguments")
			}
			b, err := c.backend(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeBackend(b, &err)
			list, err := b.ListWorkflows(ctx, *tenant, engine.WorkflowFilter{Pack: *pack, Status: *status, AwaitingHuman: *awaiting})
			if err != nil {
				return serverHint(err)
			}
			if c.json() {
				return writeJSON(c.stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(c.stdout, "no workflow")
				return nil
			}
			t := newTable(c.stdout)
			fmt.Fprintln(t, "WORKFLOW\tPACK\tSTATUS\tVERSION\tSTANDING\tUPDATED")
			for _, w := range list {
				fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\n", w.WorkflowID, w.Pack, w.Status, strconv.FormatUint(w.StateVersion, 10), orDash(string(w.Standing)), orDash(w.UpdatedAt))
			}
			t.flush()
			return nil
		}
	},
}
