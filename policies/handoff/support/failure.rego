package handoff.support

import data.handoff.core
import data.handoff.lib

# Failures, retries, recovery, cancellation and the stop exits (seed phases 8, 9 and 11).
#
# A retryable failure of a running task (timeout, rate limit, invalid output, crashed
# worker) moves RUNNING → RETRY_PENDING with exponential backoff (core.retry_decision: its
# delay is what the decision announces and the FAILURE_RECORD keeps) and schedules the
# retry as effect retry/<task>; when the host's scheduler reports it due, attempts remain
# → READY (the Supervisor dispatches again, with the FAILURE_RECORD), the limit reached →
# ESCALATED. A failure that is not retried (authorization, permanent, unknown outcome)
# blocks the workflow until its dependency recovers (the gateway's re-verification for
# an authorization failure, effect recovery/<task> for the others) or recovery is
# exhausted (FAILED). Every event is counted once: a failure of a task that is not
# running, or of one retried in place before its retry is due, is refused.

_failed_task := object.get(lib.request, "task", "")

_failure_class := object.get(lib.request, "class", "")

_retry_policy(class) := p if {
	p := lib.pack_contract.limits.retry[class]
	is_object(p)
}

_retryable(class) if _retry_policy(class).retryable == true

# _attempts_remain holds when the failed try was not the last the class allows.
_attempts_remain if {
	_retryable(_failure_class)
	core.failure_attempt < object.get(_retry_policy(_failure_class), "max_attempts", 1)
}

_failure_retry := core.failure_retry

_failure_record(decision) := _record(
	"FAILURE_RECORD", "failure-record", "approved", object.union(
		{
			"task_id": _failed_task,
			"agent": lib.request.agent,
			"class": _failure_class,
			"attempt": core.failure_attempt,
			"max_attempts": object.get(_retry_policy(_failure_class), "max_attempts", 1),
			"delay_ms": _failure_delay(decision),
			"decision": decision,
		},
		object.union(
			{"retry_after_ms": n | n := lib.request.retry_after_ms},
			{"detail": d | d := lib.request.detail},
		),
	),
	[], {"task_id": _failed_task, "class": _failure_class},
)

_failure_delay(decision) := _failure_retry.delay_ms if decision in {"retry", "reassign"}

else := 0

_failure_counters := [
	{"type": "counter", "name": core.retry_counter(_failed_task), "delta": 1},
	{"type": "counter", "name": sprintf("failures/%s", [_failure_class]), "delta": 1},
]

_failure_base(decision) := array.concat(array.concat([_failure_record(decision)], _failure_counters), _usage_events)

# _send_failure_base is _failure_base for a failure of the send (T6): its outcome is
# unknown, so the try is not counted against the delivery's retry budget yet; the
# delivery's outcome counts it once (a failed outcome) or completes it.
_send_failure_base := array.concat(
	array.concat([_failure_record("unknown")], [c | some c in _failure_counters; c.name != core.retry_counter(_failed_task)]),
	_usage_events,
)

_retry_effect := sprintf("retry/%s", [_failed_task])

_recovery_effect := sprintf("recovery/%s", [_failed_task])

# The branch a failure takes, by status and class.
_failure_branch := "deadlock" if {
	lib.status == "REVIEW_PENDING"
	_failed_task == "T5"
	_review_overdue
} else := "delivery" if {
	lib.status == "REVIEW_PENDING"
	_failed_task == "T6"
} else := "retry_in_place" if {
	lib.status in {"CREATED", "PLANNED", "REVIEW_PENDING"}
	_attempts_remain
} else := "cancel" if {
	lib.status in {"CREATED", "PLANNED"}
} else := "escalate" if {
	lib.status == "REVIEW_PENDING"
} else := "retry_pending" if {
	lib.status == "RUNNING"
	_retryable(_failure_class)
} else := "blocked" if {
	lib.status == "RUNNING"
}

# T1, T2 and T5: retried where they run (the host re-invokes the agent after the delay).
_failure_proposal := {
	"outcome": "retry",
	"status_after": lib.status,
	"retry": _failure_retry,
	"next": [_next(lib.request.agent, _task_type(_failed_task), core.empty_context)],
	"events": _failure_base("retry"),
} if {
	_failure_branch == "retry_in_place"
}

