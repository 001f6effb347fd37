package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Retry strategy (seed section 18). A failure report asks for a retry of one of the five
# types with an explicit reason. The retry increments the task's counter (core
# retry/<task>), is recorded in the retry history (RETRY_RECORD), and hands the agent a
# new context built by the Orchestrator (references only for a restricted retry after a
# prompt injection signal). The retried handoff is an ordinary handoff: every guardrail
# applies again, tenant and assessment cannot change, and it keeps the assessment's trace.
# An exhausted (or non-retryable) failure blocks the work and escalates to human review.

_failure if {
	core.ready
	input.request.kind == "failure"
}

# _retry_classes are the failure classes each retry type may be reported with: transient
# tool failures are timeouts, rate limits or lost workers; the other types are outputs
# that could not be used (invalid_output).
# The table is config.retry_classes in contracts/assessment/config.cue.
_retry_classes := {t: {c | some c in classes} | some t, classes in object.get(lib.pack_config, "retry_classes", {})}

_retryable_class if object.get(lib.pack_contract, ["limits", "retry", object.get(lib.request, "class", ""), "retryable"], false) == true

_retry_type := object.get(lib.request, "retry_type", "")

_failure_problems contains sprintf("retry type %s is not reported with failure class %s (use %v)", [_retry_type, lib.request.class, sort(object.get(_retry_classes, _retry_type, set()))]) if {
	_retryable_class
	not lib.request.class in object.get(_retry_classes, _retry_type, set())
}

_failure_problems contains sprintf("a conflict clarification retry needs a conflict over an output of %q", [lib.request.agent]) if {
	_retry_type == "conflict_clarification"
	not _agent_in_conflict(lib.request.agent)
}

_agent_in_conflict(agent) if {
	some c in lib.state.conflicts
	some a in c.artifacts
	a.type == _produces(agent)
}

# METADATA
# title: Retry request invalid
# description: >-
#   A failure asks for a retry the strategy does not allow: a retry type reported with a
#   failure class it does not fit (a transient tool failure is a timeout, rate limit or
#   lost worker; schema, missing context, conflict clarification and restricted retries
#   follow an unusable output), or a conflict clarification retry without a conflict.
# custom:
#   code: RETRY_INVALID
#   outcome: block
reasons contains r if {
	_failure
	_expected
	some msg in _failure_problems
	r := lib.reason(rego.metadata.rule(), msg, "retry_type")
}

# METADATA
# title: Failure reported by another agent
# description: >-
#   An agent reports only its own failure (actor.id is the failure's agent); the host
#   (a system actor) reports any. A failure counts against a task's retry budget, so no
#   agent spends another's.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_failure
	lib.actor_type == "agent"
	lib.actor_id != object.get(lib.request, "agent", "")
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q reports a failure of agent %q: an agent reports its own failures", [lib.actor_id, object.get(lib.request, "agent", "")]), "actor.id")
}

# METADATA
# title: Failure reported by a person
# description: >-
#   Failures are reported by the failed agent or the host: a person acts through
#   approvals and resolutions (human review after an escalation), never by spending an
#   agent's retry budget.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_failure
	lib.actor_type == "human"
	r := lib.reason(rego.metadata.rule(), sprintf("person %q may not report a failure of agent %q; the agent or the host does", [lib.actor_id, object.get(lib.request, "agent", "")]), "actor.type")
}

# _restricted_before holds when the task already had its restricted retry.
_restricted_before if {
	some v in core.artifact("RETRY_RECORD").versions
	v.content.task == lib.request.task
	v.content.restricted == true
}

# METADATA
# title: Restricted retry already used
# description: >-
#   A restricted retry after a prompt injection signal is granted once per task: a second
#   injection signal escalates to human review whatever the retry budget.
# custom:
#   code: RETRY_EXHAUSTED
#   outcome: await_human
reasons contains r if {
	_failure
	_retry_type == "injection_restricted"
	_restricted_before
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("task %q of agent %q already had its restricted retry after a prompt injection signal", [lib.request.task, lib.request.agent]), "retry_type", "await_human")
}

# _retry_spent holds when the failure is not retried any more.
_retry_spent if {
	some r in (_core_kept | reasons)
	r.code in {"RETRY_EXHAUSTED", "NOT_RETRYABLE"}
}

_restricted := _retry_type == "injection_restricted"

_retry_count := core.counter(core.retry_counter(object.get(lib.request, "task", ""))) + 1

_retry_info := {"count": _retry_count, "type": _retry_type, "reason": lib.request.retry_reason}

_retry_content(exhausted) := {
	"tenant_id": lib.state.tenant_id,
	"organization_id": object.get(lib.state, "organization_id", ""),
	"assessment_id": lib.state.subject_id,
	"trace_id": _trace,
	"task": lib.request.task,
	"agent": lib.request.agent,
	"retry_type": _retry_type,
	"retry_reason": lib.request.retry_reason,
	"failure_class": lib.request.class,
	"attempt": core.failure_attempt,
	"max_attempts": object.get(lib.pack_contract, ["limits", "retry", lib.request.class, "max_attempts"], 1),
	"exhausted": exhausted,
	"restricted": _restricted,
	"delay_ms": _retry_delay(exhausted),
}

# _retry_delay is the delay the retry decision announces: its backoff and jitter.
_retry_delay(false) := d if {
	d := core.failure_retry.delay_ms
	is_number(d)
} else := 0

_retry_delay(true) := 0

_retry_ref(exhausted) := core.next_ref("RETRY_RECORD", "retry-record", _retry_content(exhausted))

_retry_record_event(exhausted) := _record_event(_retry_ref(exhausted), "approved", _retry_content(exhausted), _record_meta(_retry_ref(exhausted), "passed", lib.request.agent, lib.status))

