package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

var nextCmd = &command{
	name:  "next",
	args:  "--tenant T WORKFLOW",
	short: "what a workflow waits for: who may act and what to send",
	long: `Next says what a workflow of tenant T waits for: who may act in its status (the
agents and human roles the pack's contract puts there, the roles that approve the
status as a stage or resolve an open conflict, and the host), which requests each may
send, and which recorded artifact versions each request must cite, with the full
reference ({id, type, version, hash}) ready to paste and its ${ref:TYPE@N} placeholder.
It ends with the transitions out of the status. A terminal workflow says so.

Everything is derived from the pack's contract tables and the recorded state: the
agents' permissions (tasks, produces, consumes, hands_to, reviews), the roles'
approvals, the actors of each status, the transitions, the artifact contracts
(requires_approval: cite the approved version), the context packages (a handoff's
target) and the pack's required_inputs. An agent reviews the versions awaiting its
review (and the reviewed versions they were made from); otherwise it hands over each
output it has not delivered yet (none recorded, returned, with an open defect, or made
from a version since replaced), in the order it produces them. A person approves the
versions awaiting approval of the types the role approves, with the reports made from
them, or again the versions of the role's last stage approval after an escalation. The
host reports effects' outcomes and may cancel (so may a person; an agent never). The
policy still decides: next never evaluates a request. The support pack's tool gateway
and the assessment pack's enrichment handoffs are not listed yet.

With --server the state is read through the server and the tables are the local
bundle's (the shipped packs): the server must run the same bundle.

With -o json: one JSON object, the engine's Waiting (workflow_id, status, terminal,
parties with their requests and citations, leads).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "the workflow's tenant `T` (required)")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *tenant == "" {
				return usagef("--tenant is required: every read is scoped by tenant")
			}
			if len(args) != 1 {
				return usagef("next takes one WORKFLOW id")
			}
			b, err := c.backend(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeBackend(b, &err)
			st, err := b.State(ctx, *tenant, args[0])
			if err != nil {
				return serverHint(err)
			}
			dc, err := c.tablesOf(ctx, b)
			if err != nil {
				return err
			}
			w, err := dc.Waiting(st)
			if err != nil {
				return withHint(err, "run next with the bundle the workflow was decided with (--bundle DIR)")
			}
			if c.json() {
				return writeJSON(c.stdout, w)
			}
			printWaiting(c.stdout, w)
			return nil
		}
	},
}

// tablesOf returns the compiled bundle whose tables describe the workflows of b: the
// engine's own, or the local bundle's for a server.
func (c *cli) tablesOf(ctx context.Context, b backend) (*engine.Decider, error) {
	if e, ok := b.(*engine.Engine); ok {
		return e.Decider, nil
	}
	return c.decider(ctx, true)
}

// printWaiting writes what a workflow waits for as text.
func printWaiting(w io.Writer, wt *engine.Waiting) {
	fmt.Fprintf(w, "workflow  %s  (tenant %s, pack %s)\n", wt.WorkflowID, wt.TenantID, wt.Pack)
	fmt.Fprintf(w, "status    %s  v%d\n", wt.Status, wt.StateVersion)
	if wt.Terminal {
		fmt.Fprintf(w, "terminal  %s is a terminal status: nothing can happen next\n", wt.Status)
		return
	}
	for _, p := range wt.Parties {
		fmt.Fprintln(w)
		head := p.ID
		switch p.Type {
		case "agent":
			head += "  agent"
		case "human":
			head += "  role"
		case "system":
			head += "  (actor type system)"
		}
		if p.Name != "" {
			head += "  " + p.Name
		}
		if p.Task != "" {
			head += "  task " + p.Task
		}
		fmt.Fprintln(w, head)
		if p.Note != "" {
			fmt.Fprintf(w, "  %s\n", p.Note)
		}
		for _, s := range p.Requests {
			printStep(w, s)
		}
	}
	if len(wt.Leads) > 0 {
		fmt.Fprintln(w, "\nleads to")
		t := newTable(w)
		for _, l := range wt.Leads {
			t.row("  "+l.To, l.On)
		}
		t.flush()
	}
}

// printStep writes one request a party may send, with its citations.
func printStep(w io.Writer, s engine.Step) {
	line := "  " + s.Kind
	switch s.Kind {
	case "handoff":
		line += fmt.Sprintf(" → %s  output %s v%d", s.Target, s.Output, s.Version)
		if s.Supersedes > 0 {
			line += fmt.Sprintf(" (supersedes v%d)", s.Supersedes)
		}
		if len(s.After) > 0 {
			line += "  after " + strings.Join(s.After, ", ")
		}
	case "approval":
		if s.Stage != "" {
			line += "  stage " + s.Stage
		}
	case "failure":
		line += "  task " + s.Task + "  (when it fails: sent by the agent or the host)"
	case "resolution":
		line += "  conflict " + s.ConflictID
	case "outcome":
		line += "  effect " + s.EffectID
	}
	if len(s.Answers) > 0 {
		line += "  " + strings.Join(s.Answers, "|")
	}
	fmt.Fprintln(w, line)
	printCitations(w, s.Field, "cites", s.Cite)
	printCitations(w, s.Field, "may cite", s.MayCite)
}

func printCitations(w io.Writer, field, verb string, cs []engine.Citation) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "    %s in %s:\n", verb, field)
	t := newTable(w)
	for _, c := range cs {
		if c.Ref == nil {
			t.row("      "+c.Type, "-", c.Missing)
			continue
		}
		ref, _ := json.Marshal(c.Ref)
		t.row(fmt.Sprintf("      %s", c.Placeholder), string(ref))
	}
	t.flush()
}
