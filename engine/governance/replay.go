package governance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/internal/canonjson"
	"github.com/handoff-dev/handoff/store"
)

// ReplayOptions select the recorded decisions Replay re-decides. The zero value selects
// every decision of every workflow of every tenant.
type ReplayOptions struct {
	// Tenant limits the replay to one tenant. Default: every tenant.
	Tenant string
	// Workflow limits the replay to one workflow. Default: every workflow.
	Workflow string
	// Since skips decisions recorded before this time. The state before them is still
	// rebuilt from the whole workflow. Default: the zero time, every decision.
	Since time.Time
	// Workers is how many workflows are replayed at once. Default GOMAXPROCS.
	Workers int
	// EvalTimeout is the deadline of one policy evaluation. Default: ten times the
	// candidate's own deadline, at least 30s (ExplainTimeout): a decision recorded
	// within the deadline must not turn into POLICY_TIMEOUT because the replaying
	// machine is busy, while a candidate policy that never ends is still stopped.
	EvalTimeout time.Duration
	// SkipUnchanged does not re-decide a record of a pack whose contracts and policies
	// the candidate shares with the engine's bundle (the same Pipeline.PackDigest), when
	// the record was made by that bundle (its bundle_digest is the engine's): the same
	// files decide it alike. The record is reported with Skipped "unchanged". Default
	// false: every record is re-decided, which is what checking a new engine build on
	// the same bundle needs.
	SkipUnchanged bool
}

// ExplainTimeout is the evaluation deadline of a replay or an explanation by p: d, or
// when it is zero ten times p's own deadline, at least 30s.
func ExplainTimeout(p *pipeline.Pipeline, d time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return max(10*p.Timeout(), 30*time.Second)
}

// ReplayResult is one recorded decision and the decision the candidate bundle makes on
// the same input. Results of one workflow arrive in log order; workflows interleave.
type ReplayResult struct {
	Tenant   string `json:"tenant_id"`
	Workflow string `json:"workflow_id"`
	Seq      uint64 `json:"seq"`
	// Audit says the record is in the tenant's security audit stream: a start the
	// policy blocked, which created no workflow. Seq is then its seq in that stream.
	Audit    bool              `json:"audit,omitempty"`
	Recorded *handoff.Decision `json:"recorded"`
	Replayed *handoff.Decision `json:"replayed"`
	// Identical says the replayed decision is byte for byte the recorded one in the
	// canonical encoding the log stores, the reasons' titles aside (they name the rules
	// that produced the reasons and decide nothing; a decision recorded before reasons
	// carried titles has none).
	Identical bool `json:"identical"`
	// Changed lists the fields of the decision that differ, the bundle digest aside
	// (it names the bundle, so it differs whenever the bundle does). Empty when the
	// candidate decides the same.
	Changed []string `json:"changed"`
	// ValidationChanged says the candidate's contracts judged the request differently
	// from the recorded validation.
	ValidationChanged bool `json:"validation_changed,omitempty"`
	// Skipped says the record was not replayed, and why: "redacted" when the log holds a
	// redacted copy of the request (it carried a secret or personal data), which no
	// bundle can decide again; "unchanged" when ReplayOptions.SkipUnchanged found its
	// pack unchanged. Replayed is then nil, and Identical false. An unchanged record of
	// a workflow whose records are all unchanged is reported with the decision's ids,
	// kind, pack, outcome and policy only: the rest of it is not read.
	Skipped string `json:"skipped,omitempty"`
	// Redaction is the record's redaction when Skipped is "redacted".
	Redaction *handoff.Redaction `json:"redaction,omitempty"`

	explanation *pipeline.Traced // set when the replay explains
}

// ErrReplayDiverged reports that the state rebuilt from the recorded decisions differs
// from what the log says: the store was not recorded with the bundle of the engine whose
// store is replayed, or the log is damaged (handoffctl verify).
var ErrReplayDiverged = errors.New("engine: replay: rebuilt state differs from the recorded state")

