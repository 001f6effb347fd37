package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Loop prevention (seed section 17) and escalation to human review. Core counts and
# detects: LOOP_DETECTED (a ping-pong A>B, B>A, A>B, B>A; an edge taken max_edge_visits
# times; max_handoffs_per_stage in one status) and REPEATED_HANDOFF (the same source >
# target with the same input hash), RETRY_EXHAUSTED and NOT_RETRYABLE. The pack adds the
# repeated output (OUTPUT_REPEATED) and the repeated conflict (CONFLICT_REPEATED). A limit
# reached escalates: the handoff is not accepted (nothing of it is recorded) and the
# workflow waits in HUMAN_REVIEW (await_human, requires_human_review) with an
# ESCALATION_RECORD. A plain repetition (same input, same output) is blocked.

# _blocking_now are the blocking reasons of core and the pack, before any escalation.
_blocking_now := {r | some r in (_core_kept | reasons); lib.blocking(r)}

_clear if count(_blocking_now) == 0

_loop_code(r) if r.code == "LOOP_DETECTED"

# _loop_escalation holds for an expected handoff whose only obstacles are loop limits.
_loop_escalation if {
	_handoff
	_expected
	count(_blocking_now) > 0
	every r in _blocking_now {
		_loop_code(r)
	}
}

# _core_kept are core's reasons.
_core_kept := core.reasons

# _core_reasons are core's kept reasons, with LOOP_DETECTED regraded to await_human when
# the workflow escalates because of it.
_core_reasons := {_regraded(r) | some r in _core_kept}

# METADATA
# title: Loop limit reached, escalated to human review
# description: >-
#   Core's LOOP_DETECTED (a cycle between two agents, an edge or a stage over its limit)
#   is the only obstacle of an expected handoff: the handoff is not accepted and the
#   workflow goes to HUMAN_REVIEW (escalate to a person when the limit is reached). With
#   any other obstacle, LOOP_DETECTED blocks as core says.
# custom:
#   code: LOOP_DETECTED
#   outcome: await_human
_regraded(r) := object.union(r, {"outcome": "await_human", "title": rego.metadata.rule().title}) if {
	_loop_escalation
	_loop_code(r)
} else := r

# _conflict_repeat_escalation holds for a handoff that flags again a conflict already
# raised in this workflow.
_conflict_repeat_escalation if {
	_handoff
	_clear
	count(_repeated_flags) > 0
}

# _retry_escalation holds for a failure whose retry budget is spent (or that is not
# retryable).
_retry_escalation if {
	_failure
	_clear
	_retry_spent
}

_escalating if _loop_escalation

_escalating if _conflict_repeat_escalation

_escalating if _retry_escalation

# _escalation_reasons are the await_human reasons of an escalation.
_escalation_reasons contains r if {
	some r in _human_review_required
}

_escalation_reasons contains r if {
	some r in _conflict_repeated
}

# METADATA
# title: Escalated to human review
# description: >-
#   A limit was reached (retry exhausted, not retryable, loop limit, repeated conflict):
#   retry_exhausted → block → human_review_required. The work stops and a person decides
#   in HUMAN_REVIEW.
# custom:
#   code: HUMAN_REVIEW_REQUIRED
#   outcome: await_human
_human_review_required contains r if {
	_escalating
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%s in %s: the work stops and a person decides (%v)", [_escalation_summary, lib.status, sort(_escalation_causes)]), "", "await_human")
}

_escalation_summary := sprintf("handoff %s>%s", [_source, _target]) if input.request.kind == "handoff"

else := sprintf("failure of task %q (agent %q)", [object.get(lib.request, "task", ""), object.get(lib.request, "agent", "")])

# _escalation_causes are the codes that caused the escalation.
_escalation_causes contains "LOOP_DETECTED" if _loop_escalation

_escalation_causes contains "CONFLICT_REPEATED" if _conflict_repeat_escalation

_escalation_causes contains c if {
	_retry_escalation
	some r in (_core_kept | reasons)
	c := r.code
	c in {"RETRY_EXHAUSTED", "NOT_RETRYABLE"}
}

# --- the escalation --------------------------------------------------------------------

_escalation_agent := _source if input.request.kind == "handoff"

else := object.get(lib.request, "agent", "")

_escalation_task := object.get(lib.request, "task_type", "") if input.request.kind == "handoff"

else := object.get(lib.request, "task", "")

_escalation_content := {
	"tenant_id": lib.state.tenant_id,
	"organization_id": object.get(lib.state, "organization_id", ""),
	"assessment_id": lib.state.subject_id,
	"trace_id": _trace,
	"reason_codes": sort(_escalation_causes | {"HUMAN_REVIEW_REQUIRED"}),
	"summary": sprintf("%s in %s reached a limit: %v", [_escalation_summary, lib.status, sort(_escalation_causes)]),
	"from_status": lib.status,
	"agent": _escalation_agent,
	"task": _escalation_task,
	"handoff_id": object.get(lib.request, "handoff_id", lib.request.request_id),
}

_escalation_ref := core.next_ref("ESCALATION_RECORD", "escalation-record", _escalation_content)

# _escalation_proposal stops the work: the ESCALATION_RECORD says why and where the work
# resumes; the failure's retry history is recorded too. Nothing of a handoff is accepted.
_escalation_proposal := {
	"outcome": "await_human",
	"status_after": "HUMAN_REVIEW",
	"requires_human_review": true,
	"next": [_next_human("HUMAN_REVIEW", [{"ref": _escalation_ref, "status": "approved"}])],
	"events": array.concat(
		[_record_event(_escalation_ref, "approved", _escalation_content, _record_meta(_escalation_ref, "pending_human_validation", "assessment_lead", "HUMAN_REVIEW"))],
		_escalation_retry_events,
	),
}

_escalation_retry_events := array.concat(
	[_retry_record_event(true)],
	[{"type": "counter", "name": sprintf("retry_pending/%s", [lib.request.task]), "value": 0}],
) if {
	input.request.kind == "failure"
} else := []
