package handoff.support

import data.handoff.core
import data.handoff.lib

# T5: the Reviewer's verdict (seed phase 10). ACCEPT when every check passes and the
# policy finds nothing unsupported; REVISE for a correctable defect; REASSIGN when the
# worker lacks a capability (to an agent that already holds it); REJECT for an unsafe,
# unsupported or invalid result (it can never be sent); ESCALATE when a person must
# decide. Revision cycles are bounded; a review past its deadline escalates.

_verdict := object.get(lib.request, "verdict", "")

_reviewed := [r | some r in object.get(lib.request, "artifacts", []); is_object(r)]

_reviewed_types := {r.type | some r in _reviewed}

_defects := [d | some d in object.get(lib.request, "defects", []); is_object(d)]

_checks_reported := {g.id: g.passed | some g in object.get(lib.request, "gates", []); is_object(g)}

_review_checks := object.keys(object.get(lib.pack_config, "review_checks", {}))

_draft_version := core.latest_version("RESPONSE_DRAFT")

_draft_content := core.latest_content("RESPONSE_DRAFT")

_cycles := core.counter("review_cycles")

_cycles_left if _cycles < core.limit("max_review_cycles")

# --- the review's own validity ---------------------------------------------------------

# METADATA
# title: Review scope invalid
# description: >-
#   A review judges the latest RESPONSE_DRAFT, and may read the ORDER_RESULT it rests
#   on; a review that leaves the draft out or names other artifacts is refused (core
#   refuses versions that are not the latest).
# custom:
#   code: REVIEW_SCOPE_INVALID
#   outcome: block
reasons contains r if {
	_review
	some msg in _scope_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, "artifacts", "REVIEW", "block")
}

# METADATA
# title: Gate result of no Reviewer check
# description: >-
#   A review reports gate results for the Reviewer's checks only (config.review_checks):
#   a result for anything else passes or fails nothing, and is refused rather than
#   recorded in the REVIEW_RECORD.
# custom:
#   code: REVIEW_SCOPE_INVALID
#   outcome: block
reasons contains r if {
	_review
	some i, g in object.get(lib.request, "gates", [])
	not g.id in _review_checks
	r := lib.gate_reason(rego.metadata.rule(), sprintf("gate result %q is no check of the review (checks: %v)", [g.id, sort(_review_checks)]), sprintf("gates[%d].id", [i]), "REVIEW", "block")
}

_scope_problems contains "the review does not judge the RESPONSE_DRAFT" if not "RESPONSE_DRAFT" in _reviewed_types

_scope_problems contains sprintf("a review judges RESPONSE_DRAFT and ORDER_RESULT only, not %s", [t]) if {
	some t in _reviewed_types
	not t in {"RESPONSE_DRAFT", "ORDER_RESULT"}
}

_defect_problems contains [sprintf("defects[%d].check", [i]), msg] if {
	some i, d in _defects
	not object.get(d, "check", "") in _review_checks
	msg := sprintf("defect %q names no check of the review (got %v; checks: %v)", [d.id, object.get(d, "check", null), sort(_review_checks)])
}

_defect_problems contains [sprintf("defects[%d].artifact", [i]), msg] if {
	some i, d in _defects
	not d.artifact in _reviewed_types
	msg := sprintf("defect %q concerns %s, which this review does not judge", [d.id, d.artifact])
}

_defect_problems contains [sprintf("defects[%d].origin", [i]), msg] if {
	some i, d in _defects
	o := d.origin
	not _origin_known(o, d.artifact)
	msg := sprintf("defect %q of %s names origin %v, which is neither that artifact nor one it rests on among the reviewed artifacts %v", [d.id, d.artifact, o, sort(_reviewed_types)])
}

# _rests_on says which artifact types a reviewed artifact rests on, itself included:
# the draft on the order result.
_rests_on := {"RESPONSE_DRAFT": {"RESPONSE_DRAFT", "ORDER_RESULT"}, "ORDER_RESULT": {"ORDER_RESULT"}}

_origin_known(origin, artifact) if {
	origin in _reviewed_types
	origin in object.get(_rests_on, artifact, set())
}

# METADATA
# title: Defect without a failed check
# description: >-
#   Every defect names one of the Reviewer's checks (config.review_checks), an artifact
#   the review judges and, when it names an origin, a judged artifact the defect's
#   artifact rests on: the Reviewer returns work for a reason the contract knows, not by
#   taste. (A return without a defect, or a defect failing a check the review reports
#   as passed, contradicts itself: core's VERDICT_INCONSISTENT.)
# custom:
#   code: SUBJECTIVE_DEFECT
#   outcome: block
reasons contains r if {
	_review
	some [path, msg] in _defect_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "REVIEW_CHECKS", "block")
}

