package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service/client"
	"github.com/handoff-dev/handoff/store"
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

` + placeholderHelp + `checked.

With -o json the output is one JSON object, {"valid": bool, "reasons": [...]}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) error {
			return c.withRequest(ctx, "validate", args, false, func(e backend, body []byte) error {
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
		fmt.Fprintln(c.stdout, "unrouted: the request reaches no pack, so no contract could check it")
		printReasons(c.stdout, "  ", invalid)
	case len(invalid) > 0:
		fmt.Fprintf(c.stdout, "invalid: %s\n", count(len(invalid), "problem"))
		printReasons(c.stdout, "  ", invalid)
	default:
		fmt.Fprintf(c.stdout, "valid: %s request of pack %s\n", d.Kind, d.Pack)
		if d.Outcome == engine.Block {
			fmt.Fprintf(c.stdout, "note: the policy would block it: %s ('handoffctl eval' shows why)\n", strings.Join(d.Codes(), ", "))
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
the request from standard input. A file that is not one JSON object (empty, not JSON,
an array) is refused: exit 3.

` + placeholderHelp + `decided.

With --explain it shows, as handoffctl explain does, the rule behind each reason with
its METADATA and the input values it read, or for an allow the rules that passed.

With -o json the output is one JSON object: the engine's Decision (with --explain, the
explanation, as handoffctl explain -o json prints it).`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		failOnBlock := fs.Bool("fail-on-block", false, "exit 3 when the outcome is block")
		explain := fs.Bool("explain", false, "explain the decision: rules, METADATA, input values")
		return func(ctx context.Context, c *cli, args []string) error {
			return c.withRequest(ctx, "eval", args, true, func(e backend, body []byte) error {
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
				return c.decided(d, *failOnBlock, decisionNotes{})
			})
		}
	},
}

var startCmd = submitCommand("start", "start", "start a workflow",
	`Start submits a start request (kind "start"): the engine decides it, records it in
the store of --store (created when missing) and prints the decision with the new
workflow's id. FILE - reads the request from standard input.

`+submitHelp)

var submitCmd = submitCommand("submit", "", "decide a request and record it",
	`Submit decides a request of any kind and records it atomically in the store of --store
(created when missing), with the state it produces, then prints the decision. The same
request again returns the same decision; a block is recorded too but changes nothing.
FILE - reads the request from standard input.

`+submitHelp)

// placeholderHelp is the help on placeholders; the command's verb ends it.
const placeholderHelp = `A request may refer to the recorded state of its own tenant (tenant_id) and workflow
(workflow_id) with placeholders, strings resolved before the engine sees the request:
${ref:TYPE@N} (artifact version N of TYPE as {id, type, version, hash}),
${ref:TYPE@latest}, ${hash:TYPE@N}, ${hash:TYPE@latest} (the hash alone) and
${state_version}. Each resolution is printed on stderr ("resolved ${ref:TYPE@latest}
→ TYPE v2 id ID sha256:…"), with -o json too, so stdout keeps its one JSON document.
A placeholder that does not resolve (unknown tenant, workflow, type or version) exits
3 naming what exists, and nothing is `

// submitHelp is the help start and submit share.
const submitHelp = `A file that is not one JSON object (empty, not JSON, an array) is refused before it
reaches the engine: exit 3, nothing recorded.

` + placeholderHelp + `submitted.

The same request again (the same request_id and payload) is answered with its recorded
decision: the text output says "recorded   earlier (the recorded answer to request ID
of TIME: nothing new was recorded)", and with -o json stderr says it. A request whose
placeholders resolve to other values than when its request_id was recorded (the
workflow moved on) is refused, exit 3, rather than recorded as IDEMPOTENCY_KEY_REUSED.

With --at TIME (RFC 3339 with a zone) the request is decided at that time instead of
now, as a scenario step's "now": its decided_at and the policies' input.now. The store
of --store only (not through --server: a server decides at its own time); a time later
than now, or earlier than the last decision of the request's workflow, is refused
(exit 3, nothing recorded). The decision line says "(set by --at)", stderr with -o
json. The log does not mark the time as given: decided_at is the time of --at. A
request submitted before gets its recorded answer, whatever --at says.

With -o json the output is one JSON object: the engine's Decision.`

// submitCommand is a command that records one request; kind, when set, is the kind the
// request must have.
func submitCommand(name, kind, short, long string) *command {
	return &command{
		name:  name,
		args:  "FILE|- [--fail-on-block] [--at TIME]",
		short: short,
		long:  long,
		setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
			failOnBlock := fs.Bool("fail-on-block", false, "exit 3 when the outcome is block")
			at := fs.String("at", "", "decide at `TIME` (RFC 3339 with a zone), not now: local store only")
			return func(ctx context.Context, c *cli, args []string) error {
				if len(args) != 1 {
					return usagef("%s takes one request FILE, or - for standard input", name)
				}
				return c.submit(ctx, args[0], kind, *at, *failOnBlock)
			}
		},
	}
}

// withRequest reads the one request FILE of args, resolves its placeholders and runs fn
// on it with an engine on the store of --store, opened without creating it: the
// dry-run commands. strict refuses a file that is not one JSON object (eval); without
// it such a file goes to fn, whose engine says what is wrong with it (validate).
func (c *cli) withRequest(ctx context.Context, name string, args []string, strict bool, fn func(e backend, body []byte) error) (err error) {
	if len(args) != 1 {
		return usagef("%s takes one request FILE, or - for standard input", name)
	}
	body, err := c.readRequest(args[0])
	if err != nil {
		return err
	}
	nothing := "nothing was decided"
	if name == "validate" {
		nothing = "nothing was checked"
	}
	obj, oerr := requestObject(args[0], body, nothing)
	if oerr != nil && strict {
		return oerr
	}
	c.warm, _ = obj["pack"].(string)
	e, err := c.backend(ctx, peekStore)
	if err != nil {
		return err
	}
	defer closeBackend(e, &err)
	if oerr == nil {
		if body, _, err = c.resolveRefs(ctx, e, body, obj, nothing); err != nil {
			return err
		}
	}
	return fn(e, body)
}

// submit submits the request in file; kind, when set, is the kind it must have. at,
// when set, is the time it is decided at (--at).
func (c *cli) submit(ctx context.Context, file, kind, at string, failOnBlock bool) (err error) {
	body, err := c.readRequest(file)
	if err != nil {
		return err
	}
	obj, err := requestObject(file, body, "nothing was submitted")
	if err != nil {
		return err
	}
	if got, _ := obj["kind"].(string); kind != "" && got != kind {
		return usagef("the request's kind is %q, not %q: use 'handoffctl submit' for other kinds", got, kind)
	}
	c.warm, _ = obj["pack"].(string)
	var when time.Time
	if at != "" {
		if c.server != "" {
			return usagef("--at works on the store of --store, not through --server: a server decides at its own time")
		}
		if when, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return usagef("--at %q is not an RFC 3339 time with a zone (2026-11-02T09:30:00Z)", at)
		}
	}
	e, err := c.backend(ctx, createStore)
	if err != nil {
		return err
	}
	defer closeBackend(e, &err)
	body, resolved, err := c.resolveRefs(ctx, e, body, obj, "nothing was submitted")
	if err != nil {
		return err
	}
	recorded, reused := recordedAnswer(ctx, e, body)
	if reused && resolved {
		// Sent again after the workflow moved on, its placeholders resolve to other
		// values: the engine would record a block for the reused request_id.
		return negativef("request_id %v was recorded before with other values: its placeholders resolve differently now that the workflow has moved on; nothing was submitted ('handoffctl log' shows the recorded decision; a new request needs a new request_id)", obj["request_id"])
	}
	if !when.IsZero() && recorded == nil {
		if err := checkAt(ctx, e, obj, when); err != nil {
			return err
		}
	}
	var d *engine.Decision
	if when.IsZero() {
		d, err = e.Submit(ctx, body)
	} else {
		d, err = e.(*engine.Engine).SubmitAt(ctx, body, when)
	}
	var ce *client.Error
	if errors.As(err, &ce) && ce.Decision != nil {
		// Refused by the server (IDENTITY_MISMATCH): the decision is recorded in the
		// token's tenant's audit stream.
		if perr := c.decided(ce.Decision, failOnBlock, decisionNotes{}); perr != nil {
			return perr
		}
		return serverHint(err)
	}
	if err != nil {
		return withHint(err, "no decision was made: treat the request as blocked and send it again")
	}
	var notes decisionNotes
	switch {
	case recorded != nil && recorded.DecisionID == d.DecisionID:
		notes.earlier = true
	case !when.IsZero():
		notes.at = true
	}
	return c.decided(d, failOnBlock, notes)
}

// recordedAnswer is the decision recorded for the request when it was submitted before
// (the same request_id and payload): a dry run answers such a request with the recorded
// decision, recorded true, where a new request's dry run is not recorded. Nil when the
// request is new or the dry run failed: Submit then answers. reused says the dry run
// found the request_id used for another payload (IDEMPOTENCY_KEY_REUSED).
func recordedAnswer(ctx context.Context, b backend, body []byte) (recorded *engine.Decision, reused bool) {
	d, err := b.Evaluate(ctx, body)
	switch {
	case err != nil:
		return nil, false
	case d.Recorded:
		return d, false
	}
	return nil, slices.Contains(d.Codes(), "IDEMPOTENCY_KEY_REUSED")
}

// checkAt refuses a --at time later than now, or earlier than the last decision
// recorded for the request's workflow: a log whose decisions go back in time would
// misstate every deadline decided on it. A request naming no workflow (a start) or one
// the store does not have is left to the engine, which blocks it. A log that cannot be
// read refuses the time: the check fails closed.
func checkAt(ctx context.Context, b backend, obj map[string]any, at time.Time) error {
	if now := time.Now(); at.After(now) {
		return negativef("--at %s is later than now (%s): a decision in the future would put the next ones back in time; nothing was submitted",
			at.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339))
	}
	tenant, _ := obj["tenant_id"].(string)
	workflow, _ := obj["workflow_id"].(string)
	if kind, _ := obj["kind"].(string); kind == "start" || tenant == "" || workflow == "" {
		return nil
	}
	var last string
	err := b.History(ctx, tenant, workflow, func(ent engine.Entry) error {
		if ent.Decision != nil {
			last = ent.Decision.DecidedAt
		}
		return nil
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return withHint(fmt.Errorf("--at: read the last decision of workflow %s: %w", workflow, err), "nothing was submitted: --at is checked against the workflow's last decision")
	case last == "":
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, last)
	if err != nil {
		return fmt.Errorf("--at: the last decision of workflow %s has decided_at %q, not a time: nothing was submitted", workflow, last)
	}
	if at.Before(t) {
		return negativef("--at %s is earlier than the last decision of workflow %s (%s): time never goes back in a workflow; nothing was submitted",
			at.UTC().Format(time.RFC3339Nano), workflow, last)
	}
	return nil
}

// decisionNotes is what printDecision says about how a decision came about.
type decisionNotes struct {
	earlier bool // the recorded answer to a request submitted before
	at      bool // decided at the time of --at
}

// decided prints a decision and says whether the caller asked to fail on it.
func (c *cli) decided(d *engine.Decision, failOnBlock bool, n decisionNotes) error {
	if c.json() {
		if err := writeJSON(c.stdout, d); err != nil {
			return err
		}
		switch {
		case n.earlier:
			fmt.Fprintf(c.stderr, "%s\n", earlierNote(d))
		case n.at:
			fmt.Fprintf(c.stderr, "decided at %s, the time of --at\n", d.DecidedAt)
		}
	} else {
		printDecision(c.stdout, d, n)
	}
	c.unknownPackHint(d)
	if failOnBlock && d.Outcome == engine.Block {
		return negativef("the request was blocked: %s", strings.Join(d.Codes(), ", "))
	}
	return nil
}

// earlierNote says that a decision is the recorded answer to a request submitted before.
func earlierNote(d *engine.Decision) string {
	return fmt.Sprintf("(the recorded answer to request %s of %s: nothing new was recorded)", orDash(d.RequestID), orDash(d.DecidedAt))
}

// printDecision writes a decision as a labelled block.
func printDecision(w io.Writer, d *engine.Decision, n decisionNotes) {
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
	switch {
	case n.earlier:
		recorded = "earlier " + earlierNote(d)
	case d.Recorded:
		recorded = "yes"
	}
	line("recorded", "%s", recorded)
	at := ""
	if n.at {
		at = "  (set by --at)"
	}
	line("decision", "%s  at %s%s", orDash(d.DecisionID), orDash(d.DecidedAt), at)
}

// printReasons writes one reason per line: code, gate, path and message.
func printReasons(w io.Writer, indent string, reasons []engine.Reason) {
	for _, r := range reasons {
		fmt.Fprintln(w, indent+reasonLine(r))
	}
}

// reasonLine is one reason on one line: its code, gate and the field it points at, then
// its message; replay's changes print their reasons the same way.
func reasonLine(r engine.Reason) string {
	s := r.Code
	if r.Gate != "" {
		s += " [" + r.Gate + "]"
	}
	if r.Path != "" {
		s += "  " + r.Path
	}
	if r.Message != "" {
		s += ": " + r.Message
	}
	return s
}

func upper(o engine.Outcome) string { return strings.ToUpper(string(o)) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
