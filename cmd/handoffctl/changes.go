package main

import (
	"fmt"
	"strings"
)

// printChanges lists the decisions that would change, by transition, with the reasons
// each loses and gains, then the reasons by code: the body of a replay's report and of
// a shadow report.
func (rep *replayReport) printChanges(c *cli) {
	fmt.Fprintf(c.stdout, "%d would change: %d change outcome, %d block → allow\n", rep.Changed, rep.Flips, rep.Loosened)
	for _, t := range rep.Transitions {
		flag := ""
		switch transitionRank(t.From, t.To) {
		case 0, 1:
			flag = "  LOOSENED"
		case 2:
			flag = "  TIGHTENED"
		}
		fmt.Fprintf(c.stdout, "\n%s → %s (%d)%s\n", t.From, t.To, t.Count, flag)
		for _, ch := range t.Changes {
			where := ch.Workflow
			if ch.Audit {
				where = "(audit)"
			}
			fmt.Fprintf(c.stdout, "  %s/%s #%d  %s  %s  %s\n", ch.Tenant, where, ch.Seq, ch.Kind, ch.RequestID, ch.DecisionID)
			for _, r := range ch.removed {
				fmt.Fprintf(c.stdout, "    -%s\n", reasonLine(r))
			}
			for _, r := range ch.added {
				fmt.Fprintf(c.stdout, "    +%s\n", reasonLine(r))
			}
			if ch.StatusAfterBefore != ch.StatusAfterAfter {
				fmt.Fprintf(c.stdout, "    status after %s → %s\n", ch.StatusAfterBefore, ch.StatusAfterAfter)
			}
			fmt.Fprintf(c.stdout, "    differs in %s\n", strings.Join(ch.Fields, ", "))
			if ch.ValidationChanged {
				fmt.Fprintln(c.stdout, "    validation changed")
			}
		}
	}
	if len(rep.Codes) > 0 {
		fmt.Fprintln(c.stdout, "\nreasons by code (added, removed)")
		t := newTable(c.stdout)
		for _, rc := range rep.Codes {
			t.row("  "+rc.Code, fmt.Sprintf("+%d", rc.Added), fmt.Sprintf("-%d", rc.Removed))
		}
		t.flush()
	}
}
