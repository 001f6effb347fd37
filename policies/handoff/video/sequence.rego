package handoff.video

import data.handoff.core
import data.handoff.lib

# _expected holds when the request is one the current status waits for: the routing
# table workflow.actors says who acts in each status.
_expected if {
	input.request.kind == "start"
	lib.status == object.get(lib.pack_contract, ["workflow", "initial"], "NEW")
}

# A handoff by the status's producer, with the task the status routes, of one of the
# status's artifacts.
_expected if _producer_handoff

# A review at a check status or the internal review, by the agent the status routes.
_expected if _reviewing

# A person's decision while the workflow waits for one; who may decide is core's check.
_expected if {
	input.request.kind == "approval"
	lib.status in {"AWAITING_CLIENT", "ESCALATED"}
}

# A failure of the task the current status routes to the failed agent.
_expected if {
	input.request.kind == "failure"
	core.routed(lib.request.agent, lib.request.task)
}

_expected if input.request.kind == "cancel"

# _sequence_explained holds when a more specific rule says why the request does not fit
# the current status (it then stands alone instead of OUT_OF_SEQUENCE).
_sequence_explained if _gap_filling

_sequence_explained if _output_missing

_sequence_explained if _review_by_non_agent

_sequence_explained if _failure_reporter_problem

# METADATA
# title: Request out of sequence
# description: >-
#   The request is not one the workflow's current status waits for: an agent or task
#   that workflow.actors does not route in this status (the director handing off while
#   the screenwriter writes), an artifact type the status does not produce, a review
#   outside a check status and the internal review or by another agent, an approval
#   outside AWAITING_CLIENT and ESCALATED, an outcome or a resolution (the video pack
#   opens no side effects and no conflicts). A missing routing table routes nothing.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
reasons contains r if {
	core.ready
	not _expected
	not _sequence_explained
	r := lib.reason(rego.metadata.rule(), sprintf("%s %s is not expected in status %s (routed now: %v)", [lib.kind, _request_label, lib.status, core.routed_now]), "")
}

_request_label := sprintf("%s/%s of %v by %q", [lib.request.source_agent, lib.request.task_type, object.get(lib.request, ["output", "type"], "nothing"), lib.actor_id]) if input.request.kind == "handoff"

else := sprintf("%s/%s", [lib.request.agent, lib.request.task]) if input.request.kind == "failure"

else := sprintf("by %q", [lib.actor_id])

# METADATA
# title: Handoff without output
# description: >-
#   Every video handoff delivers the source agent's artifact: a handoff without output
#   passes responsibility on without the work.
# custom:
#   code: OUTPUT_MISSING
#   outcome: block
reasons contains r if {
	_output_missing
	r := lib.reason(rego.metadata.rule(), sprintf("handoff %s>%s (task %s) delivers no output", [lib.request.source_agent, lib.request.target_agent, lib.request.task_type]), "output")
}

_output_missing if {
	core.ready
	input.request.kind == "handoff"
	not lib.output
}

# _gap_filling holds for a handoff of an artifact its source agent receives from a
# predecessor: the receiving agent would fill the predecessor's gaps itself.
_gap_filling if {
	core.ready
	t := lib.output.type
	lib.request.source_agent != core.producer(t, "unknown")
	t in _consumes(lib.request.source_agent)
}

# METADATA
# title: Gap filled by the next agent
# description: >-
#   An agent sends a version of an artifact it receives from its predecessor (the
#   screenwriter an A1, the director an A6, ...). The seed's rule: the next agent marks
#   the missing fields and returns the artifact; it never fills the gaps itself
#   (不擅自填补空白). Only the producer delivers a new version.
# custom:
#   code: GAP_FILLING_FORBIDDEN
#   outcome: block
reasons contains r if {
	_gap_filling
	r := lib.reason(rego.metadata.rule(), sprintf("%q receives %s from %q: it returns an incomplete %s with its missing fields and never fills the gaps itself", [lib.request.source_agent, lib.output.type, core.producer(lib.output.type, "unknown"), lib.output.type]), "output.type")
}

# METADATA
# title: Start by an agent
# description: >-
#   A video workflow is started by the host (system) or a person from the client's
#   inquiry, never by an agent.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "start"
	not lib.actor_type in {"system", "human"}
	r := lib.reason(rego.metadata.rule(), sprintf("%s %q may not start a video workflow; the host or a person does", [lib.actor_type, lib.actor_id]), "actor.type")
}

# METADATA
# title: Start by a person without a role of the pack
# description: >-
#   A person starts a video workflow only with a role of the pack (the client or the
#   production lead, from the roles table); a person without one is refused.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "start"
	lib.actor_type == "human"
	count(_pack_roles_of_actor) == 0
	r := lib.reason(rego.metadata.rule(), sprintf("person %q holds no role of the video pack (roles given: %v) and may not start a workflow", [lib.actor_id, sort(lib.actor_roles)]), "actor.roles")
}

