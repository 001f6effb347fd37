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

	"github.com/rogpeppe/go-internal/diff"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

var runCmd = &command{
	name:  "run",
	args:  "FILE|DIR... [--keep-going] [--update]",
	short: "play scenario files through the engine",
	long: `Run plays scenario files: each step's request is submitted to the engine, on a real
store, and its decision must have the outcome, reason codes and, where the step says,
status, next agents and state version the step expects. It prints one line per step
as it is decided and "ok" or "FAIL: <what differed>" after each scenario, and stops
with exit 3 at the first mismatch. Long names are cut short (…) to keep the columns.

A DIR argument plays every scenario file (*.scenario) under it, in path order. Over
several files, a terminal shows the progress: scenarios played of the total.

--keep-going plays every scenario, whatever fails, and lists the failures at the end;
it exits 3 when any failed.

--update brings the expectations up to date after a deliberate rule change: every step
of every scenario is played (a mismatch does not stop its scenario, the later steps are
decided on the state the decisions made), and the files whose expectations no longer
hold are rewritten: each step's outcome and reasons, and its status_after, next and
state_version where the step states them (a field the step leaves out stays out). Only
the values that changed are rewritten, in place, in the file's layout; a unified diff
of each file rewritten is printed. Review it before committing: --update takes the
engine's word for what is right.

Each scenario is played on a fresh store in a temporary directory, removed afterwards.
With --db DIR given on the command line, every scenario is played on that store and
it is kept (HANDOFF_DB is not used: scenarios would collide with real workflows).

With -o json the output is NDJSON: one object per step: scenario, file, step, name,
the engine's Decision, and mismatch when the decision is not as expected; with
--update also one object per file rewritten: file, updated (true) and diff.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		keepGoing := fs.Bool("keep-going", false, "play every scenario and list the failures at the end")
		update := fs.Bool("update", false, "rewrite the expectations that no longer hold to the decisions made, and print a diff of each file")
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
			return c.play(ctx, files, playMode{keepGoing: *keepGoing || *update, update: *update})
		}
	},
}

// playMode says what run does past a mismatch.
type playMode struct {
	keepGoing bool // play the other scenarios
	update    bool // play every step and rewrite the expectations
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

// playFailure is one scenario that failed.
type playFailure struct {
	file string
	err  error
}

// play plays the scenario files in order. It stops at the first that fails, unless
// mode keeps going; then it lists the failures at the end.
func (c *cli) play(ctx context.Context, files []string, mode playMode) error {
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
	var p *progress
	if len(scenarios) > 1 {
		p = c.startProgress("scenarios played", len(scenarios))
	} else {
		p = &progress{}
	}
	defer p.finish()
	steps, updated := 0, 0
	var failures []playFailure
	for i, s := range scenarios {
		dir := c.db.value
		if tmp != "" {
			dir = filepath.Join(tmp, strconv.Itoa(i+1))
		}
		n, rewritten, err := c.playOne(ctx, files[i], s, dir, mode, p)
		steps += n
		p.step(1)
		if rewritten {
			updated++
		}
		if err != nil {
			if !mode.keepGoing {
				return err
			}
			failures = append(failures, playFailure{files[i], err})
		}
	}
	p.finish()
	if !c.json() && (len(scenarios) > 1 || len(failures) > 0 || mode.update) {
		summary := "ok"
		switch {
		case len(failures) > 0:
			summary = fmt.Sprintf("%d failed", len(failures))
		case mode.update && updated > 0:
			summary = count(updated, "file") + " updated"
		case mode.update:
			summary = "ok, nothing to update"
		}
		fmt.Fprintf(c.stdout, "\n%s, %s: %s\n", count(len(scenarios), "scenario"), count(steps, "step"), summary)
		for _, f := range failures {
			fmt.Fprintf(c.stdout, "  FAIL %s: %v\n", f.file, f.err)
		}
	}
	if len(failures) > 0 {
		return negativef("%d of %s failed", len(failures), count(len(scenarios), "scenario"))
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

// updateLine is the JSON form of a scenario file rewritten by --update.
type updateLine struct {
	File    string `json:"file"`
	Updated bool   `json:"updated"`
	Diff    string `json:"diff"`
}

// The widest a column of run's step lines grows; longer names are cut short.
const (
	maxNameWidth  = 32
	maxKindWidth  = 24
	maxActorWidth = 20
)

// fit cuts s to at most w runes, the last an ellipsis when it is cut.
func fit(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1]) + "…"
}

// playOne plays one scenario on the store in dir and returns how many steps it played
// and, with mode.update, whether its file was rewritten. p is cleared before the
// scenario prints.
func (c *cli) playOne(ctx context.Context, file string, s *scenario.Scenario, dir string, mode playMode, p *progress) (n int, rewritten bool, err error) {
	b, err := c.loadBundle()
	if err != nil {
		return 0, false, err
	}
	opts := engine.Options{Bundle: &b, LazyPolicies: true}
	storeAt(&opts, dir)
	e, err := engine.Open(ctx, opts)
	if err != nil {
		return 0, false, err
	}
	defer closeEngine(e, &err)

	labels := make([]stepLabel, len(s.Steps))
	wStep := len(fmt.Sprintf("[%d]", len(s.Steps)))
	var wName, wKind, wActor int
	for i, st := range s.Steps {
		labels[i] = labelStep(st)
		labels[i].kind = fit(labels[i].kind, maxKindWidth)
		labels[i].actor = fit(labels[i].actor, maxActorWidth)
		wName = max(wName, utf8.RuneCountInString(fit(st.Name, maxNameWidth)))
		wKind = max(wKind, utf8.RuneCountInString(labels[i].kind))
		wActor = max(wActor, utf8.RuneCountInString(labels[i].actor))
	}
	p.finish()
	if !c.json() {
		fmt.Fprintf(c.stdout, "%s  (%s)\n", s.Name, file)
	}
	var failed *scenario.Result
	var results []scenario.Result
	var werr error
	play := scenario.Run
	if mode.update {
		play = scenario.RunAll
	}
	runErr := play(ctx, e, s, func(r scenario.Result) {
		n++
		results = append(results, r)
		if r.Mismatch != "" && failed == nil {
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
		line := fmt.Sprintf("  %-*s %s  %s  %s  %-11s  %s → %s  v%d%s", wStep, step, pad(fit(r.Name, maxNameWidth), wName), pad(l.kind, wKind),
			pad(l.actor, wActor), upper(d.Outcome), d.StatusBefore, d.StatusAfter, d.StateVersion, codes)
		fmt.Fprintln(c.stdout, strings.TrimRight(line, " "))
	})
	if werr != nil {
		return n, false, werr
	}
	switch {
	case mode.update && runErr != nil:
		if !c.json() {
			fmt.Fprintf(c.stdout, "  FAIL: %v (the file is not rewritten)\n", runErr)
		}
		return n, false, runErr
	case failed != nil && mode.update:
		rewritten, err = c.rewrite(file, results)
		return n, rewritten, err
	case failed != nil:
		if !c.json() {
			fmt.Fprintf(c.stdout, "  FAIL: step %d (%s): %s\n", failed.Step, failed.Name, failed.Mismatch)
		}
		c.unknownPackHint(failed.Decision)
		what, _, _ := strings.Cut(failed.Mismatch, "\n")
		return n, false, negativef("scenario %q failed at step %d (%s): %s", s.Name, failed.Step, failed.Name, what)
	case runErr != nil:
		if !c.json() {
			fmt.Fprintf(c.stdout, "  FAIL: %v\n", runErr)
		}
		return n, false, runErr
	}
	if !c.json() {
		fmt.Fprintf(c.stdout, "  ok (%s)\n", count(n, "step"))
	}
	return n, false, nil
}

// pad pads s with spaces to w runes (fmt's %-*s counts bytes).
func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

// rewrite writes the decisions of a scenario's steps back into its file as their
// expectations and prints the diff.
func (c *cli) rewrite(file string, results []scenario.Result) (bool, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	out, changed, err := scenario.Rewrite(data, results)
	if err != nil {
		return false, withHint(fmt.Errorf("%s: %w", file, err), "the file could not be rewritten: edit its expectations by hand")
	}
	if !changed {
		// A mismatch Rewrite does not write (the redaction expected): it still fails.
		if !c.json() {
			fmt.Fprintln(c.stdout, "  FAIL: the mismatch is not in the expectations --update rewrites")
		}
		return false, negativef("%s: the mismatch is not in the expectations --update rewrites", file)
	}
	fi, err := os.Stat(file)
	if err != nil {
		return false, err
	}
	if err := os.WriteFile(file, out, fi.Mode().Perm()); err != nil {
		return false, err
	}
	d := string(diff.Diff(file, data, file, out))
	if c.json() {
		return true, writeJSONLine(c.stdout, updateLine{File: file, Updated: true, Diff: d})
	}
	fmt.Fprintf(c.stdout, "  updated %s\n%s", file, d)
	return true, nil
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
