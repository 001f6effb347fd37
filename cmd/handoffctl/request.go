package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service/client"
)

// validationCodes are the reason codes of a request that does not match its contract.
var validationCodes = map[string]bool{
	"SCHEMA_INVALID": true, "UNKNOWN_FIELD": true, "DUPLICATE_KEY": true,
	"INVALID_ENCODING": true, "PAYLOAD_TOO_LARGE": true, "DEPTH_EXCEEDED": true,
}

var validateCmd = &command{
	name:  "validate",
	args:  "FILE|-",
	short: "check a request against its contract",
	long: `Validate decodes a request strictly (valid UTF-8, no duplicate or case-variant keys,
size and depth limits) and checks it against its kind's CUE contract and, for an
output, its artifact type's contract. It lists every violation with its path and
exits 3 when there is any. Nothing is recorded.

Requests other than start are checked against the pack of their workflow, read from
the store of --store: a request that reaches no pack (unknown workflow or pack, another
tenant's workflow) is not valid either. FILE - reads the request from standard input.

With -o json the output is {"valid": bool, "reasons": [...]}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) error {
			return c.withRequest(ctx, "validate", args, func(e backend, body []byte) error {
				return c.validate(ctx, e, body)
			})
		}
	},
}

// validate prints the contract violations of a request and fails when there is any.
func (c *cli) validate(ctx context.Context, e backend, body []byte) error {
	d, err := e.Evaluate(ctx, body)
	if err != nil {
		return serverHint(err)
	}
	invalid := []engine.Reason{}
	for _, r := range d.Reasons {
		if validationCodes[r.Code] {
			invalid = append(invalid, r)
		}
	}
	// A request that reaches no pack was checked against no contract: the
	// reasons it was not routed are why it is not valid.
	unrouted := len(invalid) == 0 && d.Pack == ""
	if unrouted {
		invalid = append(invalid, d.Reasons...)
	}
	switch {
	case c.json():
		if err := writeJSON(c.stdout, struct {
			Valid   bool            `json:"valid"`
			Reasons []engine.Reason `json:"reasons"`
		}{len(invalid) == 0, invalid}); err != nil {
			return err
		}
	case unrouted:
		fmt.Fprintln(c.stdout, "unrouted  the request reaches no pack, so no contract could check it")
		printReasons(c.stdout, "  ", invalid)
	case len(invalid) > 0:
		fmt.Fprintf(c.stdout, "invalid  %d problems\n", len(invalid))
		printReasons(c.stdout, "  ", invalid)
	default:
		fmt.Fprintf(c.stdout, "valid  %s request of pack %s\n", d.Kind, d.Pack)
		if d.Outcome == engine.Block {
			fmt.Fprintf(c.stdout, "note   the policy would block it: %s ('handoffctl eval' shows why)\n", strings.Join(d.Codes(), ", "))
		}
	}
	if len(invalid) > 0 {
		return &negativeError{}
	}
	return nil
}

var evalCmd = &command{
	name:  "eval",
	args:  "FILE|- [--fail-on-block] [--explain]",
	short: "decide a request without recording it (dry run)",
	long: `Eval decides a request against the workflow state in the store of --store and prints
the decision, without recording anything: the store is left as it was. FILE - reads
the request from standard input.

With --explain it shows, as handoffctl explain does, the rule behind each reason with
its METADATA and the input values it read, or for an allow the rules that passed.

With -o json the output is the engine's Decision object (with --explain, the
explanation, as handoffctl explain -o json prints it).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		failOnBlock := fs.Bool("fail-on-block", false, "exit 3 when the outcome is block")
		explain := fs.Bool("explain", false, "explain the decision: rules, METADATA, input values")
		return func(ctx context.Context, c *cli, args []string) error {
			return c.withRequest(ctx, "eval", args, func(e backend, body []byte) error {
				if *explain {
					eng, ok := e.(*engine.Engine)
					if !ok {
						return usagef("eval --explain works on the store of --store, not through --server")
					}
					return explainEval(ctx, c, eng, body, *failOnBlock)
				}
				d, err := e.Evaluate(ctx, body)
				if err != nil {
					return serverHint(err)
				}
				return c.decided(d, *failOnBlock)
			})
		}
	},
}

var startCmd = submitCommand("start", "start", "start a workflow",
	`Start submits a start request (kind "start"): the engine decides it, records it in
the store of --store (created when missing) and prints the decision with the new
workflow's id. FILE - reads the request from standard input.

With -o json the output is the engine's Decision object.`)

var submitCmd = submitCommand("submit", "", "decide a request and record it",
	`Submit decides a request of any kind and records it atomically in the store of --store
(created when missing), with the state it produces, then prints the decision. The same
request again returns the same decision; a block is recorded too but changes nothing.
FILE - reads the request from standard input.

With -o json the output is the engine's Decision object.`)

