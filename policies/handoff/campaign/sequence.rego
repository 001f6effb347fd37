package handoff.campaign

import data.handoff.core
import data.handoff.lib

# _expected holds when the request is one the current status waits for: the routing
# table workflow.actors says who acts in each status.
_expected if {
	input.request.kind == "start"
	lib.status == object.get(lib.pack_contract, ["workflow", "initial"], "INTAKE")
}

# A handoff by an agent the current status routes, with the task it routes it to.
_expected if {
	input.request.kind == "handoff"
	lib.output
	core.routed(lib.request.source_agent, lib.request.task_type)
}

# A review in a review status, by the agent that status routes: an agent, not a person or
# a system that carries the agent's id.
_expected if {
	input.request.kind == "review"
	lib.actor_type == "agent"
	lib.status in {"RESEARCH_VALIDATION", "QA"}
	some a in core.actors(lib.status)
	a.agent == lib.actor_id
}

# An approval in a human status; who may approve is core's check.
_expected if {
	input.request.kind == "approval"
	lib.status in _approval_statuses
}

# A failure of the task the current status routes to the failed agent.
_expected if {
	input.request.kind == "failure"
	core.routed(lib.request.agent, lib.request.task)
}

# An outcome of a delivery; an unknown effect is core's EFFECT_NOT_FOUND.
_expected if {
	input.request.kind == "outcome"
	lib.status == "DELIVERY"
}

_expected if input.request.kind == "cancel"

# _approval_statuses are the statuses a person decides in: the keys of _stages_for.
_approval_statuses := {s | some s, _ in _stages_for}

# _sequence_explained holds when a more specific rule says why the request does not fit
# the current status (it then stands alone instead of OUT_OF_SEQUENCE).
_sequence_explained if _strategy_change_attempt

_sequence_explained if _delivery_without_approval

_sequence_explained if _output_missing

_sequence_explained if count(_subject_problems) > 0

# METADATA
# title: Request out of sequence
# description: >-
#   The request is not one the workflow's current status waits for: an agent or task
#   that workflow.actors does not route in this status (a copywriter handing off during
#   research, a review outside RESEARCH_VALIDATION and QA, an approval outside a human
#   stage, an outcome outside DELIVERY, a resolution: the campaign pack opens no
#   conflicts). A missing routing table routes nothing.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
reasons contains r if {
	core.ready
	not _expected
	not _sequence_explained
	r := lib.reason(rego.metadata.rule(), sprintf("%s %s is not expected in status %s (routed now: %v)", [lib.kind, _request_label, lib.status, core.routed_now]), "")
}

_request_label := sprintf("%s/%s by %q", [lib.request.source_agent, lib.request.task_type, lib.actor_id]) if input.request.kind == "handoff"

else := sprintf("%s/%s", [lib.request.agent, lib.request.task]) if input.request.kind == "failure"

else := sprintf("by %q", [lib.actor_id])

# METADATA
# title: Handoff without output
# description: >-
#   Every campaign handoff delivers the source agent's artifact: a handoff without
#   output passes responsibility on without the work.
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

# METADATA
# title: Start by an agent
# description: >-
#   A campaign is started by the host (system) or a person from the client's work
#   order, never by an agent.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "start"
	not lib.actor_type in {"system", "human"}
	r := lib.reason(rego.metadata.rule(), sprintf("%s %q may not start a campaign; the host or a person does", [lib.actor_type, lib.actor_id]), "actor.type")
}

# METADATA
# title: Cancel by a person without an approving role
# description: >-
#   A person cancels a campaign only with a role of the pack that approves its stages
#   (campaign_approver); the host may always cancel, an agent never (core).
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "cancel"
	lib.actor_type == "human"
	count(_approving_roles) == 0
	r := lib.reason(rego.metadata.rule(), sprintf("person %q holds no approving role of the campaign pack (roles given: %v) and may not cancel", [lib.actor_id, object.get(lib.actor, "roles", [])]), "actor.roles")
}

# _held_roles are the actor's roles the pack's roles table defines; _approving_roles are
# those that approve something. A person is judged by these, never by the roles claimed.
_held_roles := {role | some role in lib.actor_roles; is_object(object.get(lib.pack_contract, ["roles", role], null))}

