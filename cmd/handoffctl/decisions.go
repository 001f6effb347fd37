package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/handoff-dev/handoff/engine"
)

var decisionsCmd = &command{
	name:  "decisions",
	args:  "export [--tenant T] [--workflow W] [--since TIME] [--out FILE]",
	short: "export recorded decisions as an OPA decision log (JSON lines)",
	long: `Decisions export writes every recorded decision of the store of --store as JSON lines in
the shape of OPA decision-log events, so tools that read OPA decision logs read them:

  {"labels": {"id": "handoff", "tenant_id", "workflow_id", "pack", "trace_id",
              "request_id"},
   "decision_id", "bundles": {"handoff": {"revision": BUNDLE_DIGEST}},
   "path": "handoff/campaign/decision",
   "input": {"pack", "request", "validation", "state", "derived", "now"},
   "result": DECISION, "erased": [JSON pointers], "timestamp": DECIDED_AT,
   "custom": {"stream": "workflow"|"audit", "seq", "hash"}}

The input is the one the policy evaluated: the recorded request, validation, derived
values and time, with the workflow state before the decision rebuilt by folding the
recorded decisions (null for the security audit streams). Fields a pack marks
sensitive (its table sensitive_fields, request paths such as
output.content.research_log) are removed from the request and, for output content,
from the recorded artifact versions and the decision's events; "erased" lists them.

--tenant, --workflow (no audit streams then) and --since TIME (RFC 3339 or YYYY-MM-DD)
narrow the export. --out FILE writes the file crash-safely (temporary file, fsync,
rename) instead of standard output. A long export shows on a terminal how many
decisions it has written (not when they are written to that terminal).

The output is always JSON lines (NDJSON: one event object per line), with or without
-o json: it streams.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "export only tenant `T`")
		workflow := fs.String("workflow", "", "export only workflow `W`")
		since := fs.String("since", "", "export only decisions recorded at or after `TIME`")
		out := fs.String("out", "", "write to `FILE` instead of standard output")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) != 1 || args[0] != "export" {
				return usagef("decisions takes the subcommand export")
			}
			opts := engine.DecisionLogOptions{Tenant: *tenant, Workflow: *workflow}
			if *since != "" {
				t, err := parseSince(*since)
				if err != nil {
					return usagef("--since %q: want RFC 3339 (2026-11-02T09:00:00Z) or a date (2026-11-02)", *since)
				}
				opts.Since = t
			}
			if c.server != "" && *tenant == "" {
				return usagef("decisions export through --server needs --tenant: a token reads its tenant")
			}
			e, err := c.backend(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeBackend(e, &err)
			export := func(w io.Writer) (int, error) {
				// Progress, unless the lines themselves go to the terminal it is drawn on.
				p := &progress{}
				if *out != "" || !isTerminal(c.stdout) {
					p = c.startProgress("decisions exported", 0)
				}
				defer p.finish()
				bw := bufio.NewWriter(w)
				n := 0
				err := e.DecisionLog(ctx, opts, func(ev engine.DecisionLogEvent) error {
					n++
					p.step(1)
					return writeJSONLine(bw, ev)
				})
				if err != nil {
					return n, err
				}
				return n, bw.Flush()
			}
			if *out == "" {
				_, err := export(c.stdout)
				return err
			}
			n, err := exportFile(*out, export)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "%s written to %s\n", count(n, "decision"), *out)
			return nil
		}
	},
}

// exportFile streams into a temporary file beside file, then syncs and renames it.
func exportFile(file string, write func(io.Writer) (int, error)) (n int, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if n, err = write(tmp); err != nil {
		return n, err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return n, err
	}
	if err = tmp.Sync(); err != nil {
		return n, err
	}
	if err = tmp.Close(); err != nil {
		return n, err
	}
	if err = os.Rename(tmp.Name(), file); err != nil {
		return n, err
	}
	if d, derr := os.Open(filepath.Dir(file)); derr == nil {
		_ = d.Sync()
		d.Close()
	}
	return n, nil
}
