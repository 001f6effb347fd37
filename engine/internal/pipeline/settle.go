package pipeline

import (
	"fmt"

	"github.com/handoff-dev/handoff"
	"github.com/handoff-dev/handoff/engine/internal/scan"
)

// settle completes a policy decision: the request's identity, the decision id, the
// time, the status and version before, then the engine invariants, failing closed when
// the decision breaks one. It returns the new state, or nil when nothing changes.
func (p *Pipeline) settle(f *flight, d *Decision, entrypoint string) *State {
	d.Policy = PolicyRef{BundleDigest: p.digest, Entrypoint: entrypoint}
	d.DecisionID = f.decisionID
	d.RequestID, d.TenantID, d.WorkflowID, d.TraceID, d.Kind = f.req.requestID, f.tenant, f.workflow, f.req.trace, f.req.kind
	d.DecidedAt = FormatTime(f.now)
	d.StatusBefore = "NONE"
	if f.pack != nil {
		d.Pack = f.pack.Name
	}
	if f.state != nil {
		d.StatusBefore = f.state.Status
		d.StateVersion = f.state.StateVersion
	}
	next, err := p.enforce(f, d)
	if err != nil {
		*d = *p.rebase(d, p.failClosed(CodePolicyError, "the policy's decision breaks an engine invariant: "+err.Error()))
		return nil
	}
	return next
}

// rebase keeps the identity fields of d on a fail-closed decision.
func (p *Pipeline) rebase(d, fc *Decision) *Decision {
	fc.DecisionID, fc.RequestID, fc.TenantID, fc.WorkflowID, fc.TraceID, fc.Kind, fc.Pack = d.DecisionID, d.RequestID, d.TenantID, d.WorkflowID, d.TraceID, d.Kind, d.Pack
	fc.StatusBefore, fc.StatusAfter, fc.StateVersion, fc.Policy, fc.DecidedAt = d.StatusBefore, d.StatusBefore, d.StateVersion, d.Policy, d.DecidedAt
	return fc
}

// enforce holds the engine invariants whatever the policy said (context packages reach
// the next agent wrapped as untrusted data), and folds the events into a copy of the
// state. It returns the new state, or nil when nothing changes.
func (p *Pipeline) enforce(f *flight, d *Decision) (*State, error) {
	if d.StatusAfter == "" {
		d.StatusAfter = d.StatusBefore
	}
	wrapUntrusted(d.Next, scan.InjectionFlags(f.derived))
	if f.audit || f.pack == nil || f.state == nil {
		if d.Outcome != handoff.Block {
			return nil, fmt.Errorf("a request that cannot be routed must be blocked, policy said %s", d.Outcome)
		}
		d.StatusAfter, d.Events, d.Next = d.StatusBefore, []Event{}, []Next{}
		return nil, nil
	}
	if d.Outcome == handoff.Block {
		if len(d.Events) > 0 || d.StatusAfter != d.StatusBefore {
			return nil, fmt.Errorf("a block changes nothing, but the policy returned %d events and status %s", len(d.Events), d.StatusAfter)
		}
		if f.create {
			d.StatusAfter = d.StatusBefore
		}
		return nil, nil
	}
	if len(d.Reasons) == 0 && d.Outcome != handoff.Allow && d.Outcome != handoff.AwaitHuman && d.Outcome != handoff.Retry {
		return nil, fmt.Errorf("outcome %s without a reason", d.Outcome)
	}
	if !f.pack.HasStatus(d.StatusAfter) {
		return nil, fmt.Errorf("status %s is not a status of pack %s", d.StatusAfter, f.pack.Name)
	}
	if !f.create && len(d.Events) == 0 && d.StatusAfter == d.StatusBefore {
		return nil, nil
	}
	if err := sealHashes(d); err != nil {
		return nil, err
	}
	next := CloneState(f.state)
	if err := Fold(next, d, f.pack, FormatTime(f.now)); err != nil {
		return nil, err
	}
	next.StateVersion++
	d.StateVersion = next.StateVersion
	return next, nil
}