# _in_place_task is the task a request reports on where tasks are retried in place:
# a failure's task, the review's T5, a result's task.
_in_place_task := _failed_task if {
	input.request.kind == "failure"
} else := "T5" if {
	input.request.kind == "review"
} else := _task_id if _result

# _in_place_retry_pending holds while the retry of a task retried in place (T1, T2,
# T5) is not yet due: its last FAILURE_RECORD decided a retry whose delay has not
# passed since the record.
_in_place_retry_pending(task) if {
	lib.status in {"CREATED", "PLANNED", "REVIEW_PENDING"}
	task != "T6"
	_task_status(task) == "running"
	_last_failure(task).decision in {"retry", "reassign"}
	_now_ns < _due_ns(task)
}

# METADATA
# title: Retried task reports before its retry is due
# description: >-
#   A task retried where it runs (T1, T2, T5) reports a failure, a result or a review
#   before the delay its last failure announced has passed since that failure was
#   recorded: the retried try cannot have run yet. A failure then repeats the recorded
#   one and is not counted again; a result or review would come from a retry started
#   before its backoff (seed phase 9). The host reports again once the retry is due.
# custom:
#   code: RETRY_NOT_DUE
#   outcome: block
reasons contains r if {
	_live
	lib.kind in {"failure", "review", "handoff"}
	task := _in_place_task
	_in_place_retry_pending(task)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("task %s is retried %d ms after its failure was recorded; %d ms are left: nothing of the retry can be reported yet", [task, _last_failure(task).delay_ms, (_due_ns(task) - _now_ns) / _ms]), "", "RETRY_DUE", "block")
}

# T1 or T2 failed for good: nothing was read or sent yet; the workflow stops safely.
_failure_proposal := {
	"outcome": "fail",
	"status_after": "CANCELLED",
	"next": [],
	"events": array.concat(_failure_base("cancelled"), _cancel_open_tasks),
} if {
	_failure_branch == "cancel"
}

_failure_proposal := _escalation_proposal([_failure_code], sprintf("task %s of %s failed (%s) in review", [_failed_task, lib.request.agent, _failure_class]), _failure_base("escalated")) if {
	_failure_branch == "escalate"
}

_failure_proposal := _escalation_proposal(["REVIEW_DEADLINE_EXCEEDED"], "the review passed its deadline", _failure_base("escalated")) if {
	_failure_branch == "deadlock"
}

_failure_code := "RETRY_EXHAUSTED" if _retryable(_failure_class)

else := "NOT_RETRYABLE"

# The send's fate is uncertain: UNKNOWN until the delivery record is checked.
_failure_proposal := {
	"outcome": "await_human",
	"status_after": "REVIEW_PENDING",
	"next": [_next("supervisor", "send_response", {"must_know": {"reconcile": _delivery_effects}, "may_know": {}})],
	"events": array.concat(
		_send_failure_base,
		array.concat(
			[{"type": "effect", "id": id, "status": "unknown"} | some id in _delivery_effects],
			[_task_status_event("T6", "unknown")],
		),
	),
	"requires_human_review": true,
} if {
	_failure_branch == "delivery"
}

_delivery_effects := sort([id |
	some id, status in lib.state.effects
	startswith(id, "delivery/")
	status in {"pending", "unknown"}
])

# METADATA
# title: Send failed with an unknown outcome
# description: >-
#   The send (T6) failed in a way that leaves the delivery uncertain: it is UNKNOWN, and
#   the delivery record is checked before anything is resent.
# custom:
#   code: DELIVERY_UNRECONCILED
#   outcome: await_human
reasons contains r if {
	_failure
	not _not_assigned
	not _send_failure_repeated
	_failure_branch == "delivery"
	count(_delivery_effects) > 0
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the send failed (%s): the delivery is UNKNOWN until its record is checked", [_failure_class]), "class", "DELIVERY_UNKNOWN", "await_human")
}