# METADATA
# title: Reviewer checks incomplete
# description: >-
#   An ACCEPT reports every check of config.review_checks (evidence supported, delivery
#   date current, answers the question, no unnecessary personal data, no unsupported
#   promise) as a passed gate (seed phase 10: ACCEPT, all required checks pass). A check
#   left out is not an ACCEPT. (An ACCEPT with a failed check or a defect contradicts
#   itself: core's VERDICT_INCONSISTENT.)
# custom:
#   code: REVIEW_CHECKS_INCOMPLETE
#   outcome: block
reasons contains r if {
	_review
	_verdict == "ACCEPT"
	not _review_overdue
	some check in _review_checks
	not check in object.keys(_checks_reported)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("check %q (%s) is not reported", [check, lib.pack_config.review_checks[check].question]), "gates", "REVIEW_CHECKS", "block")
}

# --- what the policy finds before an ACCEPT --------------------------------------------

_accepting if {
	_review
	_verdict == "ACCEPT"
	not _review_overdue
}

# METADATA
# title: Accepted draft not supported
# description: >-
#   The Reviewer accepts a draft whose order claims the latest verified order result does
#   not support (a newer result arrived, or the draft was never consistent): no
#   unverified order claim reaches the customer.
# custom:
#   code: UNSUPPORTED_CLAIM
#   outcome: block
reasons contains r if {
	_accepting
	some msg in _claim_problems(_draft_content)
	r := lib.gate_reason(rego.metadata.rule(), msg, "artifacts", "EVIDENCE", "block")
}

# _result_staleness says why the latest order result is no longer current at the
# decision time (input.now). Its age is measured from when the order system was read
# (retrieved_at), and from when the engine recorded it, whichever is older: the status
# may have changed since. An estimate the order system gave is no longer current once
# its day has passed. A result without a readable retrieval time is never current.
_result_staleness contains msg if {
	v := core.latest_version("ORDER_RESULT")
	not _within_ms("max_result_age_ms", _now_ns - _ns(v.content.retrieved_at))
	msg := sprintf("ORDER_RESULT v%d was retrieved at %v, more than %v ms ago", [v.ref.version, object.get(v.content, "retrieved_at", "an unknown time"), object.get(lib.pack_config, "max_result_age_ms", "not configured")])
}

_result_staleness contains msg if {
	v := core.latest_version("ORDER_RESULT")
	not _within_ms("max_result_age_ms", _now_ns - _ns(v.recorded_at))
	msg := sprintf("ORDER_RESULT v%d was recorded at %v, more than %v ms ago", [v.ref.version, v.recorded_at, object.get(lib.pack_config, "max_result_age_ms", "not configured")])
}

_result_staleness contains msg if {
	v := core.latest_version("ORDER_RESULT")
	d := v.content.estimated_delivery
	is_string(d)
	d < _date(input.now)
	msg := sprintf("the estimated delivery %s of ORDER_RESULT v%d has passed (now %s)", [d, v.ref.version, input.now])
}

# METADATA
# title: Order result too old to accept
# description: >-
#   The Reviewer accepts an order-status answer whose order result is no longer current:
#   retrieved from the order system (or recorded) more than config.max_result_age_ms
#   before the decision time, or with an estimated delivery that has passed since. The
#   estimated delivery may no longer be current: REASSIGN T3 to refresh it.
# custom:
#   code: STALE_EVIDENCE
#   outcome: block
reasons contains r if {
	_accepting
	_draft_content.kind == "order_status"
	some msg in _result_staleness
	r := lib.gate_reason(rego.metadata.rule(), msg, "artifacts", "EVIDENCE_FRESH", "block")
}

_escalation_needed contains sprintf("route %s ends with a person, not a sent response", [_route]) if _route == "human"

_escalation_needed contains sprintf("the draft proposes %s: a person decides sensitive actions", [concat(", ", sort(_sensitive_promises(_draft_content)))]) if {
	count(_sensitive_promises(_draft_content)) > 0
}

# METADATA
# title: Escalation required
# description: >-
#   The Reviewer accepts what only a person may decide: a case on the human route (refund
#   dispute, complaint, sensitive action request, unresolved evidence) or a draft
#   proposing a sensitive action. The verdict must be ESCALATE.
# custom:
#   code: ESCALATION_REQUIRED
#   outcome: block
reasons contains r if {
	_accepting
	some msg in _escalation_needed
	r := lib.gate_reason(rego.metadata.rule(), msg, "verdict", "SEC-SENSITIVE", "block")
}

