package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/handoff-dev/handoff/engine"
)

var explainCmd = &command{
	name:  "explain",
	args:  "DECISION_ID [--passed] [--bundle CANDIDATE [--recorded DIR]]",
	short: "explain a recorded decision: rules, METADATA and the input they read",
	long: `Explain finds a recorded decision by its id in the store of --store and evaluates its
request again, traced, on the input recorded for it and the workflow state before it
(rebuilt as replay rebuilds it). For each reason it shows the Rego rule that produced
it: file and line, the title and description of its METADATA, and the input values the
rule read (directly or through the package's helper rules). For a decision without
reasons (an allow), it lists the rules that were checked and did not fire; --passed
lists them for every decision.

A decision of a security audit stream was blocked by the engine before any workflow
was loaded: its reasons are explained from the rules that carry their codes. So is a
decision whose request the log holds redacted (it carried a secret or personal data):
it cannot be evaluated again; the redacted request recorded is shown, with the codes
that required the redaction and the SHA-256 of the original.

With --bundle CANDIDATE, explain shows the candidate's decision instead of the
recorded one: the request decided again by the candidate bundle on the recorded input,
as replay decides it, explained with the candidate's rules; the header says so and
shows the recorded outcome and reasons beside it, and "reproduced" says whether the
candidate decides as recorded. The log is read with the bundle of --recorded (default:
the shipped packs), the one it was recorded with; through --server, from a backup of
the server's log (an admin token's), as replay reads it. A record no bundle can decide
again (redacted, or of an audit stream) is explained as recorded.

With -o json the output is one object: decision, entrypoint, reasons (each reason with
rules: code, package, title, description, file, line, inputs: path, value, missing),
passed (rules) and reproduced; for a redacted record also redaction (codes, marker,
kept, replaced, request_digest, body_sha256, stub) and request (the redacted copy);
with --bundle also candidate (true when decision is the candidate's) and recorded (the
decision the log holds).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		passed := fs.Bool("passed", false, "list the rules that were checked and passed, whatever the outcome")
		recorded := fs.String("recorded", "", "with --bundle CANDIDATE: the bundle `DIR` the log was recorded with (default: the shipped packs)")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) != 1 {
				return usagef("explain takes one DECISION_ID (handoffctl log shows them)")
			}
			if c.bundle.set {
				return c.explainCandidate(ctx, args[0], *recorded, *passed)
			}
			if *recorded != "" {
				return usagef("--recorded names the log's bundle when --bundle names a candidate")
			}
			e, err := c.backend(ctx, existingStore)
			if err != nil {
				return err
			}
			defer closeBackend(e, &err)
			ex, err := e.Explain(ctx, args[0])
			if err != nil {
				return withHint(err, "decision ids are in 'handoffctl -o json log --tenant T WORKFLOW' (and --audit)")
			}
			return c.explained(ex, *passed, "recorded")
		}
	},
}

// explainCandidate explains the decision the bundle of --bundle makes on the input
// recorded for decision id, the log read with the bundle of recorded.
func (c *cli) explainCandidate(ctx context.Context, id, recorded string, passed bool) (err error) {
	cand, err := c.decider(ctx, true)
	if err != nil {
		return err
	}
	e, done, err := c.recordedLog(ctx, recorded)
	if err != nil {
		return err
	}
	defer done(&err)
	ex, err := e.ExplainCandidate(ctx, cand, id)
	if err != nil {
		return withHint(err, "the log is read with --recorded DIR (default: the shipped packs): name the bundle it was recorded with; decision ids are in 'handoffctl -o json log --tenant T WORKFLOW'")
	}
	if !ex.Candidate {
		return c.explained(ex, passed, "recorded: the candidate cannot decide it again")
	}
	return c.explained(ex, passed, "the candidate's: decided again by bundle "+c.bundle.value+" on the recorded input")
}

// explained prints an explanation.
// which, when set, says whose decision it is: the recorded one or a candidate's.
func (c *cli) explained(ex *engine.Explanation, passed bool, which string) error {
	if c.json() {
		return writeJSON(c.stdout, ex)
	}
	w := c.stdout
	d := ex.Decision
	if which != "" {
		fmt.Fprintf(w, "decision   %s  (%s)\n", orDash(d.DecisionID), which)
	} else {
		fmt.Fprintf(w, "decision   %s\n", orDash(d.DecisionID))
	}
	if r := ex.Recorded; ex.Candidate && r != nil {
		codes := ""
		if len(r.Reasons) > 0 {
			codes = "  " + strings.Join(r.Codes(), ", ")
		}
		fmt.Fprintf(w, "recorded   %s  %s → %s%s\n", upper(r.Outcome), r.StatusBefore, r.StatusAfter, codes)
	}
	fmt.Fprintf(w, "outcome    %s\n", upper(d.Outcome))
	fmt.Fprintf(w, "request    %s  (%s)  tenant %s  workflow %s\n", orDash(d.RequestID), orDash(d.Kind), orDash(d.TenantID), orDash(d.WorkflowID))
	fmt.Fprintf(w, "status     %s → %s\n", d.StatusBefore, d.StatusAfter)
	fmt.Fprintf(w, "policy     %s\n", orDash(ex.Entrypoint))
	switch {
	case ex.Redaction != nil:
		fmt.Fprintf(w, "redacted   %s: the log holds the request redacted, so it is not evaluated again;\n", strings.Join(ex.Redaction.Codes, ", "))
		fmt.Fprintf(w, "           the rules below carry the recorded codes. Original %s\n", ex.Redaction.RequestDigest)
		fmt.Fprintf(w, "recorded   %s\n", ex.Request)
	case ex.Candidate && ex.Reproduced:
		fmt.Fprintln(w, "reproduced yes: the candidate decides as recorded")
	case ex.Candidate:
		fmt.Fprintln(w, "reproduced no: the candidate decides the recorded input differently")
	case ex.Reproduced:
		fmt.Fprintln(w, "reproduced yes")
	default:
		fmt.Fprintln(w, "reproduced no: this bundle decides the recorded input differently")
	}
	for _, r := range ex.Reasons {
		fmt.Fprintln(w)
		head := r.Code
		if r.Gate != "" {
			head += " [" + r.Gate + "]"
		}
		if r.Path != "" {
			head += "  " + r.Path
		}
		fmt.Fprintln(w, head)
		if r.Message != "" {
			fmt.Fprintf(w, "  %s\n", r.Message)
		}
		if len(r.Rules) == 0 {
			fmt.Fprintln(w, "  no rule: the engine decided it (the policy could not)")
		}
		for _, rule := range r.Rules {
			fmt.Fprintf(w, "  rule %s:%d  %s\n", rule.File, rule.Line, rule.Package)
			fmt.Fprintf(w, "    %s\n", rule.Title)
			if rule.Description != "" {
				fmt.Fprintf(w, "    %s\n", rule.Description)
			}
			for _, in := range rule.Inputs {
				if in.Missing {
					fmt.Fprintf(w, "    %s  (undefined)\n", in.Path)
				} else {
					fmt.Fprintf(w, "    %s = %s\n", in.Path, in.Value)
				}
			}
		}
	}
	if len(ex.Reasons) == 0 || passed {
		fmt.Fprintf(w, "\nchecked and passed (%s)\n", count(len(ex.Passed), "rule"))
		for _, p := range ex.Passed {
			fmt.Fprintf(w, "  %-28s %s:%d  %s\n", p.Code, p.File, p.Line, p.Title)
		}
	}
	return nil
}

// explainEval is eval --explain.
func explainEval(ctx context.Context, c *cli, e *engine.Engine, body []byte, failOnBlock bool) error {
	ex, err := e.EvaluateExplain(ctx, body)
	if err != nil {
		return err
	}
	if err := c.explained(ex, false, ""); err != nil {
		return err
	}
	if failOnBlock && ex.Decision.Outcome == engine.Block {
		return negativef("the request was blocked: %s", strings.Join(ex.Decision.Codes(), ", "))
	}
	return nil
}