# METADATA
# title: Send failure without a delivery
# description: >-
#   A failure of the send (T6) arrives while no delivery is in flight: the accepted
#   response was not sent yet, or its last delivery already failed and was not resent.
#   There is no delivery effect it could concern; nothing is marked UNKNOWN.
# custom:
#   code: EFFECT_NOT_FOUND
#   outcome: block
reasons contains r if {
	_failure
	not _not_assigned
	not _send_failure_repeated
	_failure_branch == "delivery"
	count(_delivery_effects) == 0
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the send (T6) is %s with no delivery pending (%v): there is no delivery this failure concerns", [_task_status("T6"), object.get(lib.state, "effects", {})]), "task", "EFFECT_KNOWN", "block")
}

# METADATA
# title: Send failure reported again
# description: >-
#   A failure of the send (T6) arrives while its delivery is already UNKNOWN: the send's
#   failure was reported and nothing was sent since, so this repeats it. It is refused
#   and not counted; the delivery record is checked first (an outcome of the delivery
#   settles it).
# custom:
#   code: DELIVERY_UNRECONCILED
#   outcome: block
reasons contains r if {
	_failure
	_send_failure_repeated
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the delivery of T6 is already UNKNOWN (%v): this failure repeats the reported one and is not counted; reconcile the delivery record first", [_delivery_effects]), "task", "DELIVERY_UNKNOWN", "block")
}

# RUNNING: a recoverable failure waits for its retry.
_failure_proposal := {
	"outcome": "retry",
	"status_after": "RETRY_PENDING",
	"retry": _failure_retry,
	"next": [],
	"events": array.concat(_failure_base(_retry_decision_name), [
		_task_status_event(_failed_task, "failed"),
		{"type": "effect", "id": _retry_effect, "status": "pending"},
	]),
} if {
	_failure_branch == "retry_pending"
	_attempts_remain
}

_failure_proposal := {
	"outcome": "await_human",
	"status_after": "RETRY_PENDING",
	"next": [],
	"events": array.concat(_failure_base("escalated"), [
		_task_status_event(_failed_task, "failed"),
		{"type": "effect", "id": _retry_effect, "status": "pending"},
	]),
	"requires_human_review": true,
} if {
	_failure_branch == "retry_pending"
	not _attempts_remain
}

_retry_decision_name := "reassign" if _failure_class == "worker_lost"

else := "retry"

# RUNNING: a failure that is not retried blocks the workflow on its dependency.
_failure_proposal := {
	"outcome": "await_human",
	"status_after": "BLOCKED",
	"next": _blocked_next,
	"events": array.concat(_failure_base("blocked"), [
		_task_status_event(_failed_task, "blocked"),
		{"type": "effect", "id": _recovery_effect, "status": "pending"},
	]),
	"requires_human_review": true,
} if {
	_failure_branch == "blocked"
}

# An authorization failure recovers only through the gateway's re-verification.
_blocked_next := [_next("supervisor", "verify_authorization", core.empty_context)] if _failure_class == "authorization"

else := []

# BLOCKED: nothing runs, so no failure is expected; a failure of the blocked task repeats
# the one that blocked it (TASK_NOT_ASSIGNED) and is never counted. The recovery check
# (recovery/<task> failed) or the gateway's denial ends the workflow FAILED.

# --- retry timer and recovery outcomes ---------------------------------------------------

_retry_timer if {
	lib.status == "RETRY_PENDING"
	startswith(_effect_id, "retry/")
	_effect_open
}

_timer_task := substring(_effect_id, 6, -1)

# _timer_attempts_remain reads the task's last FAILURE_RECORD: its attempt was not the
# last its class allows.
_timer_attempts_remain if {
	f := _last_failure(_timer_task)
	_retryable(f.class)
	f.attempt < object.get(_retry_policy(f.class), "max_attempts", 1)
}

_last_failure(task) := _last_failure_version(task).content

# _last_failure_version is the latest FAILURE_RECORD version of a task.
_last_failure_version(task) := core.artifact_version("FAILURE_RECORD", max(ns)) if {
	ns := {v.ref.version | some v in object.get(core.artifact("FAILURE_RECORD"), "versions", {}); v.content.task_id == task}
	count(ns) > 0
}

