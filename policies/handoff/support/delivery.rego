package handoff.support

import data.handoff.core
import data.handoff.lib

# T6: sending the accepted response, idempotently, and reconciling its outcome; T7: the
# documented handoff to a person (seed phases 8, 9 and 11). Only the accepted draft's
# message is sent, once per idempotency key; an unknown outcome is UNKNOWN until the
# delivery record is checked; nothing is resent meanwhile.

# _sent_draft is the recorded RESPONSE_DRAFT version a send names (by type and version;
# its id and hash are checked below).
_sent_draft := v if {
	ref := lib.content.draft
	is_object(ref)
	ref.type == "RESPONSE_DRAFT"
	v := core.ref_version(ref)
}

# _delivery_key is the idempotency key of the draft a send names: built from the
# recorded draft's id and version, never from what the request says they are.
_delivery_key := sprintf("delivery/%s@v%d", [_sent_draft.ref.id, _sent_draft.ref.version]) if {
	_sent_draft
} else := sprintf("delivery/%s@v%v", [object.get(lib.content, ["draft", "id"], ""), object.get(lib.content, ["draft", "version"], 0)])

_send_review_problems contains msg if {
	not _sent_draft
	msg := sprintf("the response names no recorded RESPONSE_DRAFT version (it names %s v%v)", [object.get(lib.content, ["draft", "type"], "nothing"), object.get(lib.content, ["draft", "version"], 0)])
}

_send_review_problems contains msg if {
	v := _sent_draft
	v.ref.id != lib.content.draft.id
	msg := sprintf("the response names RESPONSE_DRAFT v%d as %q, but the recorded draft is %q", [v.ref.version, lib.content.draft.id, v.ref.id])
}

_send_review_problems contains msg if {
	v := _sent_draft
	v.ref.hash != lib.content.draft.hash
	msg := sprintf("the response names RESPONSE_DRAFT v%d with another hash than the recorded one", [v.ref.version])
}

_send_review_problems contains msg if {
	v := _sent_draft
	v.status != "approved"
	msg := sprintf("RESPONSE_DRAFT v%d is %s: only a draft the Reviewer accepted is sent (a rejected response never is)", [v.ref.version, v.status])
}

_send_review_problems contains msg if {
	v := _sent_draft
	v.ref.version != core.latest_number("RESPONSE_DRAFT")
	msg := sprintf("RESPONSE_DRAFT v%d is not the latest draft (v%d)", [v.ref.version, core.latest_number("RESPONSE_DRAFT")])
}

_send_review_problems contains msg if {
	not _done("T5")
	msg := sprintf("the review (T5) is %s: review is mandatory before sending", [_task_status("T5")])
}

# METADATA
# title: Response not reviewed
# description: >-
#   Review is mandatory before sending: the response names the latest RESPONSE_DRAFT,
#   bound to its recorded id and hash, which the Reviewer accepted (T5 done, the draft
#   approved). A draft under review, returned for revision or rejected is never sent,
#   and the delivery's idempotency key comes from the recorded draft.
# custom:
#   code: REVIEW_REQUIRED
#   outcome: block
reasons contains r if {
	_send
	some msg in _send_review_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, "output.content.draft", "REVIEW", "block")
}

_modifications contains ["output.content.message", "the message differs from the accepted draft's"] if {
	v := _sent_draft
	lib.content.message != v.content.message
}

_modifications contains ["output.content.kind", "the kind differs from the accepted draft's"] if {
	v := _sent_draft
	lib.content.kind != v.content.kind
}

_modifications contains ["output.content.channel", sprintf("the case came in by %v, not %v", [object.get(_case, "channel", "unknown"), lib.content.channel])] if {
	lib.content.channel != object.get(_case, "channel", "")
}

# METADATA
# title: Sent response modified
# description: >-
#   The Supervisor sends exactly the accepted draft: same message and kind, on the case's
#   channel. Anything else was never reviewed.
# custom:
#   code: CONTENT_MODIFIED
#   outcome: block
reasons contains r if {
	_send
	some [path, msg] in _modifications
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "REVIEW", "block")
}

# METADATA
# title: Duplicate delivery
# description: >-
#   A delivery with the same idempotency key (the same accepted draft) is pending or
#   acknowledged: sending again would message the customer twice. A failed delivery may
#   be resent; an unknown one is reconciled first (core DELIVERY_UNRECONCILED).
# custom:
#   code: DUPLICATE_DELIVERY
#   outcome: block
reasons contains r if {
	_send
	status := lib.state.effects[_delivery_key]
	status in {"pending", "acknowledged"}
	r := lib.gate_reason(rego.metadata.rule(), sprintf("delivery %s is %s: the response is not sent twice", [_delivery_key, status]), "output.content.draft", "DELIVERY", "block")
}