// Replay re-decides recorded requests: every decision of the selected workflows of the
// log is decided again by candidate's bundle (the ledger's own when candidate is nil)
// on the input the engine recorded for it, and fn receives the recorded and replayed
// decision. Nothing is written to either store.
//
// The input of a recorded decision is the request, the derived values and the time
// recorded with it, and the workflow state before it. That state is not stored per
// decision; Replay rebuilds it by folding the recorded decisions' events in log order
// from the state the start created, with the ledger's pack contracts (the bundle the log
// was recorded with). This is exact because the engine's state is a pure fold of its
// decisions: a decision's state_version and, at the end, the stored state snapshot are
// checked against the rebuilt state, and any difference stops the replay with
// ErrReplayDiverged. Validation is run again with the candidate's contracts, since a
// contract change is part of what a candidate may change; against the recorded bundle
// it gives the recorded errors.
//
// The replayed decision keeps the recorded decision_id (the only random value the
// pipeline draws) and decided_at (the recorded time). The derived input is derived again
// with the ledger's patterns (a candidate may change what counts as forbidden content or
// injection), keeping the recorded payload size and jitter. A record made before the
// jitter was part of the derived input carries a random jitter the policy never saw:
// when its delay lies within 10% above the replayed delay, the recorded delay is kept.
//
// Starts the policy blocked are in the tenants' security audit streams (a blocked start
// creates no workflow); they are replayed too, after the workflows, on the state a start
// begins with. The other requests of the audit streams are not: the engine blocked them
// before any policy was asked (undecodable, unknown pack or workflow, another tenant's
// workflow, a reused request_id), whatever the bundle says.
//
// A record whose request the log holds redacted (guardrails.redaction: it carried a
// secret or personal data) cannot be decided again: fn receives it with Skipped
// "redacted" and no replayed decision.
//
// fn is called from one goroutine at a time. Replay is safe for concurrent use.
func (l *Ledger) Replay(ctx context.Context, candidate *pipeline.Pipeline, opts ReplayOptions, fn func(ReplayResult) error) error {
	if candidate == nil {
		candidate = l.p
	}
	targets, audits, err := l.replayTargets(ctx, opts)
	if err != nil {
		return err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	emit := func(res ReplayResult) error {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil {
			return firstErr
		}
		return fn(res)
	}
	plan := l.plan(candidate, opts)
	jobs := make(chan replayTarget)
	for range workers {
		wg.Go(func() {
			for t := range jobs {
				if err := l.replayWorkflow(ctx, candidate, t, plan, emit); err != nil {
					fail(err)
				}
			}
		})
	}
	for _, t := range targets {
		select {
		case jobs <- t:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	for _, t := range audits {
		if err := l.replayAuditStarts(ctx, candidate, t, plan, emit); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// replayAuditStarts replays the starts of a tenant's security audit stream that the
// policy blocked: a blocked start creates no workflow, so it is recorded there. Requests
// the engine blocked before asking the policy (undecodable, unknown pack, an existing
// workflow id, a reused request_id) are left out: no bundle can change them.
func (l *Ledger) replayAuditStarts(ctx context.Context, candidate *pipeline.Pipeline, tenant string, plan replayPlan, emit func(ReplayResult) error) error {
	return l.log.AuditRecords(ctx, tenant, 1, func(rec store.Record) error {
		if rec.Time.Before(plan.since) {
			return nil
		}
		res, ok, err := l.replayAuditRecord(candidate, tenant, rec, plan)
		if err != nil || !ok {
			return err
		}
		return emit(res)
	})
}

type replayTarget struct{ tenant, workflow string }

// replayTargets lists the selected workflows, sorted by tenant then workflow, and the
// tenants whose audit streams are selected (none when a workflow is), in order.
func (l *Ledger) replayTargets(ctx context.Context, opts ReplayOptions) (workflows []replayTarget, audits []string, err error) {
	chains, err := l.chains(ctx, opts.Tenant, opts.Workflow)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range chains {
		if c.Audit {
			audits = append(audits, c.Tenant)
		} else {
			workflows = append(workflows, replayTarget{c.Tenant, c.Workflow})
		}
	}
	return workflows, audits, nil
}

// replayPlan says which records of a workflow replayWorkflow re-decides.
type replayPlan struct {
	since   time.Time     // records before it are only folded
	only    uint64        // when set, only this seq is re-decided and the walk stops after it
	explain bool          // trace the evaluation and explain it
	timeout time.Duration // the deadline of one evaluation
	// With SkipUnchanged: the engine's bundle digest and the packs the candidate does
	// not change.
	recordedDigest string
	unchanged      map[string]bool
}

// skips says a record need not be re-decided: the engine's bundle made it and the
// candidate does not change its pack.
func (p replayPlan) skips(recorded *handoff.Decision) bool {
	return p.unchanged[recorded.Pack] && recorded.Policy.BundleDigest == p.recordedDigest
}

// skip is the result for a record that is reported, not re-decided: its request is
// recorded redacted, or its pack is unchanged.
func (p replayPlan) skip(ent pipeline.RecordedEntry, recorded *handoff.Decision) ReplayResult {
	if ent.Redaction != nil {
		return ReplayResult{Recorded: recorded, Skipped: "redacted", Redaction: ent.Redaction, Changed: []string{}}
	}
	return ReplayResult{Recorded: recorded, Skipped: "unchanged", Changed: []string{}}
}

// replayWorkflow replays one workflow's records in order.

func (l *Ledger) replayWorkflow(ctx context.Context, candidate *pipeline.Pipeline, t replayTarget, plan replayPlan, emit func(ReplayResult) error) error {
	if len(plan.unchanged) > 0 && plan.only == 0 {
		if done, err := l.skipWorkflow(ctx, t, plan, emit); done || err != nil {
			return err
		}
	}
	return l.walkWorkflow(ctx, t, func(v visit) error {
		if plan.only == 0 && !v.rec.Time.Before(plan.since) || plan.only == v.rec.Seq {
			if v.ent.Redaction != nil || plan.skips(v.recorded) {
				res := plan.skip(v.ent, v.recorded)
				res.Tenant, res.Workflow, res.Seq = t.tenant, t.workflow, v.rec.Seq
				return emit(res)
			}
			res, err := replayOne(candidate, v.ent, v.recorded, v.state, v.now, v.create, plan.explain, plan.timeout)
			if err != nil {
				return err
			}
			res.Tenant, res.Workflow, res.Seq = t.tenant, t.workflow, v.rec.Seq
			return emit(res)
		}
		return nil
	})
}

// skipWorkflow emits every selected record of a workflow as unchanged when the plan
// skips them all, without rebuilding the workflow's state (nothing is decided on it):
// it reads only the recorded decisions. It emits nothing and returns false when a record
// must be decided again or is redacted; the workflow is then walked as usual.
func (l *Ledger) skipWorkflow(ctx context.Context, t replayTarget, plan replayPlan, emit func(ReplayResult) error) (bool, error) {
	var out []ReplayResult
	errMustDecide := errors.New("a record must be decided again")
	err := l.log.Records(ctx, t.tenant, t.workflow, 1, func(rec store.Record) error {
		// One pass that keeps the decision's identity and skips the rest.
		var ent struct {
			Decision  *decisionIdentity  `json:"decision"`
			Redaction *handoff.Redaction `json:"redaction"`
		}
		if err := json.Unmarshal(rec.Payload, &ent); err != nil || ent.Decision == nil {
			return fmt.Errorf("engine: tenant %s workflow %s record %d: undecodable record: %v", t.tenant, t.workflow, rec.Seq, err)
		}
		recorded := ent.Decision.decision()
		if ent.Redaction != nil || !plan.skips(recorded) {
			return errMustDecide
		}
		if !rec.Time.Before(plan.since) {
			out = append(out, ReplayResult{Tenant: t.tenant, Workflow: t.workflow, Seq: rec.Seq, Recorded: recorded, Skipped: "unchanged", Changed: []string{}})
		}
		return nil
	})
	switch {
	case errors.Is(err, errMustDecide):
		return false, nil
	case err != nil:
		return false, err
	}
	for _, res := range out {
		if err := emit(res); err != nil {
			return true, err
		}
	}
	return true, nil
}

// decisionIdentity is the part of a recorded decision an unchanged record is reported
// with.
type decisionIdentity struct {
	DecisionID string            `json:"decision_id"`
	RequestID  string            `json:"request_id"`
	WorkflowID string            `json:"workflow_id"`
	TenantID   string            `json:"tenant_id"`
	Kind       string            `json:"kind"`
	Pack       string            `json:"pack"`
	Outcome    handoff.Outcome   `json:"outcome"`
	Policy     handoff.PolicyRef `json:"policy"`
}

func (d *decisionIdentity) decision() *handoff.Decision {
	return &handoff.Decision{DecisionID: d.DecisionID, RequestID: d.RequestID, WorkflowID: d.WorkflowID, TenantID: d.TenantID,
		Kind: d.Kind, Pack: d.Pack, Outcome: d.Outcome, Policy: d.Policy}
}

// replayOne decides one recorded request with dc's bundle on the recorded input and the
// rebuilt state before it, through the pipeline as Submit does, with the recorded
// decision's id. With explain, the evaluation is traced.
func replayOne(dc *pipeline.Pipeline, ent pipeline.RecordedEntry, recorded *handoff.Decision, state *handoff.State, now time.Time, create, explain bool, timeout time.Duration, seed ...handoff.ValidationError) (ReplayResult, error) {
	// The policy only reads the state and the pipeline folds into a copy, so the
	// rebuilt state is passed as it is.
	in := pipeline.Input{Request: pipeline.Recorded(ent.Request, recorded), State: state, Start: create,
		Facts: pipeline.Facts{Routing: seed}, Now: now, DecisionID: recorded.DecisionID}
	opts := []pipeline.Option{pipeline.WithTimeout(timeout), pipeline.WithDerived(dc.Rederive(ent.Request, ent.Derived))}
	if explain {
		opts = append(opts, pipeline.WithExplain())
	}
	var out *pipeline.Result
	if pc, err := dc.Contracts().Pack(state.Pack); pc != nil {
		if out, err = dc.Decide(context.Background(), in, opts...); err != nil {
			return ReplayResult{}, err
		}
	} else {
		msg := fmt.Sprintf("pack %s is not in this bundle", state.Pack)
		if err != nil {
			msg = err.Error()
		}
		out = dc.Unroutable(in, msg)
	}
	validation := out.Validation()
	d, ex := out.Decision, out.Explanation
	if _, seen := ent.Derived["jitter_permille"]; !seen && d.Retry != nil && recorded.Retry != nil {
		base := d.Retry.DelayMS
		if got := recorded.Retry.DelayMS; base > 0 && got >= base && got <= base+base/10 {
			d.Retry.DelayMS = got
		}
	}
	d.Recorded = recorded.Recorded
	res := ReplayResult{Recorded: recorded, Replayed: d, explanation: ex}
	// Titles name the rules, they decide nothing: a decision recorded before reasons
	// carried them, or under another title, is the same decision.
	untitled := withoutTitles(d)
	mine, err := canonjson.Marshal(untitled)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("engine: replay: encode decision: %w", err)
	}
	recordedRaw, err := rawWithoutTitles(ent.Decision)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("engine: replay: encode recorded decision: %w", err)
	}
	theirs, err := canonjson.Marshal(recordedRaw)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("engine: replay: encode recorded decision: %w", err)
	}
	res.Identical = bytes.Equal(mine, theirs)
	res.Changed = []string{}
	if !res.Identical {
		if res.Changed, err = changedFields(untitled, recordedRaw); err != nil {
			return ReplayResult{}, err
		}
	}
	res.ValidationChanged = !sameValidation(validation, ent.Validation)
	return res, nil
}

func sameValidation(a, b []handoff.ValidationError) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// withoutTitles is d with its reasons' titles left out.
func withoutTitles(d *handoff.Decision) *handoff.Decision {
	c := *d
	c.Reasons = make([]handoff.Reason, len(d.Reasons))
	for i, r := range d.Reasons {
		r.Title = ""
		c.Reasons[i] = r
	}
	return &c
}

// rawWithoutTitles is a recorded decision with its reasons' titles left out; a decision
// recorded before reasons carried titles is returned as it is.
func rawWithoutTitles(raw json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(raw, []byte(`"title"`)) {
		return raw, nil
	}
	var d map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	if rs, ok := d["reasons"].([]any); ok {
		for _, r := range rs {
			if m, ok := r.(map[string]any); ok {
				delete(m, "title")
			}
		}
	}
	return json.Marshal(d)
}

// changedFields lists the top-level fields of d that differ from the recorded decision,
// in name order, leaving out policy.bundle_digest. Both come without titles.
func changedFields(d *handoff.Decision, recorded json.RawMessage) ([]string, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var mine, theirs map[string]json.RawMessage
	if err := errors.Join(json.Unmarshal(b, &mine), json.Unmarshal(recorded, &theirs)); err != nil {
		return nil, fmt.Errorf("engine: replay: compare decisions: %w", err)
	}
	var pa, pb handoff.PolicyRef
	_ = json.Unmarshal(mine["policy"], &pa)
	_ = json.Unmarshal(theirs["policy"], &pb)
	out := []string{}
	seen := map[string]bool{}
	for _, m := range []map[string]json.RawMessage{mine, theirs} {
		for k := range m {
			if seen[k] {
				continue
			}
			seen[k] = true
			if k == "policy" {
				if pa.Entrypoint != pb.Entrypoint {
					out = append(out, "policy.entrypoint")
				}
				continue
			}
			x, err1 := canonjson.Marshal(mine[k])
			y, err2 := canonjson.Marshal(theirs[k])
			if mine[k] == nil || theirs[k] == nil || errors.Join(err1, err2) != nil || !bytes.Equal(x, y) {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
