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
	args:  "DECISION_ID [--passed]",
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

The bundle of --bundle must be the one the decision was recorded with; "reproduced:
no" says it is not (or the store was altered: handoffctl verify).

With -o json the output is one object: decision, entrypoint, reasons (each reason with
rules: code, package, title, description, file, line, inputs: path, value, missing),
passed (rules) and reproduced; for a redacted record also redaction (codes, marker,
kept, replaced, request_digest, body_sha256, stub) and request (the redacted copy).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		passed := fs.Bool("passed", false, "list the rules that were checked and passed, whatever the outcome")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) != 1 {
				return usagef("explain takes one DECISION_ID (handoffctl log shows them)")
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
			return c.explained(ex, *passed)
		}
	},
}

// explained prints an explanation.
func (c *cli) explained(ex *engine.Explanation, passed bool) error {
	if c.json() {
		return writeJSON(c.stdout, ex)
	}
	w := c.stdout
	d := ex.Decision
	fmt.Fprintf(w, "decision   %s\n", orDash(d.DecisionID))
	fmt.Fprintf(w, "outcome    %s\n", upper(d.Outcome))
	fmt.Fprintf(w, "request    %s  (%s)  tenant %s  workflow %s\n", orDash(d.RequestID), orDash(d.Kind), orDash(d.TenantID), orDash(d.WorkflowID))
	fmt.Fprintf(w, "status     %s → %s\n", d.StatusBefore, d.StatusAfter)
	fmt.Fprintf(w, "policy     %s\n", orDash(ex.Entrypoint))
	switch {
	case ex.Redaction != nil:
		fmt.Fprintf(w, "redacted   %s: the log holds the request redacted, so it is not evaluated again;\n", strings.Join(ex.Redaction.Codes, ", "))
		fmt.Fprintf(w, "           the rules below carry the recorded codes. Original %s\n", ex.Redaction.RequestDigest)
		fmt.Fprintf(w, "recorded   %s\n", ex.Request)
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
		fmt.Fprintf(w, "\nchecked and passed (%d rules)\n", len(ex.Passed))
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
	if err := c.explained(ex, false); err != nil {
		return err
	}
	if failOnBlock && ex.Decision.Outcome == engine.Block {
		return negativef("the request was blocked: %s", strings.Join(ex.Decision.Codes(), ", "))
	}
	return nil
}
