package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Context transfer (seed section 13): only relevant, permitted context, by reference,
# consistent with the recorded state, without duplication; artifacts always by version,
# hash and status. Size is core's CONTEXT_TOO_LARGE (limits.max_context_bytes).

_context := c if {
	input.request.kind == "handoff"
	c := lib.request.context
	is_object(c)
} else := {}

# _forbidden_context are the context keys no handoff may carry: the do_not_need lists of
# the pack's context packages (another tenant's data, client memory, instructions taken
# as commands, tool allowlists, secrets, raw logs, whole documents and prompts), in lower
# case. The table is config.forbidden_context in contracts/assessment/config.cue, drawn
# from the context packages there.
_forbidden_context := object.get(lib.pack_config, "forbidden_context", [])

# METADATA
# title: Forbidden context
# description: >-
#   The handoff's context carries a key of the forbidden context (seed section 13):
#   another tenant's data, a client's global memory, an instruction taken as a command, a
#   tool allowlist made by the agent, secrets, raw logs, whole documents or prompts.
#   Checked on the raw request, so it is named even when the schema already refuses the
#   key.
# custom:
#   code: CONTEXT_FORBIDDEN
#   outcome: block
reasons contains r if {
	input.request.kind == "handoff"
	ctx := lib.request.context
	is_object(ctx)
	some k, _ in ctx
	lower(k) in _forbidden_context
	r := lib.gate_reason(rego.metadata.rule(), sprintf("context.%s is forbidden context: a handoff transfers references to permitted context only", [k]), sprintf("context.%s", [k]), "GR-CONTEXT", "block")
}

_context_checked if {
	_handoff
	_expected
}

_ctx_artifacts := [a | some a in object.get(_context, "artifacts", []); is_object(a)]

_listed(ref) if {
	some a in _ctx_artifacts
	_same_version(a.ref, ref)
}

_claims_approval(status) if status in core.approved_statuses

# _status_claims are [path, ref, claimed status] the context states.
_status_claims contains [sprintf("context.artifacts[%d].status", [i]), a.ref, a.status] if {
	_context_checked
	some i, a in _ctx_artifacts
}

_status_claims contains [sprintf("context.approval_status.%s", [t]), v.ref, s] if {
	_context_checked
	some t, s in object.get(_context, "approval_status", {})
	v := _claimed_version(t)
}

# _claimed_version is the version of a type the handoff works from: its input of that
# type, else the version in force, else the latest (a version sent back or rejected).
_claimed_version(type) := v if {
	v := _input_version(type)
} else := v if {
	v := _in_force(type)
} else := core.latest_version(type)

# _unfounded_claims are [path, type, claimed status] for approval_status entries about a
# type the workflow has not recorded (or that is no artifact type at all): a status the
# state does not hold is never claimed, whatever the type.
_unfounded_claims contains [sprintf("context.approval_status.%s", [t]), t, s] if {
	_context_checked
	some t, s in object.get(_context, "approval_status", {})
	not _claimed_version(t)
}

_unfounded_message(path, type, claimed) := sprintf("%s says %s is %s, but this workflow has recorded no %s version", [path, type, claimed, type])

_recorded_status(ref) := core.ref_version(ref).status

# METADATA
# title: Approval bypass by context
# description: >-
#   The handoff's context says a version is approved (or final) that the state does not
#   hold as approved: a handoff never carries an approval a person did not give.
# custom:
#   code: APPROVAL_BYPASS
#   outcome: block
reasons contains r if {
	some [path, ref, claimed] in _status_claims
	_claims_approval(claimed)
	recorded := _recorded_status(ref)
	not _claims_approval(recorded)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s says %s v%v is %s, but it is %s", [path, ref.type, ref.version, claimed, recorded]), path, "GR-APPROVAL", "block")
}

# METADATA
# title: Approval bypass by context about an unrecorded type
# description: >-
#   The handoff's context.approval_status says a type is approved (or final) although
#   the workflow has recorded no version of it: a claim about a type without a version
#   is checked like any other.
# custom:
#   code: APPROVAL_BYPASS
#   outcome: block
reasons contains r if {
	some [path, type, claimed] in _unfounded_claims
	_claims_approval(claimed)
	r := lib.gate_reason(rego.metadata.rule(), _unfounded_message(path, type, claimed), path, "GR-APPROVAL", "block")
}