# _retry_context is what the retried agent receives: the retry record and the artifacts
# it works from; a restricted retry receives references only.
_retry_extra := {"retry": _retry_info} if not _restricted

else := {"retry": _retry_info, "restricted": true}

# A retryable failure within its budget: the same agent tries again with a new context.
_failure_proposal := _escalation_proposal if {
	_retry_spent
} else := {
	"outcome": "retry",
	"status_after": lib.status,
	"retry": core.failure_retry,
	"next": [_next_agent(lib.request.agent, "orchestrator", lib.status, [{"ref": _retry_ref(false), "status": "approved"}], _retry_extra)],
	"events": [
		{"type": "counter", "name": core.retry_counter(lib.request.task), "delta": 1},
		{"type": "counter", "name": sprintf("retry_pending/%s", [lib.request.task]), "value": 1},
		_retry_record_event(false),
	],
}

# --- when a retry is due (the engine's clock) --------------------------------------------

_ms := 1000000

_now_ns := time.parse_rfc3339_ns(input.now)

# _pending_version is the RETRY_RECORD of the retry pending for a task.
_pending_version(task) := v if {
	_retry_pending(task)
	v := core.latest_version("RETRY_RECORD")
	v.content.task == task
	v.content.exhausted == false
}

# _due_ns is when the pending retry of a task may run: its record's recorded_at (the
# engine's clock) plus the delay the retry decision announced.
_due_ns(task) := time.parse_rfc3339_ns(v.recorded_at) + (object.get(v.content, "delay_ms", 0) * _ms) if {
	v := _pending_version(task)
}

_not_due(task) if _now_ns < _due_ns(task)

_due_label(task) := sprintf("retry %v of task %q was granted at %s with a delay of %v ms: due at %s", [
	core.counter(core.retry_counter(task)), task, _pending_version(task).recorded_at,
	object.get(_pending_version(task).content, "delay_ms", 0), time.format([_due_ns(task), "UTC", "2006-01-02T15:04:05.000Z07:00"]),
])

# METADATA
# title: Retry not due
# description: >-
#   A retried handoff arrives before the delay the retry decision announced has passed
#   since its RETRY_RECORD was recorded (the engine's clock, never a request's
#   created_at). The delay checked is the one the decision told the host: the
#   policy's backoff with the request's jitter (core.retry_decision).
# custom:
#   code: RETRY_NOT_DUE
#   outcome: block
reasons contains r if {
	_handoff
	_expected
	_not_due(_task)
	r := lib.reason(rego.metadata.rule(), sprintf("%s; it is %s", [_due_label(_task), input.now]), "retry")
}

# METADATA
# title: Failure repeated before its retry ran
# description: >-
#   A failure of a task arrives while the retry granted for its last failure is not yet
#   due: the retry has not run, so this report repeats the failure already counted (a
#   duplicate event under a new request_id). It is recorded, never counted again.
# custom:
#   code: FAILURE_REPEATED
#   outcome: block
reasons contains r if {
	_failure
	_expected
	_not_due(lib.request.task)
	r := lib.reason(rego.metadata.rule(), sprintf("%s; it is %s: the retry has not run, so this failure was already counted", [_due_label(lib.request.task), input.now]), "task")
}

# --- the retried handoff -----------------------------------------------------------------

_pending_retry := v.content if {
	v := core.latest_version("RETRY_RECORD")
	v.content.task == _task
	v.content.exhausted == false
}

_retry_given := r if {
	r := lib.request.retry
	is_object(r)
}

# _restricted_keys are the only context keys a restricted retry may carry
# (config.restricted_retry_context in contracts/assessment/config.cue).
_restricted_keys := {k | some k in object.get(lib.pack_config, "restricted_retry_context", [])}

_retry_problems contains "carries no retry (count, type, reason)" if {
	_handoff_type == "retry"
	not _retry_given
}

_retry_problems contains sprintf("says retry %v, but task %q has had %v", [_retry_given.count, _task, core.counter(core.retry_counter(_task))]) if {
	_handoff_type == "retry"
	_retry_given.count != core.counter(core.retry_counter(_task))
}

_retry_problems contains sprintf("says retry type %s, but the retry granted is %s", [_retry_given.type, _pending_retry.retry_type]) if {
	_handoff_type == "retry"
	_retry_given.type != _pending_retry.retry_type
}

_retry_problems contains sprintf("does not name RETRY_RECORD v%v, the retry it answers, among its input_artifacts", [core.latest_number("RETRY_RECORD")]) if {
	_handoff_type == "retry"
	_pending_retry
	not "RETRY_RECORD" in lib.input_types
}

_retry_problems contains sprintf("is a restricted retry after a prompt injection signal and may carry only %v in its context, not %q", [sort(_restricted_keys), k]) if {
	_handoff_type == "retry"
	_pending_retry.restricted == true
	some k, _ in _context
	not k in _restricted_keys
}

_retry_problems contains sprintf("carries retry information but is %s handoff", [lib.with_article(_handoff_type)]) if {
	_handoff_type != "retry"
	_retry_given
}

# METADATA
# title: Retried handoff does not answer its retry
# description: >-
#   A retry handoff carries the retry count, type and reason, names the RETRY_RECORD it
#   answers and matches it (count and type); a restricted retry after a prompt injection
#   signal passes references only. A handoff of another type carries no retry.
# custom:
#   code: RETRY_INVALID
#   outcome: block
reasons contains r if {
	_handoff
	_expected
	some msg in _retry_problems
	r := lib.reason(rego.metadata.rule(), sprintf("handoff %s>%s %s", [_source, _target, msg]), "retry")
}