# _due_ns is when the next try of a task may run: its last FAILURE_RECORD's recorded_at
# plus its delay_ms, the delay the failure decision announced to the host (the policy's
# backoff, at least the provider's retry_after_ms for a rate limit). Undefined without
# a record: nothing is due then (fail closed).
_due_ns(task) := _ns(v.recorded_at) + (v.content.delay_ms * _ms) if {
	v := _last_failure_version(task)
	is_number(v.content.delay_ms)
}

_is_due(task) if _now_ns >= _due_ns(task)

# METADATA
# title: Retry limit reached
# description: >-
#   The retry of a task is due but its last try was the last its failure class allows
#   (limits.retry[class].max_attempts), or the retry could not be scheduled: the case
#   escalates to a person. Attempts always stay within the configured limit.
# custom:
#   code: RETRY_EXHAUSTED
#   outcome: await_human
reasons contains r if {
	_outcome
	_retry_timer
	not _timer_proceeds
	r := lib.gate_reason(rego.metadata.rule(), _exhausted_message, "effect_id", "RETRY", "await_human")
}

# _exhausted_message says why the retry does not run, from the recorded failure's
# numbers only: its detail is free text and stays out of a reason.
_exhausted_message := sprintf("task %s: the scheduler reports the retry %s: it does not run", [_timer_task, lib.request.result]) if {
	lib.request.result != "acknowledged"
} else := sprintf("task %s: its last failure's class %v is not retried", [_timer_task, f.class]) if {
	f := _last_failure(_timer_task)
	not _retryable(f.class)
} else := sprintf("task %s: attempt %v of %v (class %v) was the last", [_timer_task, f.attempt, object.get(_retry_policy(f.class), "max_attempts", 1), f.class]) if {
	f := _last_failure(_timer_task)
} else := sprintf("task %s: no failure of it is recorded", [_timer_task])

_timer_proceeds if {
	lib.request.result == "acknowledged"
	_timer_attempts_remain
}

# METADATA
# title: Retry not due
# description: >-
#   The scheduler reports the retry of a task due (outcome retry/<task> acknowledged)
#   before its delay has passed since the failure was recorded: the FAILURE_RECORD's
#   delay_ms, the exponential backoff that honours the provider's retry_after_ms for a
#   rate limit (seed phase 9). The workflow stays in RETRY_PENDING; the scheduler
#   reports again when the retry is due.
# custom:
#   code: RETRY_NOT_DUE
#   outcome: block
reasons contains r if {
	_outcome
	_retry_timer
	_timer_proceeds
	_now_ns < _due_ns(_timer_task)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("task %s may be retried %d ms after its failure was recorded; %d ms are left", [_timer_task, _last_failure(_timer_task).delay_ms, (_due_ns(_timer_task) - _now_ns) / _ms]), "effect_id", "RETRY_DUE", "block")
}

_outcome_proposal := {
	"outcome": "allow",
	"status_after": "READY",
	"next": _supervisor_next([_timer_task]),
	"events": [_effect_event("acknowledged"), _task_status_event(_timer_task, "ready")],
} if {
	_retry_timer
	_timer_proceeds
}

_outcome_proposal := _escalation_proposal(["RETRY_EXHAUSTED"], sprintf("task %s: retry limit reached", [_timer_task]), [_effect_event(_timer_close)]) if {
	_retry_timer
	not _timer_proceeds
}

_timer_close := "acknowledged" if lib.request.result == "acknowledged"

else := "failed"

_recovery_check if {
	lib.status == "BLOCKED"
	startswith(_effect_id, "recovery/")
	_effect_open
}

_recovered_task := substring(_effect_id, 9, -1)

# METADATA
# title: Authorization failure recovered without the gateway
# description: >-
#   The recovery check reports a task blocked by an authorization failure recovered: an
#   authorization failure recovers only through the gateway's re-verification (T2 in
#   BLOCKED), never by running the task again under the authorization the order system
#   refused (seed phase 9: do not retry authorization failures).
# custom:
#   code: AUTHORIZATION_REQUIRED
#   outcome: block
reasons contains r if {
	_outcome
	_recovery_check
	lib.request.result == "acknowledged"
	_last_failure(_recovered_task).class == "authorization"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("task %s failed on authorization: only the gateway's re-verification recovers it", [_recovered_task]), "effect_id", "SEC-AUTHZ", "block")
}