# --- REASSIGN --------------------------------------------------------------------------

_reassign := a if {
	a := lib.request.report.reassign
	is_object(a)
}

_reassign_problems contains "REASSIGN names no task and agent (report.reassign)" if not _reassign

_reassign_problems contains sprintf("task %s cannot be reassigned: only T3 and T4 are", [_reassign.task_id]) if {
	not _reassign.task_id in {"T3", "T4"}
}

_reassign_problems contains msg if {
	_reassign.task_id in {"T3", "T4"}
	not _task_type(_reassign.task_id) in _agent_tasks(_reassign.agent)
	msg := sprintf("%q does not hold task %s (%s): a reviewer cannot grant permissions", [_reassign.agent, _reassign.task_id, _task_type(_reassign.task_id)])
}

# METADATA
# title: Reassignment not permitted
# description: >-
#   A REASSIGN moves T3 or T4 to an agent whose registry entry already holds the task:
#   the Reviewer cannot grant permissions, so it cannot hand a task to an agent lacking
#   it (or name no agent at all).
# custom:
#   code: REASSIGN_NOT_PERMITTED
#   outcome: block
reasons contains r if {
	_review
	_verdict == "REASSIGN"
	not _review_overdue
	some msg in _reassign_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, "report.reassign", "SEC-REASSIGN", "block")
}

# METADATA
# title: Reassignment to records without authorization
# description: >-
#   A REASSIGN of a task that reads customer records (T3) while the workflow holds no
#   verified authorization with its scope: authorization comes first in routing.
# custom:
#   code: AUTHORIZATION_REQUIRED
#   outcome: block
reasons contains r if {
	_review
	_verdict == "REASSIGN"
	not _review_overdue
	_cycles_left
	scope := _task_cfg(_reassign.task_id).scope
	not _authorized_for(scope)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("task %s needs %s, which the workflow's authorization does not grant now", [_reassign.task_id, scope]), "report.reassign", "SEC-AUTHZ", "block")
}

# --- deadline and cycles -----------------------------------------------------------------

# _review_overdue holds when T5 was dispatched longer ago than config.review_deadline_ms.
_review_overdue if {
	a := _assignment("T5")
	not _within_ms("review_deadline_ms", _now_ns - _ns(a.recorded_at))
}

# METADATA
# title: Reviewer deadlock
# description: >-
#   The review (or a failure of the Reviewer) arrives after config.review_deadline_ms
#   from the dispatch of T5: the Reviewer is deadlocked and the case escalates to a
#   person, whatever the verdict. The escalation is recorded.
# custom:
#   code: REVIEW_DEADLINE_EXCEEDED
#   outcome: await_human
reasons contains r if {
	_ready
	not _stopping
	lib.kind in {"review", "failure"}
	lib.status == "REVIEW_PENDING"
	_task_status("T5") == "running"
	_review_overdue
	r := lib.gate_reason(rego.metadata.rule(), sprintf("T5 was dispatched more than %v ms ago: escalating", [object.get(lib.pack_config, "review_deadline_ms", "not configured")]), "", "REVIEW_DEADLINE", "await_human")
}

# METADATA
# title: Review cycles exhausted
# description: >-
#   The Reviewer returns the work again after limits.max_review_cycles revision cycles
#   ("Repeated reviewer rejection: stop after configured review limit"): the case
#   escalates to a person instead of another loop.
# custom:
#   code: REVIEW_CYCLES_EXHAUSTED
#   outcome: await_human
reasons contains r if {
	_review
	_verdict in {"REVISE", "REJECT", "REASSIGN"}
	not _review_overdue
	not _cycles_left
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%d of %v revision cycles used: escalating instead of another loop", [_cycles, object.get(lib.pack_contract, ["limits", "max_review_cycles"], "not configured")]), "verdict", "REVIEW_LIMIT", "await_human")
}

# METADATA
# title: Review defect
# description: >-
#   A defect the Reviewer found, naming the check it fails: reported when the review
#   returns the work (REVISE, REASSIGN: revise; REJECT: the draft is rejected for good).
# custom:
#   code: QUALITY_GATE_FAILED
#   outcome: revise
reasons contains r if {
	_review
	_verdict in {"REVISE", "REJECT", "REASSIGN"}
	not _review_overdue
	some i, d in _defects
	object.get(d, "check", "") in _review_checks
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s defect %q of %s (%s): %s", [d.severity, d.id, d.artifact, d.check, d.description]), sprintf("defects[%d]", [i]), d.check, "revise")
}

# --- the verdict -------------------------------------------------------------------------

