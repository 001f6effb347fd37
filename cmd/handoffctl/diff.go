package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/scenario"
)

var diffCmd = &command{
	name:  "diff",
	args:  "[--bundle DIR] [--base DIR] [--pack P] [--mutations N] [--fail-on-difference] SCENARIO|DIR...",
	short: "find the requests two bundles decide differently, before any traffic",
	long: `Diff searches for requests that the bundle of --bundle (the candidate) decides
differently from the bundle of --base (default: the shipped packs), with no store and
no history: it plays each scenario file named (a DIR: every *.scenario under it) with
the base bundle and, before every step, decides the step's request and --mutations
variants of it (default 24; each changes one field: dropped, a number moved by one or
set to zero, a string or a list emptied, a list shortened, a flag flipped) with both
bundles, on the state the base reached, at the step's time.

A difference is an outcome that changes ("outcome revise→await_human"), a reason code
only one bundle gives ("+CODE": only the candidate's; "-CODE": only the base's), or
other agents given the work ("next"). For each, diff prints how many requests show it
and the shortest of them: its scenario, step and mutation, and both decisions. With
-o json the whole request is in the report. 'handoffctl replay' answers the same
question on recorded history; diff answers it before there is any.

--pack keeps the scenarios of one pack. Exit 0 when done, 3 with --fail-on-difference
and a difference found.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		base := fs.String("base", "", "the bundle `DIR` to compare against (default: the shipped packs)")
		pack := fs.String("pack", "", "only the scenarios of pack `P`")
		mutations := fs.Int("mutations", 24, "how many variants of each step's request to decide besides it (`N`; 0: none)")
		failOnDiff := fs.Bool("fail-on-difference", false, "exit 3 when the bundles decide any request differently")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) == 0 {
				return usagef("diff needs scenario files or directories: policies_test/handoff/<pack>/scenarios")
			}
			if *mutations < 0 {
				return usagef("--mutations takes a number of variants, not %d", *mutations)
			}
			var scenarios []*scenario.Scenario
			for _, a := range args {
				files, err := scenarioFiles(a)
				if err != nil {
					return err
				}
				for _, f := range files {
					sc, err := scenario.Load(f)
					if err != nil {
						return err
					}
					if *pack == "" || sc.Pack == *pack {
						scenarios = append(scenarios, sc)
					}
				}
			}
			if len(scenarios) == 0 {
				return usagef("no scenario of pack %q among the files named", *pack)
			}
			candidate, err := c.decider(ctx, true)
			if err != nil {
				return err
			}
			baseBundle := engine.ShippedBundle()
			if *base != "" {
				if baseBundle, err = dirBundle(*base, "--base DIR names a bundle: DIR/contracts and DIR/policies"); err != nil {
					return err
				}
			}
			baseDecider, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &baseBundle, LazyPolicies: true})
			if err != nil {
				return fmt.Errorf("--base: %w", err)
			}
			rep, err := scenario.Differences(ctx, baseDecider, candidate, scenarios, scenario.DiffOptions{Mutations: *mutations})
			if err != nil {
				return err
			}
			if c.json() {
				if err := writeJSON(c.stdout, rep); err != nil {
					return err
				}
			} else {
				printDifferences(c, rep)
			}
			if *failOnDiff && len(rep.Differences) > 0 {
				return negativef("%d differences", len(rep.Differences))
			}
			return nil
		}
	},
}

func printDifferences(c *cli, rep *scenario.DiffReport) {
	fmt.Fprintf(c.stdout, "%d requests of %d scenarios decided by both bundles: %d differences\n", rep.Requests, rep.Scenarios, len(rep.Differences))
	for _, d := range rep.Differences {
		ex := d.Smallest
		where := fmt.Sprintf("%s step %d (%s)", ex.Scenario, ex.Step, ex.StepName)
		if ex.Mutation != "" {
			where += ", " + ex.Mutation
		}
		fmt.Fprintf(c.stdout, "\n%s  %d requests\n  shortest: %s\n", d.What, d.Requests, where)
		fmt.Fprintf(c.stdout, "  base       %s %s → %s\n", ex.Base.Outcome, codesOrNone(ex.Base.Codes), strings.Join(ex.Base.Next, ", "))
		fmt.Fprintf(c.stdout, "  candidate  %s %s → %s\n", ex.Candidate.Outcome, codesOrNone(ex.Candidate.Codes), strings.Join(ex.Candidate.Next, ", "))
	}
}

func codesOrNone(codes []string) string {
	if len(codes) == 0 {
		return "(no reasons)"
	}
	return strings.Join(codes, " ")
}