_outcome_proposal := {
	"outcome": "allow",
	"status_after": "READY",
	"next": _supervisor_next([_recovered_task]),
	"events": [_effect_event("acknowledged"), _task_status_event(_recovered_task, "ready")],
} if {
	_recovery_check
	lib.request.result == "acknowledged"
}

# METADATA
# title: Recovery exhausted
# description: >-
#   The check of the blocked task's dependency (effect recovery/<task>) failed: the
#   workflow fails, with the failure recorded.
# custom:
#   code: RETRY_EXHAUSTED
#   outcome: fail
reasons contains r if {
	_outcome
	_recovery_check
	lib.request.result == "failed"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the dependency of task %s did not recover", [_recovered_task]), "result", "RETRY", "fail")
}

_outcome_proposal := {
	"outcome": "fail",
	"status_after": "FAILED",
	"next": [],
	"events": array.concat([_effect_event("failed")], _cancel_open_tasks),
} if {
	_recovery_check
	lib.request.result == "failed"
}

_outcome_proposal := {
	"outcome": "await_human",
	"status_after": "BLOCKED",
	"next": [],
	"events": [_effect_event("unknown")],
	"requires_human_review": true,
} if {
	_recovery_check
	lib.request.result == "unknown"
}

# An outcome of no open effect this status waits for: EFFECT_NOT_FOUND blocks an unknown
# effect, EFFECT_ALREADY_SETTLED a settled one, the sequence rule any other.
_outcome_proposal := {"outcome": "block", "status_after": lib.status} if {
	not _delivery_effect
	not _retry_timer
	not _recovery_check
	not _handoff_ack
}

# METADATA
# title: Outcome of an effect this status does not wait for
# description: >-
#   An outcome names an open effect the current status does not wait for (a delivery
#   outside REVIEW_PENDING, a retry outside RETRY_PENDING, a recovery outside BLOCKED,
#   the human handoff outside ESCALATED). A settled effect is EFFECT_ALREADY_SETTLED.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
reasons contains r if {
	_outcome
	lib.state.effects[_effect_id]
	not _effect_settled
	not _delivery_effect
	not _retry_timer
	not _recovery_check
	not _handoff_ack
	r := lib.reason(rego.metadata.rule(), sprintf("effect %s is %s; status %s does not wait for its outcome", [_effect_id, lib.state.effects[_effect_id], lib.status]), "effect_id")
}

# --- cancellation ------------------------------------------------------------------------

_open_effects := sort([id | some id, status in lib.state.effects; status in {"pending", "unknown"}])

# _cancellable are the statuses a cancel request may end the workflow from
# (config.cancellable in contracts/support/config.cue).
_cancellable := {s | some s in object.get(lib.pack_config, "cancellable", [])}

_cancel_problems contains msg if {
	not lib.status in _cancellable
	msg := sprintf("status %s cannot be cancelled: it ends through its recovery or escalation path", [lib.status])
}

_cancel_problems contains msg if {
	lib.status == "RUNNING"
	count(_open_effects) > 0
	msg := sprintf("side effects %v are pending or unknown: reconcile them first", [_open_effects])
}

# METADATA
# title: Cancellation not safe
# description: >-
#   Cancellation stops new work and checks active side effects: it is refused while a
#   side effect is pending or unknown, and in statuses the state machine does not let
#   cancel (RETRY_PENDING, REVIEW_PENDING and BLOCKED end through their retry, review,
#   recovery or escalation paths).
# custom:
#   code: CANCELLATION_UNSAFE
#   outcome: block
reasons contains r if {
	_cancel
	some msg in _cancel_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, "", "CANCEL", "block")
}

_cancel_proposal := {
	"outcome": "allow",
	"status_after": "CANCELLED",
	"next": [],
	"events": _cancel_open_tasks,
} if {
	count(_cancel_problems) == 0
}

_cancel_proposal := {"outcome": "block", "status_after": lib.status} if {
	count(_cancel_problems) > 0
}

# --- stops: deadline and budget ----------------------------------------------------------

_deadline_ns := _ns(lib.state.created_at) + (n * _ms) if {
	n := _cfg("max_workflow_duration_ms")
	is_number(n)
}

_deadline_passed if not _deadline_ns

_deadline_passed if _now_ns > _deadline_ns