// submitCommand is a command that records one request; kind, when set, is the kind the
// request must have.
func submitCommand(name, kind, short, long string) *command {
	return &command{
		name:  name,
		args:  "FILE|- [--fail-on-block]",
		short: short,
		long:  long,
		setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
			failOnBlock := fs.Bool("fail-on-block", false, "exit 3 when the outcome is block")
			return func(ctx context.Context, c *cli, args []string) error {
				if len(args) != 1 {
					return usagef("%s takes one request FILE, or - for standard input", name)
				}
				return c.submit(ctx, args[0], kind, *failOnBlock)
			}
		},
	}
}

// withRequest reads the one request FILE of args and runs fn on it with an engine on the
// store of --store, opened without creating it: the dry-run commands.
func (c *cli) withRequest(ctx context.Context, name string, args []string, fn func(e backend, body []byte) error) (err error) {
	if len(args) != 1 {
		return usagef("%s takes one request FILE, or - for standard input", name)
	}
	body, err := c.readRequest(args[0])
	if err != nil {
		return err
	}
	e, err := c.backend(ctx, peekStore)
	if err != nil {
		return err
	}
	defer closeBackend(e, &err)
	return fn(e, body)
}

// submit submits the request in file; kind, when set, is the kind it must have.
func (c *cli) submit(ctx context.Context, file, kind string, failOnBlock bool) (err error) {
	body, err := c.readRequest(file)
	if err != nil {
		return err
	}
	if kind != "" {
		var head struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(body, &head) != nil || head.Kind != kind {
			return usagef("the request's kind is %q, not %q: use 'handoffctl submit' for other kinds", head.Kind, kind)
		}
	}
	e, err := c.backend(ctx, createStore)
	if err != nil {
		return err
	}
	defer closeBackend(e, &err)
	d, err := e.Submit(ctx, body)
	var ce *client.Error
	if errors.As(err, &ce) && ce.Decision != nil {
		// Refused by the server (IDENTITY_MISMATCH): the decision is recorded in the
		// token's tenant's audit stream.
		if perr := c.decided(ce.Decision, failOnBlock); perr != nil {
			return perr
		}
		return serverHint(err)
	}
	if err != nil {
		return withHint(err, "no decision was made: treat the request as blocked and send it again")
	}
	return c.decided(d, failOnBlock)
}

// decided prints a decision and says whether the caller asked to fail on it.
func (c *cli) decided(d *engine.Decision, failOnBlock bool) error {
	if c.json() {
		if err := writeJSON(c.stdout, d); err != nil {
			return err
		}
	} else {
		printDecision(c.stdout, d)
	}
	if failOnBlock && d.Outcome == engine.Block {
		return negativef("the request was blocked: %s", strings.Join(d.Codes(), ", "))
	}
	return nil
}

// printDecision writes a decision as a labelled block.
func printDecision(w io.Writer, d *engine.Decision) {
	line := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%-10s %s\n", label, fmt.Sprintf(format, args...))
	}
	line("outcome", "%s", upper(d.Outcome))
	wf := orDash(d.WorkflowID)
	var scope []string
	if d.TenantID != "" {
		scope = append(scope, "tenant "+d.TenantID)
	}
	if d.Pack != "" {
		scope = append(scope, "pack "+d.Pack)
	}
	if len(scope) > 0 {
		wf += "  (" + strings.Join(scope, ", ") + ")"
	}
	line("workflow", "%s", wf)
	line("request", "%s  (%s)", orDash(d.RequestID), orDash(d.Kind))
	line("status", "%s → %s", d.StatusBefore, d.StatusAfter)
	line("version", "%d", d.StateVersion)
	if len(d.Reasons) == 0 {
		line("reasons", "none")
	} else {
		fmt.Fprintln(w, "reasons")
		printReasons(w, "  ", d.Reasons)
	}
	for _, n := range d.Next {
		line("next", "%s  task %s", n.Agent, orDash(n.Task))
	}
	if r := d.Retry; r != nil {
		task := ""
		if r.Task != "" {
			task = "  task " + r.Task
		}
		line("retry", "attempt %d of %d in %d ms%s", r.Attempt, r.MaxAttempts, r.DelayMS, task)
	}
	for _, r := range d.Revise {
		line("revise", "%s → %s  defects %s", r.Artifact, r.Producer, orDash(strings.Join(r.Defects, ", ")))
	}
	if d.ConflictID != "" {
		line("conflict", "%s", d.ConflictID)
	}
	if d.RequiresHumanReview {
		line("human", "review required")
	}
	recorded := "no (dry run)"
	if d.Recorded {
		recorded = "yes"
	}
	line("recorded", "%s", recorded)
	line("decision", "%s  at %s", orDash(d.DecisionID), orDash(d.DecidedAt))
}

// printReasons writes one reason per line: code, gate, path and message.
func printReasons(w io.Writer, indent string, reasons []engine.Reason) {
	for _, r := range reasons {
		s := indent + r.Code
		if r.Gate != "" {
			s += " [" + r.Gate + "]"
		}
		if r.Path != "" {
			s += "  " + r.Path
		}
		if r.Message != "" {
			s += ": " + r.Message
		}
		fmt.Fprintln(w, s)
	}
}

func upper(o engine.Outcome) string { return strings.ToUpper(string(o)) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
