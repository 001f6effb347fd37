package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service/client"
	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
)

var replayCmd = &command{
	name:  "replay",
	args:  "[--bundle DIR] [--recorded DIR] [--tenant T] [--workflow W] [--since TIME] [--all] [--fail-on-flip]",
	short: "re-decide the recorded requests with a candidate bundle",
	long: `Replay answers "what would this policy change have decided on real traffic?" Every
recorded request of the store of --store is decided again by the candidate bundle of
--bundle (default, as for every command: the shipped packs), on the input the engine recorded for it: the request, the derived values, the
time, and the workflow state before it, rebuilt by folding the recorded decisions in
log order (the state is a pure fold of decisions; the rebuilt state is checked against
every recorded state_version and the stored snapshot). Starts the policy blocked, kept
in the tenants' audit streams, are replayed too (shown as TENANT/(audit)); the other
audit records were blocked by the engine before any policy was asked. A record whose
request the log holds redacted (it carried a secret or personal data: see 'handoffctl
help log') cannot be decided again: it is counted and listed as skipped, never as a
change. Nothing is written.

Each decision that would change is listed with its outcome before and after and the
candidate's reasons beside the recorded ones: -CODE for a recorded reason the candidate
does not give, +CODE for one it gives that was not recorded (with the field it points
at and its message; a reason moved to another field or reworded is both), grouped by
transition. Loosening flips (block → allow first, then any other move away from block
or fail) come first, then tightening (→ block, → fail), then decisions whose outcome
stays but whose details change. A summary counts the reasons added and removed per
code.

The log is read with the bundle of --recorded (default: the shipped packs), which must
be the one it was recorded with. Through --server, the log is a running server's: a
backup taken through its API (an admin token's) and restored into a temporary store. Replaying against that same bundle reproduces every
decision byte for byte, reusing the recorded decision ids and times; a retry delay is
kept as recorded when it lies within the jitter of the replayed policy delay.

A pack the candidate does not change is not decided again: when its files (the pack's
contract and policy directories, core's and the shared ones) are byte for byte those of
the recorded bundle, its decisions that bundle made are counted as unchanged and left
out, so a change to one pack replays that pack's decisions only. --all decides every
record again, as checking a new build of handoffctl on the same bundle needs: without
--bundle, 'replay --all' checks that this build decides the store's log as it was
recorded (after a restore, an upgrade, or a copy to another backend).

--since TIME (RFC 3339, or a date YYYY-MM-DD) replays only decisions recorded at or
after TIME. With --fail-on-flip, replay exits 3 when any outcome would change. A long
replay shows its progress on a terminal: records replayed of the total.

With -o json the output is one object: bundle_digest, replayed, workflows, changed,
flips, loosened, unchanged (the decisions of unchanged packs, not replayed),
unchanged_packs, and transitions (from, to, count, changes: tenant_id, workflow_id,
seq, audit, decision_id, request_id, kind, outcome_before, outcome_after, reasons_added,
reasons_removed (codes, a code once per reason), reasons_before, reasons_after (the
reasons: code, message, gate, path, outcome), status_after_before, status_after_after,
fields: the decision's fields that differ, validation_changed), codes (code, added,
removed: the reasons added and removed per code, most first), skipped and
skipped_records (tenant_id, workflow_id, seq, audit, decision_id, request_id, kind,
why: "redacted", codes). The bundle digest every replayed decision carries is not a
change.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tenant := fs.String("tenant", "", "replay only tenant `T`")
		workflow := fs.String("workflow", "", "replay only workflow `W`")
		since := fs.String("since", "", "replay only decisions recorded at or after `TIME`")
		recorded := fs.String("recorded", "", "the bundle `DIR` the log was recorded with (default: the shipped packs)")
		failOnFlip := fs.Bool("fail-on-flip", false, "exit 3 when any outcome would change")
		all := fs.Bool("all", false, "decide every record again, also those of packs the candidate does not change")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) > 0 {
				return usagef("replay takes no arguments")
			}
			opts := engine.ReplayOptions{Tenant: *tenant, Workflow: *workflow, SkipUnchanged: !*all}
			if *since != "" {
				t, err := parseSince(*since)
				if err != nil {
					return usagef("--since %q: want RFC 3339 (2026-11-02T09:00:00Z) or a date (2026-11-02)", *since)
				}
				opts.Since = t
			}
			cand, err := c.decider(ctx, false)
			if err != nil {
				return err
			}
			e, done, err := c.recordedLog(ctx, *recorded)
			if err != nil {
				return err
			}
			defer done(&err)

			rep := replayReport{BundleDigest: cand.BundleDigest(), Transitions: []*replayTransition{}, Codes: []replayCode{}, SkippedRecords: []replaySkip{}, UnchangedPacks: []string{}}
			if !*all {
				for _, p := range e.Decider().Packs() {
					if cand.PackDigest(p.Name) == e.Decider().PackDigest(p.Name) {
						rep.UnchangedPacks = append(rep.UnchangedPacks, p.Name)
					}
				}
			}
			workflows := map[string]bool{}
			var changes []replayChange
			p := c.startProgress("records replayed", 0)
			if p.w != nil && opts.Since.IsZero() {
				if p.total, err = recordCount(ctx, e, *tenant, *workflow); err != nil {
					return err
				}
			}
			err = e.Replay(ctx, cand, opts, func(r engine.ReplayResult) error {
				if !r.Audit {
					p.step(1)
				}
				if r.Skipped == "unchanged" {
					rep.Unchanged++
					return nil
				}
				if r.Skipped != "" {
					rep.Skipped++
					rep.SkippedRecords = append(rep.SkippedRecords, newReplaySkip(r))
					return nil
				}
				rep.Replayed++
				if !r.Audit {
					workflows[r.Tenant+"\x00"+r.Workflow] = true
				}
				if len(r.Changed) > 0 {
					changes = append(changes, newReplayChange(r))
				}
				return nil
			})
			p.finish()
			if err != nil {
				return withHint(err, "replay reads the log with --recorded DIR (default: the shipped packs): name the bundle the log was recorded with, and run 'handoffctl verify'")
			}
			rep.Workflows = len(workflows)
			rep.group(changes)
			if c.json() {
				if err := writeJSON(c.stdout, rep); err != nil {
					return err
				}
			} else {
				rep.print(c)
			}
			if *failOnFlip && rep.Flips > 0 {
				return negativef("%s would change outcome", count(rep.Flips, "decision"))
			}
			return nil
		}
	},
}

// recordCount is how many records the selected workflows hold (their audit streams
// aside), the total of a progress line.
func recordCount(ctx context.Context, e *engine.Engine, tenant, workflow string) (int, error) {
	tenants := []string{tenant}
	if tenant == "" {
		var err error
		if tenants, err = e.Tenants(ctx); err != nil {
			return 0, err
		}
	}
	n := 0
	for _, t := range tenants {
		err := e.Workflows(ctx, t, func(w string, head store.Head) error {
			if workflow == "" || w == workflow {
				n += int(head.Seq)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// recordedLog opens the recorded log, read with the bundle of recorded (default: the
// shipped packs): the store of --store, or a copy of the server's. done closes it.
func (c *cli) recordedLog(ctx context.Context, recorded string) (e *engine.Engine, done func(*error), err error) {
	rec := engine.ShippedBundle()
	if recorded != "" {
		if rec, err = dirBundle(recorded, "a bundle DIR is laid out as the repository: DIR/contracts (a CUE module) and DIR/policies"); err != nil {
			return nil, nil, err
		}
	}
	cleanup := func() {}
	if c.server != "" {
		e, cleanup, err = c.serverCopy(ctx, &rec)
	} else {
		e, err = c.openStore(ctx, &rec)
	}
	if err != nil {
		return nil, nil, err
	}
	return e, func(err *error) {
		closeEngine(e, err)
		cleanup()
	}, nil
}

// serverCopy is the log of a running server to replay: a backup taken through its API
// (an admin token's), restored into a temporary store; cleanup removes it once the
// engine on it is closed.
func (c *cli) serverCopy(ctx context.Context, b *engine.Bundle) (e *engine.Engine, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "handoff-replay-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	cl := client.New(c.server, os.Getenv("HANDOFF_TOKEN"), nil)
	defer cl.Close()
	backup := filepath.Join(dir, "backup")
	f, err := os.Create(backup)
	if err != nil {
		return nil, nil, err
	}
	err = errors.Join(cl.Backup(ctx, f), f.Close())
	if err != nil {
		return nil, nil, withHint(serverHint(err), "replay through --server reads the server's log by a backup: an admin token's")
	}
	f, err = os.Open(backup)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	l, err := badger.Restore(ctx, store.Options{Dir: filepath.Join(dir, "store")}, f)
	if err != nil {
		return nil, nil, err
	}
	if err := l.Close(); err != nil {
		return nil, nil, err
	}
	e, err = engine.Open(ctx, engine.Options{Dir: filepath.Join(dir, "store"), Bundle: b, LazyPolicies: true})
	return e, cleanup, err
}

// openStore opens the existing store of --store with bundle b.
func (c *cli) openStore(ctx context.Context, b *engine.Bundle) (*engine.Engine, error) {
	opts := engine.Options{Bundle: b, LazyPolicies: true, ReadOnly: c.readOnly}
	if store.IsURL(c.db.value) {
		opts.StoreURL = c.db.value
		return engine.Open(ctx, opts)
	}
	fi, err := os.Stat(c.db.value)
	switch {
	case err == nil && !fi.IsDir():
		return nil, withHint(fmt.Errorf("store %s is not a directory", c.db.value), "--store names a store directory or a postgres:// URL")
	case os.IsNotExist(err):
		return nil, withHint(fmt.Errorf("no store at %s", c.db.value), "name the store with --store DIR|URL or HANDOFF_STORE")
	case err != nil:
		return nil, err
	}
	opts.Dir = c.db.value
	e, err := engine.Open(ctx, opts)
	return e, c.lockedHint(err)
}

func parseSince(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, s)
}

// replayReport is the result of a replay; its JSON form is documented in the help.
type replayReport struct {
	BundleDigest string              `json:"bundle_digest"`
	Replayed     int                 `json:"replayed"`
	Workflows    int                 `json:"workflows"`
	Changed      int                 `json:"changed"`
	Flips        int                 `json:"flips"`    // decisions whose outcome changes
	Loosened     int                 `json:"loosened"` // block → allow flips
	Transitions  []*replayTransition `json:"transitions"`
	// Codes counts, per reason code, the changed decisions' reasons added and removed.
	Codes []replayCode `json:"codes"`
	// Unchanged counts the decisions of UnchangedPacks, not replayed: packs whose files
	// the candidate shares with the recorded bundle.
	Unchanged      int      `json:"unchanged"`
	UnchangedPacks []string `json:"unchanged_packs"`
	// Skipped counts the records not replayed: their request is recorded redacted.
	Skipped        int          `json:"skipped"`
	SkippedRecords []replaySkip `json:"skipped_records"`
}

// replaySkip is one record replay could not decide again.
type replaySkip struct {
	Tenant     string   `json:"tenant_id"`
	Workflow   string   `json:"workflow_id"`
	Seq        uint64   `json:"seq"`
	Audit      bool     `json:"audit"`
	DecisionID string   `json:"decision_id"`
	RequestID  string   `json:"request_id"`
	Kind       string   `json:"kind"`
	Why        string   `json:"why"`   // "redacted"
	Codes      []string `json:"codes"` // the reason codes that required the redaction
}

func newReplaySkip(r engine.ReplayResult) replaySkip {
	s := replaySkip{Tenant: r.Tenant, Workflow: r.Workflow, Seq: r.Seq, Audit: r.Audit, Why: r.Skipped, Codes: []string{}}
	if r.Recorded != nil {
		s.DecisionID, s.RequestID, s.Kind = r.Recorded.DecisionID, r.Recorded.RequestID, r.Recorded.Kind
	}
	if r.Redaction != nil {
		s.Codes = r.Redaction.Codes
	}
	return s
}

// replayCode is how many reasons with one code the candidate adds and removes.
type replayCode struct {
	Code    string `json:"code"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
}