_mismatches contains [path, _unfounded_message(path, type, claimed)] if {
	some [path, type, claimed] in _unfounded_claims
	not _claims_approval(claimed)
}

_mismatches contains [sprintf("input_artifacts[%d]", [i]), sprintf("%s v%v has no status in context.artifacts: artifacts are referenced by version, hash and status", [ref.type, ref.version])] if {
	_context_checked
	some i, ref in lib.inputs
	not _listed(ref)
}

_mismatches contains [path, sprintf("%s says %s v%v is %s, but it is %s", [path, ref.type, ref.version, claimed, recorded])] if {
	some [path, ref, claimed] in _status_claims
	recorded := _recorded_status(ref)
	claimed != recorded
	not _claims_approval(claimed)
}

_mismatches contains [sprintf("context.artifacts[%d].ref", [i]), sprintf("%s v%v is not recorded in this workflow", [a.ref.type, a.ref.version])] if {
	_context_checked
	some i, a in _ctx_artifacts
	not core.ref_version(a.ref)
}

_mismatches contains [sprintf("context.artifacts[%d].ref.hash", [i]), sprintf("%s v%v has hash %s, not %s", [a.ref.type, a.ref.version, core.ref_version(a.ref).ref.hash, a.ref.hash])] if {
	_context_checked
	some i, a in _ctx_artifacts
	core.ref_version(a.ref).ref.hash != a.ref.hash
}

_mismatches contains [sprintf("context.artifacts[%d].ref.id", [i]), sprintf("%s v%v has id %q, not %q", [a.ref.type, a.ref.version, core.ref_version(a.ref).ref.id, a.ref.id])] if {
	_context_checked
	some i, a in _ctx_artifacts
	core.ref_version(a.ref).ref.id != a.ref.id
}

_mismatches contains ["context.workflow_state", sprintf("context.workflow_state is %s, but the workflow is in %s", [s, lib.status])] if {
	_context_checked
	s := _context.workflow_state
	s != lib.status
}

_mismatches contains ["context.previous_output.ref", sprintf("previous_output %s v%v is not a recorded version with that hash", [ref.type, ref.version])] if {
	_context_checked
	ref := _context.previous_output.ref
	not core.ref_matches(ref)
}

_known_candidates := {c.candidate_id | some c in object.get(_content_of(_in_force("KNOWLEDGE_PACKAGE")), "evidence_candidates", [])}

_mismatches contains [sprintf("context.kb_evidence_candidates[%d]", [i]), sprintf("%q is not an evidence candidate of the KNOWLEDGE_PACKAGE in force", [c])] if {
	_context_checked
	some i, c in object.get(_context, "kb_evidence_candidates", [])
	not c in _known_candidates
}

_ctx_flags := [f | some f in object.get(_context, "conflict_flags", []); is_object(f)]

_mismatches contains [sprintf("context.conflict_flags[%d].conflict_id", [i]), sprintf("conflict %q is not a conflict of this workflow", [f.conflict_id])] if {
	_context_checked
	some i, f in _ctx_flags
	is_string(f.conflict_id)
	not lib.state.conflicts[f.conflict_id]
}

_mismatches contains [sprintf("context.conflict_flags[%d]", [i]), sprintf("context.conflict_flags[%d] (%s) names no conflict_id: a conflict flag is a conflict this workflow recorded", [i, object.get(f, "conflict_type", "")])] if {
	_context_checked
	some i, f in _ctx_flags
	not is_string(object.get(f, "conflict_id", null))
}

# _flag_facts are what the workflow recorded about a conflict: its type and status (state)
# and its control (its CONFLICT_EVENT).
_flag_facts(id) := object.union(
	{"conflict_type": c.conflict_type, "status": c.status},
	{"control_id": e.control_id | some v in core.artifact("CONFLICT_EVENT").versions; e := v.content; e.conflict_id == id; e.control_id},
) if {
	c := lib.state.conflicts[id]
}

_mismatches contains [sprintf("context.conflict_flags[%d].%s", [i, field]), sprintf("context.conflict_flags[%d] says conflict %q has %s %v, but it has %v", [i, f.conflict_id, field, f[field], object.get(facts, field, "none")])] if {
	_context_checked
	some i, f in _ctx_flags
	facts := _flag_facts(f.conflict_id)
	some field in ["conflict_type", "status", "control_id"]
	f[field] != object.get(facts, field, null)
}

