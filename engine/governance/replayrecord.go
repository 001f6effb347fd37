package governance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// plan is the replay plan of opts with candidate: with SkipUnchanged, the packs whose
// files candidate shares with the ledger's bundle are not decided again.
func (l *Ledger) plan(candidate *pipeline.Pipeline, opts ReplayOptions) replayPlan {
	plan := replayPlan{since: opts.Since, timeout: ExplainTimeout(candidate, opts.EvalTimeout)}
	if opts.SkipUnchanged {
		plan.recordedDigest, plan.unchanged = l.p.Digest(), map[string]bool{}
		for _, p := range l.p.Contracts().PackNames() {
			if d := l.p.PackDigest(p); d != "" && d == candidate.PackDigest(p) {
				plan.unchanged[p] = true
			}
		}
	}
	return plan
}

// ReplayRecord re-decides one recorded decision, found by its id, exactly as Replay
// re-decides it in a replay of its whole workflow (opts.Since, Tenant, Workflow and
// Workers aside): the result is the one Replay would give fn for that record. ok is
// false for a record Replay leaves out: a request of a security audit stream the engine
// blocked before any policy was asked, or a console event. It fails with
// handoff.ErrDecisionNotFound when no decision has the id.
func (l *Ledger) ReplayRecord(ctx context.Context, candidate *pipeline.Pipeline, decisionID string, opts ReplayOptions) (res ReplayResult, ok bool, err error) {
	if candidate == nil {
		candidate = l.p
	}
	plan := l.plan(candidate, opts)
	loc, err := l.findDecision(ctx, decisionID)
	if err != nil {
		return ReplayResult{}, false, err
	}
	if loc.audit {
		rec, err := l.log.Record(ctx, loc.tenant, "", loc.seq)
		if err != nil {
			return ReplayResult{}, false, err
		}
		return l.replayAuditRecord(candidate, loc.tenant, rec, plan)
	}
	if loc.entry.Redaction != nil || plan.skips(loc.decision) {
		// Nothing is decided: the record is reported without rebuilding its state.
		ent := pipeline.RecordedEntry{Redaction: loc.entry.Redaction}
		res := plan.skip(ent, loc.decision)
		res.Tenant, res.Workflow, res.Seq = loc.tenant, loc.workflow, loc.seq
		return res, true, nil
	}
	plan.only = loc.seq
	found := errors.New("found")
	err = l.replayWorkflow(ctx, candidate, replayTarget{loc.tenant, loc.workflow}, plan, func(r ReplayResult) error {
		res = r
		return found
	})
	switch {
	case errors.Is(err, found):
		return res, true, nil
	case err != nil:
		return ReplayResult{}, false, err
	}
	return ReplayResult{}, false, fmt.Errorf("%w: %s", handoff.ErrDecisionNotFound, decisionID)
}

// replayAuditRecord replays one record of a tenant's security audit stream when it is a
// start the policy blocked; ok is false for the others, which the engine blocked before
// any policy was asked (undecodable, unknown pack, an existing workflow id, a reused
// request_id), whatever the bundle says, and for console events.
func (l *Ledger) replayAuditRecord(candidate *pipeline.Pipeline, tenant string, rec store.Record, plan replayPlan) (ReplayResult, bool, error) {
	if IsConsoleRecord(rec) {
		return ReplayResult{}, false, nil // a console event is no decision: nothing to replay
	}
	ent, err := pipeline.DecodeRecordedEntry(rec.Payload)
	if err != nil {
		return ReplayResult{}, false, fmt.Errorf("engine: replay: audit record %d of tenant %s: %w", rec.Seq, tenant, err)
	}
	recorded, err := pipeline.DecodeDecision(ent.Decision)
	if err != nil {
		return ReplayResult{}, false, err
	}
	if recorded.Kind != "start" || recorded.Pack == "" || ent.Request == nil || ent.Request["undecodable"] != nil {
		return ReplayResult{}, false, nil
	}
	if ent.Redaction != nil {
		res := plan.skip(ent, recorded)
		res.Tenant, res.Workflow, res.Seq, res.Audit = tenant, recorded.WorkflowID, rec.Seq, true
		return res, true, nil
	}
	var seed []handoff.ValidationError
	for _, v := range ent.Validation {
		switch {
		case v.Code == "WORKFLOW_EXISTS" || v.Code == "IDEMPOTENCY_KEY_REUSED":
			return ReplayResult{}, false, nil // blocked by the engine
		case v.Code == "SCHEMA_INVALID" && v.Path == "workflow_id":
			seed = append(seed, v) // found while routing, before validation
		}
	}
	if plan.skips(recorded) {
		res := plan.skip(ent, recorded)
		res.Tenant, res.Workflow, res.Seq, res.Audit = tenant, recorded.WorkflowID, rec.Seq, true
		return res, true, nil
	}
	now, err := time.Parse("2006-01-02T15:04:05.000Z", ent.Now)
	if err != nil {
		return ReplayResult{}, false, fmt.Errorf("engine: replay: audit record %d: time %q: %w", rec.Seq, ent.Now, err)
	}
	org, _ := ent.Request["organization_id"].(string)
	subject, _ := ent.Request["subject_id"].(string)
	state := pipeline.NewState(recorded.WorkflowID, recorded.TenantID, org, recorded.Pack, subject, recorded.StatusBefore, ent.Now)
	res, err := replayOne(candidate, ent, recorded, state, now, true, false, plan.timeout, seed...)
	if err != nil {
		return ReplayResult{}, false, err
	}
	res.Tenant, res.Workflow, res.Seq, res.Audit = tenant, recorded.WorkflowID, rec.Seq, true
	return res, true, nil
}