// replayTransition is every change from one outcome to another.
type replayTransition struct {
	From    engine.Outcome `json:"from"`
	To      engine.Outcome `json:"to"`
	Count   int            `json:"count"`
	Changes []replayChange `json:"changes"`
}

// replayChange is one decision that would change.
type replayChange struct {
	Tenant        string         `json:"tenant_id"`
	Workflow      string         `json:"workflow_id"`
	Seq           uint64         `json:"seq"`
	Audit         bool           `json:"audit"` // a blocked start, in the tenant's audit stream
	DecisionID    string         `json:"decision_id"`
	RequestID     string         `json:"request_id"`
	Kind          string         `json:"kind"`
	OutcomeBefore engine.Outcome `json:"outcome_before"`
	OutcomeAfter  engine.Outcome `json:"outcome_after"`
	// ReasonsAdded and ReasonsRemoved are the codes of the candidate's reasons the
	// recorded decision has not, and of the recorded reasons the candidate's has not: a
	// reason is the same when its code, gate, path, outcome and message are. A code may
	// be in both (its reason moved to another field, or its message changed), and twice
	// in one (two reasons with that code).
	ReasonsAdded   []string `json:"reasons_added"`
	ReasonsRemoved []string `json:"reasons_removed"`
	// ReasonsBefore and ReasonsAfter are the recorded reasons and the candidate's.
	ReasonsBefore     []engine.Reason `json:"reasons_before"`
	ReasonsAfter      []engine.Reason `json:"reasons_after"`
	added, removed    []engine.Reason // the reasons behind ReasonsAdded and ReasonsRemoved
	StatusAfterBefore string          `json:"status_after_before"`
	StatusAfterAfter  string          `json:"status_after_after"`
	Fields            []string        `json:"fields"`
	ValidationChanged bool            `json:"validation_changed"`
}