_approving_roles := {role | some role in _held_roles; count(object.get(lib.pack_contract, ["roles", role, "approves"], [])) > 0}

_subject_problems contains ["actor.type", msg] if {
	input.request.kind == "review"
	lib.actor_type != "agent"
	msg := sprintf("%s %q may not send a review: the QA agent the status routes does, as an agent", [lib.actor_type, lib.actor_id])
}

_subject_problems contains ["actor.type", msg] if {
	input.request.kind == "outcome"
	lib.actor_type == "agent"
	msg := sprintf("agent %q may not report the outcome of a delivery: the host that made it (system) or a person with a role of the pack does", [lib.actor_id])
}

_subject_problems contains ["actor.roles", msg] if {
	lib.kind in {"outcome", "start"}
	lib.actor_type == "human"
	count(_held_roles) == 0
	msg := sprintf("person %q holds no role of the campaign pack (roles given: %v) and may not send %s request", [lib.actor_id, object.get(lib.actor, "roles", []), lib.with_article(lib.kind)])
}

_subject_problems contains ["agent", msg] if {
	input.request.kind == "failure"
	lib.actor_type == "agent"
	lib.actor_id != object.get(lib.request, "agent", "")
	msg := sprintf("agent %q may not report a failure of agent %q: an agent reports only its own failures; the host reports the others", [lib.actor_id, object.get(lib.request, "agent", "")])
}

_subject_problems contains ["actor.roles", msg] if {
	input.request.kind == "failure"
	lib.actor_type == "human"
	count(_approving_roles) == 0
	msg := sprintf("person %q holds no approving role of the campaign pack and may not report a task failure", [lib.actor_id])
}

# METADATA
# title: Sender may not send this request
# description: >-
#   Identity is (type, id), and a person's roles are those of the pack's roles table: a
#   review comes from the routed QA agent as an agent (a person or system carrying the
#   id qa_agent is not it); an outcome of a delivery comes from the host or a person with
#   a role of the pack, never from an agent; an agent reports only its own task failures
#   and a person reports one only with an approving role; a person starts a campaign
#   only with a role of the pack.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	some [path, msg] in _subject_problems
	r := lib.reason(rego.metadata.rule(), msg, path)
}

# --- start, cancel, failure -------------------------------------------------------

# start: the Research Agent receives the client's work order.
_start_proposal := {
	"outcome": "allow",
	"status_after": "RESEARCH",
	"next": [object.union(n, {"context": {"must_know": object.get(lib.request, "brief", {}), "may_know": {}}}) |
		some n in core.next_for("RESEARCH")
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

# A failure whose retry budget is spent (or that is not retryable) escalates to a person.
_failure_proposal := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": core.next_for("ESCALATED"),
	"events": [_failure_counter],
	"requires_human_review": true,
} if {
	_retry_spent
} else := {
	"outcome": "retry",
	"status_after": lib.status,
	"retry": core.failure_retry,
	"next": [{"agent": lib.request.agent, "task": lib.request.task, "context": {"must_know": {}, "may_know": {}}}],
	"events": [
		_failure_counter,
		{"type": "counter", "name": _retry_due_counter_of(lib.request.task), "value": _now_ms + core.failure_retry.delay_ms},
	],
}

# _retry_due_counter_of names the counter holding the time (Unix milliseconds, the
# engine's clock) from which a retried task may run again: the retry decision's time plus
# the delay it announced (its jitter included).
_retry_due_counter_of(task) := sprintf("retry_due_ms/%s", [task])

_now_ms := floor(time.parse_rfc3339_ns(input.now) / 1000000)

# METADATA
# title: Failure reported before its retry could run
# description: >-
#   A failure of a task arrives before the retry the last failure of that task announced
#   was due: the retry cannot have run and failed yet, so the report repeats the failure
#   already counted (under a new request_id). It is refused and counts nothing.
# custom:
#   code: FAILURE_REPEATED
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "failure"
	due := lib.state.counters[_retry_due_counter_of(lib.request.task)]
	is_number(due)
	_now_ms < due
	r := lib.reason(rego.metadata.rule(), sprintf("task %q was retried to run from %s; a failure reported %d ms before that repeats the failure already counted", [lib.request.task, time.format(due * 1000000), due - _now_ms]), "task")
}