_usage := u if {
	u := lib.request.usage
	is_object(u)
} else := {}

_usage_totals := [[counter, limit, core.counter(counter) + object.get(_usage, field, 0)] |
	some [counter, limit, field] in [
		["usage/model_calls", "max_model_calls", "model_calls"],
		["usage/tool_calls", "max_tool_calls", "tool_calls"],
		["usage/cost_micros", "cost_budget_micros", "cost_micros"],
	]
]

_over_budget contains [counter, total] if {
	some [counter, limit, total] in _usage_totals
	not _at_most(limit, total)
}

_at_most(name, n) if {
	limit := _cfg(name)
	is_number(limit)
	n <= limit
}

_usage_events := [{"type": "counter", "name": counter, "delta": n} |
	some [counter, field] in [
		["usage/model_calls", "model_calls"],
		["usage/tool_calls", "tool_calls"],
		["usage/cost_micros", "cost_micros"],
	]
	n := object.get(_usage, field, 0)
	n > 0
]

# _stopping holds for a valid request that arrives past the workflow's deadline, or
# whose usage takes the workflow past a budget: the workflow takes its status's stop
# exit instead. Outcomes (reconciling what already happened) and cancellations are
# always judged on their own terms.
_stopping if {
	_ready
	not lib.kind in {"start", "outcome", "cancel"}
	_stop_cause
}

_stop_cause if _deadline_passed

_stop_cause if count(_over_budget) > 0

# METADATA
# title: Workflow deadline passed
# description: >-
#   The request arrives after config.max_workflow_duration_ms from the workflow's start:
#   the workflow takes its status's stop exit (config.stop_exits: CREATED, PLANNED and
#   READY cancel, RUNNING cancels when no side effect is open and blocks otherwise,
#   RETRY_PENDING and REVIEW_PENDING escalate, BLOCKED fails). The request itself is not
#   applied.
# custom:
#   code: WORKFLOW_DEADLINE_EXCEEDED
#   outcome: fail
reasons contains r if {
	_stopping
	_deadline_passed
	r := lib.gate_reason(rego.metadata.rule(), sprintf("workflow %q started at %s; it may run %v ms: stopping (%s → %s)", [object.get(lib.state, "workflow_id", ""), object.get(lib.state, "created_at", "unknown"), object.get(lib.pack_config, "max_workflow_duration_ms", "not configured"), lib.status, _stop_exit]), "", "DEADLINE", _stop_outcome)
}

# METADATA
# title: Budget spent
# description: >-
#   The request's usage takes the workflow past config.max_model_calls, max_tool_calls
#   or cost_budget_micros: the usage is counted, the request is not applied, and the
#   workflow takes its status's stop exit.
# custom:
#   code: BUDGET_EXHAUSTED
#   outcome: fail
reasons contains r if {
	_stopping
	some [counter, total] in _over_budget
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s would be %d, over its budget: stopping (%s → %s)", [counter, total, lib.status, _stop_exit]), "usage", "BUDGET", _stop_outcome)
}

_stop_exit := "BLOCKED" if {
	lib.status == "RUNNING"
	count(_open_effects) > 0
} else := e if {
	e := lib.pack_config.stop_exits[lib.status]
	is_string(e)
} else := lib.status

_stop_outcome := "await_human" if _stop_exit in {"ESCALATED", "BLOCKED"}

else := "fail"

_stop_codes := array.concat(
	["WORKFLOW_DEADLINE_EXCEEDED" | _deadline_passed],
	["BUDGET_EXHAUSTED" | count(_over_budget) > 0],
)

_stop_proposal := _escalation_proposal(_stop_codes, sprintf("stopped in %s", [lib.status]), _usage_events) if {
	_stop_exit == "ESCALATED"
}

_stop_proposal := {
	"outcome": "await_human",
	"status_after": "BLOCKED",
	"next": [],
	"events": _usage_events,
	"requires_human_review": true,
} if {
	_stop_exit == "BLOCKED"
}

_stop_proposal := {
	"outcome": "fail",
	"status_after": _stop_exit,
	"next": [],
	"events": array.concat(_cancel_open_tasks, _usage_events),
} if {
	_stop_exit in {"CANCELLED", "FAILED"}
}