# _pack_roles_of_actor are the actor's roles that the pack's roles table defines.
_pack_roles_of_actor := {r | some r in lib.actor_roles; is_object(lib.pack_contract.roles[r])} if lib.actor_type == "human"

else := set()

# _failure_reporter_problem says why the actor may not report the failure: only the host,
# the failed agent itself (by type and id) or the production lead reports one.
_failure_reporter_problem := sprintf("agent %q may not report a failure of agent %q: an agent reports only its own", [lib.actor_id, lib.request.agent]) if {
	core.ready
	input.request.kind == "failure"
	lib.actor_type == "agent"
	lib.actor_id != lib.request.agent
} else := sprintf("person %q is not production lead and may not report a failure", [lib.actor_id]) if {
	core.ready
	input.request.kind == "failure"
	lib.actor_type == "human"
	not "production_lead" in _pack_roles_of_actor
}

# METADATA
# title: Failure reported by someone else
# description: >-
#   A failure is reported by the host (system), by the failed agent itself (actor type
#   agent with the failure's agent id) or by a person who is production lead. An agent
#   reporting another agent's failure, or a person without that role, would spend the
#   other agent's retry budget and escalate its work.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	msg := _failure_reporter_problem
	r := lib.reason(rego.metadata.rule(), msg, "actor")
}

# METADATA
# title: Cancel by a person who is not the production lead
# description: >-
#   A person cancels a video workflow only as production lead; the host may always
#   cancel, an agent never (core).
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "cancel"
	lib.actor_type == "human"
	not "production_lead" in _pack_roles_of_actor
	r := lib.reason(rego.metadata.rule(), sprintf("person %q is not production lead and may not cancel", [lib.actor_id]), "actor.roles")
}

# --- start, cancel, failure ---------------------------------------------------------

# start: client-intake receives the client's inquiry.
_start_proposal := {
	"outcome": "allow",
	"status_after": "INTAKE",
	"next": [object.union(n, {"context": {"must_know": object.get(lib.request, "brief", {}), "may_know": {}}}) |
		some n in core.next_for("INTAKE")
	],
	"events": [],
}

_cancel_proposal := {
	"outcome": "allow",
	"status_after": "CANCELLED",
	"next": [],
	"events": [],
}

# _retry_spent holds when core says the failure is not retried any more.
_retry_spent if {
	some r in core.reasons
	r.code in {"RETRY_EXHAUSTED", "NOT_RETRYABLE"}
}

_failure_counter := {"type": "counter", "name": core.retry_counter(lib.request.task), "delta": 1}

# _retry_due_counter names the counter that keeps when the retry of a task is due, in
# milliseconds since the Unix epoch of the engine's clock: the decision time of the
# failure plus the delay the decision announced (core.retry_decision's, its jitter
# included). 0 once the task's work is accepted.
_retry_due_counter(task) := sprintf("retry_due_ms/%s", [task])

_now_ms := floor(_now_ns / 1000000)

_retry_due_event := {"type": "counter", "name": _retry_due_counter(lib.request.task), "value": _now_ms + core.failure_retry.delay_ms}

# _retry_due_ms is when the retry of the failed task is due; 0 when none is pending.
_retry_due_ms := core.counter(_retry_due_counter(lib.request.task)) if input.request.kind == "failure"

# METADATA
# title: Failure reported before its retry was due
# description: >-
#   A failure of a task arrives before the retry the last failure of that task
#   announced was due (its decision time plus the announced delay, on the engine's
#   clock). No retry can have run and failed yet: it is the same failure posted again
#   under a new request_id, or the host retried early. It is refused and not counted:
#   a duplicate never spends the retry budget or escalates the work.
# custom:
#   code: FAILURE_REPEATED
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "failure"
	_expected
	_now_ms < _retry_due_ms
	r := lib.reason(rego.metadata.rule(), sprintf("task %q of agent %q was retried with a delay due at %d ms since the epoch; this failure arrives %d ms before, so no retry has run yet: not counted", [lib.request.task, lib.request.agent, _retry_due_ms, _retry_due_ms - _now_ms]), "task")
}

# A failure whose retry budget is spent (or that is not retryable) escalates to the
# production lead; otherwise the task is retried with backoff.
_failure_proposal := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": core.next_with("ESCALATED", {"production_lead": {"must_know": {"failed_task": lib.request.task, "agent": lib.request.agent, "class": lib.request.class}, "may_know": {}}}),
	"events": [_failure_counter],
	"requires_human_review": true,
} if {
	_retry_spent
} else := {
	"outcome": "retry",
	"status_after": lib.status,
	"retry": core.failure_retry,
	"next": [{"agent": lib.request.agent, "task": lib.request.task, "context": core.empty_context}],
	"events": [_failure_counter, _retry_due_event],
}
