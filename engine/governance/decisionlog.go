package governance

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/pipeline"
	"github.com/handoff-dev/handoff/store"
)

// DecisionLog calls fn for every selected decision in OPA's decision-log shape, tenant
// by tenant (each tenant's workflows in id order, then its audit stream), each in log
// order. The input of a workflow decision holds the workflow state before it, rebuilt as
// Replay rebuilds it; a decision of a security audit stream has state null (the engine
// had no workflow state it could trust). Fields a pack lists in its table
// sensitive_fields (request paths such as output.content.research_log) are removed from
// the request and, for output content, from the artifact versions in the state and the
// events of the result; every string so removed is also removed wherever else it appears
// in the state and the result (the next step's context, for one). All are listed in
// Erased. A segment name[*] of a field stands for every element of the list name.
func (l *Ledger) DecisionLog(ctx context.Context, opts handoff.DecisionLogOptions, fn func(handoff.DecisionLogEvent) error) error {
	chains, err := l.chains(ctx, opts.Tenant, opts.Workflow)
	if err != nil {
		return err
	}
	// A tenant's audit stream after its workflows.
	slices.SortStableFunc(chains, func(a, b store.Chain) int {
		return cmp.Or(cmp.Compare(a.Tenant, b.Tenant), compareBool(a.Audit, b.Audit))
	})
	for _, c := range chains {
		t := c.Tenant
		if !c.Audit {
			err := l.walkWorkflow(ctx, replayTarget{t, c.Workflow}, func(v visit) error {
				if v.rec.Time.Before(opts.Since) {
					return nil
				}
				ev, err := l.logEvent(v.rec, v.ent, v.state, "workflow")
				if err != nil {
					return err
				}
				return fn(ev)
			})
			if err != nil {
				return err
			}
			continue
		}
		err := l.log.AuditRecords(ctx, t, 1, func(rec store.Record) error {
			if rec.Time.Before(opts.Since) || IsConsoleRecord(rec) {
				return nil // a console event is no decision
			}
			ent, err := pipeline.DecodeRecordedEntry(rec.Payload)
			if err != nil {
				return fmt.Errorf("engine: audit record %d of tenant %s: %w", rec.Seq, t, err)
			}
			ev, err := l.logEvent(rec, ent, nil, "audit")
			if err != nil {
				return err
			}
			return fn(ev)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// logEvent builds the event of one record.
func (l *Ledger) logEvent(rec store.Record, ent pipeline.RecordedEntry, state *handoff.State, stream string) (handoff.DecisionLogEvent, error) {
	d, err := pipeline.DecodeDecision(ent.Decision)
	if err != nil {
		return handoff.DecisionLogEvent{}, err
	}
	result, err := pipeline.DecodeJSON(ent.Decision)
	if err != nil {
		return handoff.DecisionLogEvent{}, err
	}
	var st any
	if state != nil {
		if st, err = pipeline.ToValue(state); err != nil {
			return handoff.DecisionLogEvent{}, err
		}
	}
	var req any = ent.Request
	if ent.Request == nil {
		req = nil
	}
	validation := ent.Validation
	if validation == nil {
		validation = []handoff.ValidationError{}
	}
	input := map[string]any{
		"pack": d.Pack, "request": req, "validation": map[string]any{"errors": pipeline.ValidationValues(validation)},
		"state": st, "derived": ent.Derived, "now": ent.Now,
	}
	ev := handoff.DecisionLogEvent{
		Labels: map[string]string{
			"id": "handoff", "tenant_id": d.TenantID, "workflow_id": d.WorkflowID,
			"pack": d.Pack, "trace_id": d.TraceID, "request_id": d.RequestID,
		},
		DecisionID: d.DecisionID,
		Bundles:    map[string]handoff.BundleInfo{"handoff": {Revision: d.Policy.BundleDigest}},
		Path:       strings.ReplaceAll(strings.TrimPrefix(d.Policy.Entrypoint, "data."), ".", "/"),
		Input:      input,
		Result:     result,
		Timestamp:  d.DecidedAt,
		Custom:     map[string]any{"stream": stream, "seq": rec.Seq, "hash": rec.Hash},
	}
	if ent.Redaction != nil {
		// input.request is the redacted copy the log holds: say so.
		ev.Custom["redaction"] = ent.Redaction
	}
	ev.Erased = mask(l.p.Contracts(), d.Pack, input, result)
	return ev, nil
}