func newReplayChange(r engine.ReplayResult) replayChange {
	before, after := r.Recorded, r.Replayed
	ch := replayChange{
		Tenant: r.Tenant, Workflow: r.Workflow, Seq: r.Seq, Audit: r.Audit,
		DecisionID: before.DecisionID, RequestID: before.RequestID, Kind: before.Kind,
		OutcomeBefore: before.Outcome, OutcomeAfter: after.Outcome,
		ReasonsBefore:     orEmpty(before.Reasons),
		ReasonsAfter:      orEmpty(after.Reasons),
		added:             reasonsMinus(after.Reasons, before.Reasons),
		removed:           reasonsMinus(before.Reasons, after.Reasons),
		StatusAfterBefore: before.StatusAfter, StatusAfterAfter: after.StatusAfter,
		Fields:            r.Changed,
		ValidationChanged: r.ValidationChanged,
	}
	ch.ReasonsAdded, ch.ReasonsRemoved = reasonCodes(ch.added), reasonCodes(ch.removed)
	return ch
}

func orEmpty(rs []engine.Reason) []engine.Reason {
	if rs == nil {
		return []engine.Reason{}
	}
	return rs
}

// reasonsMinus returns the reasons of a not in b, counted as a multiset (a reason twice
// in a and once in b is once in the result), sorted by code, path and message.
func reasonsMinus(a, b []engine.Reason) []engine.Reason {
	left := slices.Clone(b)
	out := []engine.Reason{}
	for _, r := range a {
		if i := slices.Index(left, r); i >= 0 {
			left = slices.Delete(left, i, i+1)
			continue
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(x, y engine.Reason) int {
		return cmp.Or(cmp.Compare(x.Code, y.Code), cmp.Compare(x.Path, y.Path), cmp.Compare(x.Message, y.Message))
	})
	return out
}

func reasonCodes(rs []engine.Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Code
	}
	return out
}