# METADATA
# title: Order result too old to send
# description: >-
#   An order-status answer is sent only while its order result is current: retrieved
#   from the order system (and recorded) less than config.max_result_age_ms before the
#   decision time, with an estimated delivery that has not passed. An older status may
#   have changed.
# custom:
#   code: STALE_EVIDENCE
#   outcome: block
reasons contains r if {
	_send
	lib.content.kind == "order_status"
	some msg in _result_staleness
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s: refresh it before sending", [msg]), "output.content.draft", "EVIDENCE_FRESH", "block")
}

# METADATA
# title: Resend not due
# description: >-
#   A failed delivery is resent only once the delay its failure decision announced has
#   passed since the failure was recorded: the delay_ms of the delivery's last
#   FAILURE_RECORD (task T6), the backoff the host was told (seed phase 9: exponential
#   backoff for transient failures). Without that record nothing is due.
# custom:
#   code: RETRY_NOT_DUE
#   outcome: block
reasons contains r if {
	_send
	lib.state.effects[_delivery_key] == "failed"
	not _is_due("T6")
	r := lib.gate_reason(rego.metadata.rule(), _resend_wait, "output.content.draft", "RETRY_DUE", "block")
}

_resend_wait := sprintf("delivery %s may be resent %d ms after its failure was recorded; %d ms are left", [_delivery_key, _last_failure("T6").delay_ms, (_due_ns("T6") - _now_ns) / _ms]) if {
	_due_ns("T6")
} else := sprintf("delivery %s failed, and no FAILURE_RECORD of T6 says when it may be resent", [_delivery_key])

_previous_responses := [core.status_event("CUSTOMER_RESPONSE", v.ref.version, "superseded") |
	some v in object.get(core.artifact("CUSTOMER_RESPONSE"), "versions", {})
	v.status == "approved"
]

_send_proposal := {
	"outcome": "allow",
	"status_after": "REVIEW_PENDING",
	"next": [],
	"events": array.concat(
		array.concat(
			_previous_responses,
			[
				object.union(core.artifact_event("approved"), {"meta": {"task_id": "T6", "idempotency_key": _delivery_key}}),
				_task_event("T6", "running", "supervisor", _deps("T6")),
				{"type": "effect", "id": _delivery_key, "status": "pending"},
				core.handoff_event,
			],
		),
		_usage_events,
	),
}

# --- outcomes --------------------------------------------------------------------------

_effect_id := object.get(lib.request, "effect_id", "")

_effect_status := lib.state.effects[_effect_id]

_effect_open if _effect_status in {"pending", "failed", "unknown"}

_effect_event(status) := {"type": "effect", "id": _effect_id, "status": status}

_delivery_effect if {
	lib.status == "REVIEW_PENDING"
	startswith(_effect_id, "delivery/")
	_effect_open
	not _effect_settled
}

# _unknown_effect holds for an outcome naming an effect id the workflow never recorded.
_unknown_effect if {
	lib.valid
	is_object(input.state)
	input.request.kind == "outcome"
	not lib.state.effects[_effect_id]
}

# METADATA
# title: Outcome for an unknown effect
# description: >-
#   An outcome names an effect id this workflow never recorded (a delivery key, a retry
#   timer, a recovery check or the human handoff): there is nothing to reconcile, and it
#   is refused. (DELIVERY_UNRECONCILED means a recorded delivery whose outcome is
#   unknown; core's own reason about the unknown effect id is replaced by this one.)
# custom:
#   code: EFFECT_NOT_FOUND
#   outcome: block
reasons contains r if {
	_unknown_effect
	r := lib.gate_reason(rego.metadata.rule(), sprintf("workflow %q recorded no effect %q (its effects: %v): nothing to reconcile", [object.get(lib.state, "workflow_id", ""), _effect_id, object.keys(object.get(lib.state, "effects", {}))]), "effect_id", "EFFECT_KNOWN", "block")
}

# _effect_settled holds when the outcome's effect already has its result: it was
# acknowledged, or it is a delivery recorded as failed that no resend has reopened
# (a resend records it pending again) and is reported failed again. Such an outcome
# repeats an event already counted: a duplicate delivery event (seed TST-07).
_effect_settled if _effect_status == "acknowledged"

