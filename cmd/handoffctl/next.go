package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
)

var nextCmd = &command{
	name:  "next",
	args:  "--tenant T WORKFLOW [--at TIME]",
	short: "what a workflow waits for: who may act, what to send, and what the policy says of it",
	long: `Next says what a workflow of tenant T waits for: who may act in its status (the
agents and human roles the pack's contract puts there, the roles that approve the
status as a stage or resolve an open conflict, agents that hand work to the one
acting now, and the host), which requests each may send, and which recorded artifact
versions each request must cite, with the full reference ({id, type, version, hash})
ready to paste and its ${ref:TYPE@N} placeholder. It ends with the transitions out of
the status. A terminal workflow lists only what it still takes (the outcome of a
human handoff, for one), or says nothing can happen next.

The steps are derived from the pack's contract tables and the recorded state: the
agents' permissions (tasks, produces, consumes, hands_to, reviews), the roles'
approvals, the actors of each status, the transitions, the artifact contracts
(requires_approval: cite the approved version), the context packages, the pack's
required_inputs, the workflow's task graph (a dispatch of a ready task, the result
of a running one, which restates its recorded assignment) and its effects (the host
reports each outcome not acknowledged). Then each step is put to the policy as a dry
run at the time given (--at TIME, RFC 3339 with a zone; default now), built from the
pack's request template ('handoffctl template') and the step: a step the policy
refuses for who sends it, to whom, what it cites, in which status or order is left
out (-o json lists it under refused, with the reasons); a step refused now but taken
later shows "not before TIME" (a retry not due yet); a step taken with another
outcome says so (a deadline passed escalates; a loop goes to a person). Values the
policy takes with the step are given under "fill" (the workflow's trace and subject,
a failure's retry type, a handoff's type, a field the step needs); a handoff restates
every limitation of the versions it cites. What the request's content says is left
to its sender: the policy still decides every request sent.

With --server the state is read through the server and the tables and policies are
the local bundle's (the shipped packs): the server must run the same bundle.

With -o json: one JSON object, the engine's Waiting (workflow_id, status, terminal,
at, parties with their requests, citations, fill, outcome and reasons, not_before,
and the steps refused; leads).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "the workflow's tenant `T` (required)")
		at := fs.String("at", "", "put the steps to the policy at `TIME` (RFC 3339 with a zone), not now")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if *tenant == "" {
				return usagef("--tenant is required: every read is scoped by tenant")
			}
			if len(args) != 1 {
				return usagef("next takes one WORKFLOW id")
			}
			when := time.Now()
			if *at != "" {
				if when, err = time.Parse(time.RFC3339Nano, *at); err != nil {
					return usagef("--at %q is not an RFC 3339 time with a zone (2026-11-02T09:30:00Z)", *at)
				}
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
			w, err := dc.WaitingAt(ctx, st, when)
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
		return e.Decider(), nil
	}
	return c.decider(ctx, true)
}

// printWaiting writes what a workflow waits for as text.
func printWaiting(w io.Writer, wt *engine.Waiting) {
	fmt.Fprintf(w, "workflow  %s  (tenant %s, pack %s)\n", wt.WorkflowID, wt.TenantID, wt.Pack)
	fmt.Fprintf(w, "status    %s  v%d\n", wt.Status, wt.StateVersion)
	if wt.Terminal {
		if len(wt.Parties) == 0 {
			fmt.Fprintf(w, "terminal  %s is a terminal status: nothing can happen next\n", wt.Status)
			return
		}
		fmt.Fprintf(w, "terminal  %s is a terminal status; it still takes:\n", wt.Status)
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

// printStep writes one request a party may send, with its citations, the values that
// go with it and what the policy says of it.
func printStep(w io.Writer, s engine.Step) {
	line := "  " + s.Kind
	switch s.Kind {
	case "handoff":
		line += " → " + s.Target
		if s.Output != "" {
			line += fmt.Sprintf("  output %s v%d", s.Output, s.Version)
			if s.Supersedes > 0 {
				line += fmt.Sprintf(" (supersedes v%d)", s.Supersedes)
			}
		} else {
			line += "  no output (assigns the task)"
		}
		if s.TaskID != "" {
			line += "  task " + s.TaskID
		}
		if s.Source != "" {
			line += "  on behalf of " + s.Source
		}
		if len(s.After) > 0 {
			line += "  after " + strings.Join(s.After, ", ")
		}
	case "approval":
		if s.Stage != "" {
			line += "  stage " + s.Stage
		}
	case "failure":
		line += "  task " + s.Task + " of " + s.Agent
	case "resolution":
		line += "  conflict " + s.ConflictID
	case "outcome":
		line += "  effect " + s.EffectID
	}
	if len(s.Answers) > 0 {
		line += "  " + strings.Join(s.Answers, "|")
	}
	fmt.Fprintln(w, line)
	if s.NotBefore != "" {
		fmt.Fprintf(w, "    not before %s: %s\n", s.NotBefore, reasonText(s.Reasons))
	} else if s.Outcome != "" {
		fmt.Fprintf(w, "    the policy answers %s now: %s\n", s.Outcome, reasonText(s.Reasons))
	}
	printCitations(w, s.Field, "cites", s.Cite)
	printCitations(w, s.Field, "may cite", s.MayCite)
	if len(s.Limitations) > 0 {
		fmt.Fprintf(w, "    limitations to restate: %s\n", jsonList(s.Limitations))
	}
	if len(s.Restate) > 0 {
		fmt.Fprintf(w, "    restates its assignment: %s\n", strings.Join(sortedKeys(s.Restate), ", "))
	}
	if len(s.Fill) > 0 {
		t := newTable(w)
		fmt.Fprintln(w, "    fill:")
		for _, k := range sortedKeys(s.Fill) {
			v, _ := json.Marshal(s.Fill[k])
			t.row("      "+k, string(v))
		}
		t.flush()
	}
}

// reasonText is the reasons' codes and messages on one line.
func reasonText(rs []engine.Reason) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.Code+" "+r.Message)
	}
	return strings.Join(parts, "; ")
}

func jsonList(l []string) string {
	b, _ := json.Marshal(l)
	return string(b)
}

func printCitations(w io.Writer, field, verb string, cs []engine.Citation) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "    %s in %s:\n", verb, field)
	t := newTable(w)
	for _, c := range cs {
		if c.Ref == nil {
			t.row("      "+c.Type, "- "+c.Missing)
			continue
		}
		ref, _ := json.Marshal(c.Ref)
		t.row(fmt.Sprintf("      %s", c.Placeholder), string(ref), c.Status)
	}
	t.flush()
}