_review_branch := "deadlock" if {
	_review_overdue
} else := "escalate" if {
	_verdict == "ESCALATE"
} else := "accept" if {
	_verdict == "ACCEPT"
} else := "exhausted" if {
	not _cycles_left
} else := lower(_verdict)

_review_result := {
	"deadlock": "escalated",
	"escalate": "escalated",
	"exhausted": "escalated",
	"accept": "accepted",
	"revise": "revise",
	"reject": "rejected",
	"reassign": "reassigned",
}

_review_record := object.union(
	{
		"verdict": _verdict,
		"result": _review_result[_review_branch],
		"cycle": _cycles,
		"reviewed": _reviewed,
		"checks": object.get(lib.request, "gates", []),
		"defects": _defects,
	},
	object.union(
		{k: v | some k in {"reassign", "notes"}; v := lib.request.report[k]},
		{"summary": s | s := lib.request.summary},
	),
)

_review_record_event := _record("REVIEW_RECORD", "review-record", "approved", _review_record, _reviewed, {"task_id": "T5"})

_defect_events := [{"type": "defect", "defect": d, "status": "open"} | some d in _defects]

_draft_status_event(status) := [core.status_event("RESPONSE_DRAFT", _draft_version.ref.version, status) |
	_draft_version.status in core.open_statuses
]

_review_proposal := {
	"outcome": "allow",
	"status_after": "REVIEW_PENDING",
	"next": [_next("supervisor", "send_response", _package("reviewer>supervisor", _draft_content))],
	"events": array.concat(
		array.concat([_review_record_event], _draft_status_event("approved")),
		array.concat(
			[core.status_event("ORDER_RESULT", v.ref.version, "approved") | v := core.latest_version("ORDER_RESULT"); v.status == "under_review"],
			array.concat([_task_status_event("T5", "done")], _ready_events("T5")),
		),
	),
} if {
	_review_branch == "accept"
}

_review_proposal := _escalation_proposal(codes, _escalation_summary, [_review_record_event]) if {
	_review_branch in {"escalate", "deadlock", "exhausted"}
	codes := {"escalate": ["ESCALATE"], "deadlock": ["REVIEW_DEADLINE_EXCEEDED"], "exhausted": ["REVIEW_CYCLES_EXHAUSTED"]}[_review_branch]
}

# REVISE and REJECT return the draft to the Support Agent (a rejected draft is never
# sent: a new one is written); the Supervisor dispatches T4 again.
_review_proposal := {
	"outcome": "revise",
	"status_after": "READY",
	"revise": [{"artifact": "RESPONSE_DRAFT", "producer": core.producer("RESPONSE_DRAFT", "supervisor"), "defects": sort([d.id | some d in _defects])}],
	"next": _supervisor_next(["T4"]),
	"events": array.concat(
		array.concat([_review_record_event], _draft_status_event({"revise": "revision_required", "reject": "rejected"}[_review_branch])),
		array.concat(_defect_events, [
			_task_event("T4", "ready", object.get(_task_cfg("T4"), "owner", "support_agent"), _deps("T4")),
			_task_status_event("T5", "pending"),
			{"type": "counter", "name": "review_cycles", "delta": 1},
		]),
	),
} if {
	_review_branch in {"revise", "reject"}
}

# REASSIGN hands the named task to the named agent; what depends on it runs again.
_review_proposal := {
	"outcome": "revise",
	"status_after": "READY",
	"revise": [{"artifact": _task_output(_reassign.task_id), "producer": _reassign.agent, "defects": sort([d.id | some d in _defects])}],
	"next": _supervisor_next([_reassign.task_id]),
	"events": array.concat(
		array.concat([_review_record_event], _draft_status_event("revision_required")),
		array.concat(_defect_events, array.concat(_reassign_events(_reassign.task_id), [{"type": "counter", "name": "review_cycles", "delta": 1}])),
	),
} if {
	_review_branch == "reassign"
}

# _escalation_summary is the Reviewer's summary, or what the review decided.
_escalation_summary := s if {
	s := lib.request.summary
	is_string(s)
	s != ""
} else := sprintf("review of RESPONSE_DRAFT v%d: %s", [_draft_version.ref.version, _review_branch])

_reassign_events("T3") := [
	_task_event("T3", "ready", _reassign.agent, _t3_deps),
	_task_event("T4", "pending", object.get(_task_cfg("T4"), "owner", "support_agent"), ["T3"]),
	_task_status_event("T5", "pending"),
]

_reassign_events("T4") := [
	_task_event("T4", "ready", _reassign.agent, _deps("T4")),
	_task_status_event("T5", "pending"),
]

_t3_deps := _deps("T3") if _task_status("T3") != "absent"

else := ["T2"]