_effect_settled if {
	startswith(_effect_id, "delivery/")
	_effect_status == "failed"
	lib.request.result == "failed"
}

# METADATA
# title: Outcome of a settled effect
# description: >-
#   An outcome reports an effect whose result is already recorded: an acknowledged
#   effect, or a failed delivery reported failed again with no resend in between (the
#   same delivery event posted again under a new request_id). It is refused and never
#   counted: each try of a delivery counts once against its retry budget, and a
#   duplicate event never escalates a workflow (seed TST-07: idempotent handling of
#   duplicate delivery events).
# custom:
#   code: EFFECT_ALREADY_SETTLED
#   outcome: block
reasons contains r if {
	_outcome
	_effect_settled
	r := lib.gate_reason(rego.metadata.rule(), sprintf("effect %s is already %s and nothing reopened it: this %s outcome repeats a recorded one and is not counted again", [_effect_id, _effect_status, lib.request.result]), "effect_id", "EFFECT_ONCE", "block")
}

# A failed delivery is retried under the retry budget of _delivery_class.
_delivery_class := "timeout"

_delivery_try := core.counter(core.retry_counter("T6")) + 1

_delivery_retry := object.union(core.retry_decision(_delivery_class, _delivery_try + 1, 0), {"task": "T6"})

_delivery_retry_spent if not _delivery_retry

_delivery_retry_spent if _delivery_retry.attempt > _delivery_retry.max_attempts

_delivery_retry_spent if lib.pack_contract.limits.retry[_delivery_class].retryable != true

# METADATA
# title: Delivery retries exhausted
# description: >-
#   The delivery failed and its retry budget (limits.retry of the delivery's failure
#   class) is spent: the case escalates to a person.
# custom:
#   code: RETRY_EXHAUSTED
#   outcome: await_human
reasons contains r if {
	_outcome
	_delivery_effect
	lib.request.result == "failed"
	_delivery_retry_spent
	r := lib.gate_reason(rego.metadata.rule(), sprintf("delivery %s failed on try %d; its retry budget is spent", [_effect_id, _delivery_try]), "result", "RETRY", "await_human")
}

# METADATA
# title: Delivery outcome unknown
# description: >-
#   The host cannot tell whether the customer received the response: the delivery is
#   UNKNOWN, nothing is resent, and the delivery record is checked (a later outcome of the
#   same delivery settles it).
# custom:
#   code: DELIVERY_UNRECONCILED
#   outcome: await_human
reasons contains r if {
	_outcome
	_delivery_effect
	lib.request.result == "unknown"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the outcome of delivery %s is unknown: check the delivery record before anything is resent", [_effect_id]), "result", "DELIVERY_UNKNOWN", "await_human")
}

# Acknowledged: accepted and delivered. The sent response and what it rests on are final.
_outcome_proposal := {
	"outcome": "allow",
	"status_after": "COMPLETED",
	"next": [],
	"events": array.concat(
		[_effect_event("acknowledged"), _task_status_event("T6", "done")],
		[core.status_event(t, v.ref.version, "final") |
			some t in ["CUSTOMER_RESPONSE", "RESPONSE_DRAFT", "ORDER_RESULT"]
			some v in object.get(core.artifact(t), "versions", {})
			v.status == "approved"
		],
	),
} if {
	_delivery_effect
	lib.request.result == "acknowledged"
}

_outcome_proposal := {
	"outcome": "retry",
	"status_after": "REVIEW_PENDING",
	"retry": _delivery_retry,
	"next": [_next("supervisor", "send_response", _package("reviewer>supervisor", _draft_content))],
	"events": [
		_delivery_failure_record("retry"),
		_effect_event("failed"),
		_task_status_event("T6", "ready"),
		{"type": "counter", "name": core.retry_counter("T6"), "delta": 1},
	],
} if {
	_delivery_effect
	lib.request.result == "failed"
	not _delivery_retry_spent
}

_outcome_proposal := _escalation_proposal(["RETRY_EXHAUSTED"], sprintf("delivery %s failed and its retries are spent", [_effect_id]), [_delivery_failure_record("escalated"), _effect_event("failed")]) if {
	_delivery_effect
	lib.request.result == "failed"
	_delivery_retry_spent
}