# context.retry is the pending retry the context was built for: the retry count, type and
# reason of the RETRY_RECORD the failure recorded.
_granted_retry := {"count": core.counter(core.retry_counter(_task)), "type": _pending_retry.retry_type, "reason": _pending_retry.retry_reason} if {
	_retry_pending(_task)
	_pending_retry
}

_mismatches contains ["context.retry", msg] if {
	_context_checked
	claimed := _context.retry
	not claimed == _granted_retry
	msg := _retry_claim_message(claimed)
}

_retry_claim_message(claimed) := sprintf("context.retry says retry %v (%s) of task %q, but the retry granted is %v (%s)", [claimed.count, claimed.type, _task, _granted_retry.count, _granted_retry.type]) if {
	_granted_retry
} else := sprintf("context.retry says retry %v (%s) of task %q, but no retry of it is pending", [claimed.count, claimed.type, _task])

# context.validation_status is checked against the statuses the context's own artifacts
# have and the open conflicts: each value states a fact of the recorded state.
_ctx_recorded_statuses := {v.status | some a in _ctx_artifacts; v := core.ref_version(a.ref)}

_open_conflict_ids := {id | some id, c in lib.state.conflicts; c.status == "open"}

_validation_holds("conflict_pending") if count(_open_conflict_ids) > 0

_validation_holds("pending_human_validation") if "under_review" in _ctx_recorded_statuses

_validation_holds("validated") if {
	some s in _ctx_recorded_statuses
	s in core.approved_statuses
}

_validation_holds("passed") if {
	not "under_review" in _ctx_recorded_statuses
	count(_open_conflict_ids) == 0
}

_validation_claim := v if {
	_context_checked
	v := _context.validation_status
	not _validation_holds(v)
}

_validation_message := sprintf("context.validation_status is %s, but the context's artifacts are %v and %d conflicts are open", [_validation_claim, sort(_ctx_recorded_statuses), count(_open_conflict_ids)])

_mismatches contains ["context.validation_status", _validation_message] if {
	_validation_claim != "validated"
}

# METADATA
# title: Validation claimed by context
# description: >-
#   The handoff's context.validation_status says validated although none of the
#   context's artifacts is approved: a person's validation is never claimed.
# custom:
#   code: APPROVAL_BYPASS
#   outcome: block
reasons contains r if {
	_validation_claim == "validated"
	r := lib.gate_reason(rego.metadata.rule(), _validation_message, "context.validation_status", "GR-APPROVAL", "block")
}

# context.approval_decision is a person's decision the workflow recorded at that stage.
_approval_claim := a if {
	_context_checked
	a := _context.approval_decision
	is_object(a)
}

_recorded_approval := a if {
	a := lib.state.approvals[_approval_claim.stage]
	is_object(a)
}

_approval_claim_problem := sprintf("context.approval_decision says %q decided %s at %s, but the workflow recorded %s", [_approval_claim.by, _approval_claim.decision, _approval_claim.stage, _recorded_label]) if {
	not _recorded_approval
} else := sprintf("context.approval_decision says %q decided %s at %s, but the workflow recorded %s", [_approval_claim.by, _approval_claim.decision, _approval_claim.stage, _recorded_label]) if {
	some field in ["decision", "by"]
	_approval_claim[field] != _recorded_approval[field]
}

_recorded_label := sprintf("%s by %q", [_recorded_approval.decision, _recorded_approval.by]) if _recorded_approval

else := "no decision there"

_mismatches contains ["context.approval_decision", _approval_claim_problem] if {
	_approval_claim.decision != "APPROVE"
}

# METADATA
# title: Approval claimed by context
# description: >-
#   The handoff's context.approval_decision says a person approved at a stage where the
#   workflow recorded no such approval (or another person's): an approval is never
#   carried by a handoff.
# custom:
#   code: APPROVAL_BYPASS
#   outcome: block
reasons contains r if {
	_approval_claim.decision == "APPROVE"
	msg := _approval_claim_problem
	r := lib.gate_reason(rego.metadata.rule(), msg, "context.approval_decision", "GR-APPROVAL", "block")
}

# context.scf_controls are controls in scope of the CONTROL_ANALYSIS (the handoff's own
# output when it is one, else the version in force).
_controls_in_scope := {c.control_id | some c in object.get(_current_content("CONTROL_ANALYSIS"), "controls", []); c.in_scope == true}