// transitionRank orders transitions: block → allow first, then other loosening flips,
// then tightening flips, then changes that keep the outcome.
func transitionRank(from, to engine.Outcome) int {
	strict := func(o engine.Outcome) bool { return o == engine.Block || o == engine.Fail }
	switch {
	case from == engine.Block && to == engine.Allow:
		return 0
	case strict(from) && !strict(to):
		return 1
	case from != to && strict(to):
		return 2
	case from != to:
		return 3
	}
	return 4
}

func (rep *replayReport) group(changes []replayChange) {
	byKey := map[[2]engine.Outcome]*replayTransition{}
	byCode := map[string]*replayCode{}
	code := func(c string) *replayCode {
		if byCode[c] == nil {
			byCode[c] = &replayCode{Code: c}
		}
		return byCode[c]
	}
	for _, ch := range changes {
		for _, c := range ch.ReasonsAdded {
			code(c).Added++
		}
		for _, c := range ch.ReasonsRemoved {
			code(c).Removed++
		}
		k := [2]engine.Outcome{ch.OutcomeBefore, ch.OutcomeAfter}
		t := byKey[k]
		if t == nil {
			t = &replayTransition{From: k[0], To: k[1]}
			byKey[k] = t
			rep.Transitions = append(rep.Transitions, t)
		}
		t.Changes = append(t.Changes, ch)
		t.Count++
		rep.Changed++
		if ch.OutcomeBefore != ch.OutcomeAfter {
			rep.Flips++
		}
		if ch.OutcomeBefore == engine.Block && ch.OutcomeAfter == engine.Allow {
			rep.Loosened++
		}
	}
	for _, c := range byCode {
		rep.Codes = append(rep.Codes, *c)
	}
	slices.SortFunc(rep.Codes, func(a, b replayCode) int {
		return cmp.Or(cmp.Compare(b.Added+b.Removed, a.Added+a.Removed), cmp.Compare(a.Code, b.Code))
	})
	sort.Slice(rep.Transitions, func(i, j int) bool {
		a, b := rep.Transitions[i], rep.Transitions[j]
		ra, rb := transitionRank(a.From, a.To), transitionRank(b.From, b.To)
		if ra != rb {
			return ra < rb
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	for _, t := range rep.Transitions {
		sort.Slice(t.Changes, func(i, j int) bool {
			a, b := t.Changes[i], t.Changes[j]
			if a.Tenant != b.Tenant {
				return a.Tenant < b.Tenant
			}
			if a.Audit != b.Audit {
				return !a.Audit
			}
			if a.Workflow != b.Workflow {
				return a.Workflow < b.Workflow
			}
			return a.Seq < b.Seq
		})
	}
}

func (rep *replayReport) print(c *cli) {
	fmt.Fprintf(c.stdout, "replayed %s of %s against %s\n", count(rep.Replayed, "decision"), count(rep.Workflows, "workflow"), rep.BundleDigest)
	if len(rep.UnchangedPacks) > 0 {
		fmt.Fprintf(c.stdout, "left out %s of packs the candidate does not change: %s (--all decides them again)\n", count(rep.Unchanged, "decision"), strings.Join(rep.UnchangedPacks, ", "))
	}
	if rep.Skipped > 0 {
		fmt.Fprintf(c.stdout, "skipped %d not replayable: the log holds their request redacted\n", rep.Skipped)
		for _, sk := range rep.SkippedRecords {
			where := sk.Workflow
			if sk.Audit {
				where = "(audit)"
			}
			fmt.Fprintf(c.stdout, "  %s/%s #%d  %s  %s  %s  %s %s\n", sk.Tenant, where, sk.Seq, sk.Kind, sk.RequestID, sk.DecisionID, sk.Why, strings.Join(sk.Codes, ","))
		}
	}
	if rep.Changed == 0 {
		fmt.Fprintln(c.stdout, "no decision would change")
		return
	}
	rep.printChanges(c)
}