# _delivery_failure_record is the FAILURE_RECORD of a failed delivery try: its attempt,
# and the delay_ms the decision announces to the host before the resend (0 when none
# follows). A resend before it is RETRY_NOT_DUE.
_delivery_failure_record(decision) := _record(
	"FAILURE_RECORD", "failure-record", "approved", object.union(
		{
			"task_id": "T6",
			"agent": _task_agent("T6"),
			"class": _delivery_class,
			"attempt": _delivery_try,
			"max_attempts": object.get(_retry_policy(_delivery_class), "max_attempts", 1),
			"delay_ms": _delivery_delay(decision),
			"decision": decision,
		},
		{"detail": d | d := lib.request.detail},
	),
	[], {"task_id": "T6", "class": _delivery_class, "effect_id": _effect_id},
)

_delivery_delay("retry") := _delivery_retry.delay_ms

_delivery_delay("escalated") := 0

_outcome_proposal := {
	"outcome": "await_human",
	"status_after": "REVIEW_PENDING",
	"next": [_next("supervisor", "send_response", {"must_know": {"reconcile": _effect_id}, "may_know": {}})],
	"events": [_effect_event("unknown"), _task_status_event("T6", "unknown")],
	"requires_human_review": true,
} if {
	_delivery_effect
	lib.request.result == "unknown"
}

# --- T7: the handoff to a person -------------------------------------------------------

_human_handoff := "human-handoff"

# _handoff_ack holds for the outcome of the human handoff on an ESCALATED workflow: the
# one request a terminal support workflow takes.
_handoff_ack if {
	lib.valid
	is_object(input.state)
	input.state.status == "ESCALATED"
	input.request.kind == "outcome"
	input.request.effect_id == _human_handoff
	input.state.effects[_human_handoff] in {"pending", "failed", "unknown"}
}

# METADATA
# title: Human handoff not acknowledged
# description: >-
#   The ticket for the person taking over failed or its state is unknown: the escalation
#   is documented but not yet acknowledged; the host creates or checks the ticket again.
# custom:
#   code: HUMAN_HANDOFF_PENDING
#   outcome: await_human
reasons contains r if {
	_handoff_ack
	lib.request.result != "acknowledged"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the human handoff is %s: nobody has taken the case over yet", [lib.request.result]), "result", "ESCALATION", "await_human")
}

_outcome_proposal := {
	"outcome": "allow",
	"status_after": "ESCALATED",
	"next": [],
	"events": [_effect_event("acknowledged"), _task_status_event("T7", "done")],
} if {
	_handoff_ack
	lib.request.result == "acknowledged"
}

_outcome_proposal := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": _gate_next,
	"events": [_effect_event(lib.request.result)],
	"requires_human_review": true,
} if {
	_handoff_ack
	lib.request.result != "acknowledged"
}

# _escalation_proposal moves the workflow to ESCALATED: the escalation is documented
# (ESCALATION_RECORD), every open task stops, T7 goes to the Human Escalation Gate with
# the case, and the human handoff waits for a person's acknowledgement.
_escalation_proposal(codes, summary, extra) := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": [_next(_gate, "human_support", _escalation_context(codes, summary))],
	"events": array.concat(extra, _escalation_events(codes, summary)),
	"requires_human_review": true,
}

_gate := object.get(_task_cfg("T7"), "owner", "human_escalation_gate")

_escalation_content(codes, summary) := {
	"reasons": codes,
	"from_status": lib.status,
	"route": _route,
	"summary": summary,
	"artifacts": [v.ref |
		some t in ["CASE", "CLASSIFICATION", "ORDER_RESULT", "RESPONSE_DRAFT", "REVIEW_RECORD", "FAILURE_RECORD"]
		v := core.latest_version(t)
	],
}

_escalation_events(codes, summary) := array.concat(
	array.concat(
		[_record("ESCALATION_RECORD", "escalation-record", "approved", _escalation_content(codes, summary), [], {"from_status": lib.status})],
		[_task_status_event(id, "cancelled") | some id in sort(object.keys(_tasks)); id != "T7"; _open_task(id)],
	),
	[
		_task_event("T7", "ready", _gate, []),
		{"type": "effect", "id": _human_handoff, "status": "pending"},
	],
)

_escalation_context(codes, summary) := {
	"must_know": {
		"ESCALATION_RECORD": _package("supervisor>human_escalation_gate", _escalation_content(codes, summary)),
		"CASE": _package("supervisor>human_escalation_gate:CASE", _case),
	},
	"may_know": {},
}

_gate_next := [_next(_gate, "human_support", {"must_know": {"ESCALATION_RECORD": _package("supervisor>human_escalation_gate", core.latest_content("ESCALATION_RECORD"))}, "may_know": {}})]