_mismatches contains [sprintf("context.scf_controls[%d]", [i]), sprintf("%s is not a control in scope of the CONTROL_ANALYSIS (in scope: %v)", [c, sort(_controls_in_scope)])] if {
	_context_checked
	some i, c in object.get(_context, "scf_controls", [])
	not c in _controls_in_scope
}

# context.previous_output restates what the workflow recorded about that version.
_previous_claims contains [field, claimed, recorded] if {
	_context_checked
	po := _context.previous_output
	v := core.ref_version(po.ref)
	some field in ["assumptions", "limitations"]
	claimed := po[field]
	recorded := v[field]
	claimed != recorded
}

_previous_claims contains [field, claimed, recorded] if {
	_context_checked
	po := _context.previous_output
	v := core.ref_version(po.ref)
	some field in ["confidence_score", "requires_validation"]
	claimed := po[field]
	recorded := object.get(v, ["meta", field], null)
	claimed != recorded
}

_mismatches contains [sprintf("context.previous_output.%s", [field]), sprintf("context.previous_output.%s is %v, but %s v%v recorded %v", [field, claimed, _context.previous_output.ref.type, _context.previous_output.ref.version, recorded])] if {
	some [field, claimed, recorded] in _previous_claims
}

# METADATA
# title: Context contradicts the recorded state
# description: >-
#   The handoff's context must match the state the engine holds: every input named with
#   its status, recorded versions with their hashes and statuses (a status claimed for a
#   type without a recorded version included), the workflow's current status, known KB
#   evidence candidates, conflicts with their recorded type, control and status, the
#   person's decision recorded at a stage, the pending retry, a validation status the
#   artifacts make true, controls in scope and the previous output as recorded. The
#   Orchestrator never passes on a context that misstates the assessment.
# custom:
#   code: CONTEXT_MISMATCH
#   outcome: block
reasons contains r if {
	some [path, msg] in _mismatches
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "S20-CONTEXT", "block")
}

_official_mappings := {[m.control_id, m.framework, object.get(m, "requirement_ref", "")] |
	some m in object.get(_content_of(_in_force("FRAMEWORK_MAPPING")), "mappings", [])
	m.mapping_status == "official"
}

# METADATA
# title: Context presents an unofficial mapping as official
# description: >-
#   context.official_mappings names a mapping the Framework Mapper's version in force
#   does not report as official (with that requirement): an official SCF mapping is never
#   inferred, not even in a context.
# custom:
#   code: OFFICIAL_MAPPING_INFERRED
#   outcome: block
reasons contains r if {
	_context_checked
	some i, m in object.get(_context, "official_mappings", [])
	not [m.control_id, m.framework, m.requirement_ref] in _official_mappings
	r := lib.gate_reason(rego.metadata.rule(), sprintf("context names %s -> %s %s as an official mapping, but the FRAMEWORK_MAPPING in force does not", [m.control_id, m.framework, m.requirement_ref]), sprintf("context.official_mappings[%d]", [i]), "GR-MAPPING", "block")
}

_dups contains ["input_artifacts", sprintf("%s v%v", [r.type, r.version])] if {
	_context_checked
	some i, r in lib.inputs
	some j, q in lib.inputs
	i < j
	_same_version(r, q)
}

_dups contains ["context.artifacts", sprintf("%s v%v", [a.ref.type, a.ref.version])] if {
	_context_checked
	some i, a in _ctx_artifacts
	some j, b in _ctx_artifacts
	i < j
	_same_version(a.ref, b.ref)
}

_dups contains [sprintf("context.%s", [field]), sprintf("%v", [x])] if {
	_context_checked
	some field in ["scf_controls", "kb_evidence_candidates"]
	l := object.get(_context, field, [])
	some i, x in l
	some j, y in l
	i < j
	x == y
}

# METADATA
# title: Duplicated context
# description: >-
#   The handoff names the same version (or the same control or candidate) twice: context
#   is transferred once, by reference.
# custom:
#   code: CONTEXT_DUPLICATED
#   outcome: block
reasons contains r if {
	some [path, what] in _dups
	r := lib.reason(rego.metadata.rule(), sprintf("%s names %s more than once", [path, what]), path)
}
