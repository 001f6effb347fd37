package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

var runCmd = &command{
	name:  "run",
	args:  "FILE|DIR...",
	short: "play scenario files through the engine",
	long: `Run plays scenario files: each step's request is submitted to the engine, on a real
store, and its decision must have the outcome, reason codes and, where the step says,
status, next agents and state version the step expects. It prints one line per step
as it is decided and "ok" or "FAIL: <what differed>" after each scenario, and stops
with exit 3 at the first mismatch.

A DIR argument plays every scenario file (*.scenario) under it, in path order.

Each scenario is played on a fresh store in a temporary directory, removed afterwards.
With --db DIR given on the command line, every scenario is played on that store and
it is kept (HANDOFF_DB is not used: scenarios would collide with real workflows).

With -o json the output is one object per step (JSON lines): scenario, file, step,
name, the engine's Decision, and mismatch when the decision is not as expected.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) == 0 {
				return usagef("run takes one or more scenario FILEs or DIRs")
			}
			var files []string
			for _, a := range args {
				f, err := scenarioFiles(a)
				if err != nil {
					return err
				}
				files = append(files, f...)
			}
			return c.play(ctx, files)
		}
	},
}

// scenarioFiles lists the scenario files an argument names: the file itself, or every
// scenario file under a directory.
func scenarioFiles(arg string) ([]string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{arg}, nil
	}
	rel, err := scenario.Files(os.DirFS(arg))
	if err != nil {
		return nil, err
	}
	if len(rel) == 0 {
		return nil, withHint(fmt.Errorf("no scenario files (*%s) under %s", scenario.Ext, arg),
			"packs keep their scenarios in policies_test/handoff/<pack>/scenarios/")
	}
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(arg, filepath.FromSlash(r))
	}
	return out, nil
}

// play plays the scenario files in order and stops at the first that fails.
func (c *cli) play(ctx context.Context, files []string) error {
	scenarios := make([]*scenario.Scenario, len(files))
	for i, f := range files {
		s, err := scenario.Load(f)
		if err != nil {
			return withHint(err, "fix the scenario file: its fields are name, description, pack and steps; a step has name, now (optional RFC 3339 time, never earlier than the step before), request and expect")
		}
		scenarios[i] = s
	}
	tmp := ""
	if !c.db.set {
		dir, err := os.MkdirTemp("", "handoffctl-run-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		tmp = dir
	}
	steps := 0
	for i, s := range scenarios {
		dir := c.db.value
		if tmp != "" {
			dir = filepath.Join(tmp, strconv.Itoa(i+1))
		}
		n, err := c.playOne(ctx, files[i], s, dir)
		steps += n
		if err != nil {
			return err
		}
	}
	if !c.json() && len(scenarios) > 1 {
		fmt.Fprintf(c.stdout, "\n%d scenarios, %d steps: ok\n", len(scenarios), steps)
	}
	return nil
}

// stepLine is the JSON form of one played step.
type stepLine struct {
	Scenario string           `json:"scenario"`
	File     string           `json:"file"`
	Step     int              `json:"step"`
	Name     string           `json:"name"`
	Decision *engine.Decision `json:"decision"`
	Mismatch string           `json:"mismatch,omitempty"`
}

// playOne plays one scenario on the store in dir and returns how many steps it played.
func (c *cli) playOne(ctx context.Context, file string, s *scenario.Scenario, dir string) (n int, err error) {
	b, err := c.loadBundle()
	if err != nil {
		return 0, err
	}
	opts := engine.Options{Bundle: &b, LazyPolicies: true}
	storeAt(&opts, dir)
	e, err := engine.Open(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer closeEngine(e, &err)

	labels := make([]stepLabel, len(s.Steps))
	wStep := len(fmt.Sprintf("[%d]", len(s.Steps)))
	var wName, wKind, wActor int
	for i, st := range s.Steps {
		labels[i] = labelStep(st)
		wName = max(wName, utf8.RuneCountInString(st.Name))
		wKind = max(wKind, utf8.RuneCountInString(labels[i].kind))
		wActor = max(wActor, utf8.RuneCountInString(labels[i].actor))
	}
	if !c.json() {
		fmt.Fprintf(c.stdout, "%s  (%s)\n", s.Name, file)
	}
	var failed *scenario.Result
	var werr error
	runErr := scenario.Run(ctx, e, s, func(r scenario.Result) {
		n++
		if r.Mismatch != "" {
			failed = &r
		}
		if c.json() {
			if err := writeJSONLine(c.stdout, stepLine{s.Name, file, r.Step, r.Name, r.Decision, r.Mismatch}); err != nil && werr == nil {
				werr = err
			}
			return
		}
		d, l := r.Decision, labels[r.Step-1]
		codes := ""
		if len(d.Reasons) > 0 {
			codes = "  " + strings.Join(d.Codes(), ",")
		}
		step := fmt.Sprintf("[%d]", r.Step)
		line := fmt.Sprintf("  %-*s %-*s  %-*s  %-*s  %-11s  %s → %s  v%d%s", wStep, step, wName, r.Name, wKind, l.kind,
			wActor, l.actor, upper(d.Outcome), d.StatusBefore, d.StatusAfter, d.StateVersion, codes)
		fmt.Fprintln(c.stdout, strings.TrimRight(line, " "))
	})
	if werr != nil {
		return n, werr
	}
	switch {
	case failed != nil:
		if !c.json() {
			fmt.Fprintf(c.stdout, "  FAIL: step %d (%s): %s\n", failed.Step, failed.Name, failed.Mismatch)
		}
		return n, negativef("scenario %q failed at step %d (%s)", s.Name, failed.Step, failed.Name)
	case runErr != nil:
		if !c.json() {
			fmt.Fprintf(c.stdout, "  FAIL: %v\n", runErr)
		}
		return n, runErr
	}
	if !c.json() {
		fmt.Fprintf(c.stdout, "  ok (%d steps)\n", n)
	}
	return n, nil
}

// stepLabel is what a step's line says about its request.
type stepLabel struct {
	kind  string // the kind, with the verdict, decision, class, result or target
	actor string
}

// labelStep reads the kind and actor of a step's request as written in the scenario.
func labelStep(st scenario.Step) stepLabel {
	var req map[string]any
	if json.Unmarshal(st.Request, &req) != nil {
		return stepLabel{kind: "(raw)", actor: "-"}
	}
	str := func(k string) string {
		s, _ := req[k].(string)
		return s
	}
	l := stepLabel{kind: orDash(str("kind")), actor: "-"}
	if a, ok := req["actor"].(map[string]any); ok {
		if id, ok := a["id"].(string); ok && id != "" {
			l.actor = id
		}
	}
	detail := ""
	switch l.kind {
	case "handoff":
		if t := str("target_agent"); t != "" {
			l.kind += "→" + t
		}
	case "review":
		detail = str("verdict")
	case "approval":
		detail = str("decision")
	case "failure":
		detail = str("class")
	case "outcome":
		detail = str("result")
	}
	if detail != "" {
		l.kind += "/" + detail
	}
	return l
}
