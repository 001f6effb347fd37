package handoff.support

import data.handoff.core
import data.handoff.lib

# The handoff envelope of seed phase 7: workflow_id (core), task_id, sender, recipient,
# objective, input_refs, required_output, state_version, authorization_context and
# completion_criteria. Missing fields and wrong types are SCHEMA_INVALID (CUE); these
# rules check what CUE cannot: consistency with the request, the task graph, the
# assignment and the workflow version.

# _task_type is the task type that performs a task of the graph.
_task_type(id) := t if {
	t := _task_cfg(id).task_type
	is_string(t)
} else := ""

_task_output(id) := t if {
	t := _task_cfg(id).output
	is_string(t)
} else := ""

# _envelope_problems are [path, message] pairs of envelope inconsistencies.
_envelope_problems contains ["sender", msg] if {
	_handoff
	lib.request.sender != lib.request.source_agent
	msg := sprintf("sender %q is not the source agent %q", [lib.request.sender, lib.request.source_agent])
}

_envelope_problems contains ["recipient", msg] if {
	_handoff
	lib.request.recipient != lib.request.target_agent
	msg := sprintf("recipient %q is not the target agent %q", [lib.request.recipient, lib.request.target_agent])
}

_envelope_problems contains ["task_type", msg] if {
	_result
	lib.request.task_type != _task_type(_task_id)
	msg := sprintf("task %s is performed as %q, not %q", [_task_id, _task_type(_task_id), lib.request.task_type])
}

_envelope_problems contains ["output.type", msg] if {
	_result
	lib.output.type != _task_output(_task_id)
	msg := sprintf("task %s delivers %s, not %s", [_task_id, _task_output(_task_id), lib.output.type])
}

# A result goes back to the Supervisor, who routes; the sent response (T6) goes to the
# customer.
_result_target(id) := "customer" if id == "T6"

else := "supervisor"

_envelope_problems contains ["target_agent", msg] if {
	_result
	lib.request.target_agent != _result_target(_task_id)
	msg := sprintf("the result of task %s goes to %q, not %q", [_task_id, _result_target(_task_id), lib.request.target_agent])
}

_envelope_problems contains ["output", "a dispatch assigns a task and carries no output"] if {
	_dispatch
	lib.output
}

_envelope_problems contains [sprintf("input_refs[%d]", [i]), msg] if {
	_handoff
	some i, name in lib.request.input_refs
	not _input_ref_known(name)
	msg := sprintf("input_refs names %q, which is not a field of an artifact among input_artifacts (%v)", [name, sort(lib.input_types)])
}

_envelope_problems contains ["task_id", msg] if {
	_dispatch
	not _task_cfg(_task_id).dispatched == true
	msg := sprintf("task %s is not assigned by dispatch: its owner performs it", [_task_id])
}

_envelope_problems contains [sprintf("required_output.%s", [field]), msg] if {
	_dispatch
	some field, _ in lib.request.required_output
	not lib.pack_contract.artifacts[_task_output(_task_id)].fields[field]
	msg := sprintf("required_output names %q, which is not a field of %s", [field, _task_output(_task_id)])
}

_envelope_problems contains ["required_output", msg] if {
	_dispatch
	count(lib.request.required_output) == 0
	msg := sprintf("the dispatch of %s names no required output", [_task_id])
}

_envelope_problems contains ["completion_criteria", msg] if {
	_dispatch
	some criterion in object.get(_task_cfg(_task_id), "completion_criteria", ["(task unknown)"])
	not criterion in lib.request.completion_criteria
	msg := sprintf("completion_criteria lacks %q, a criterion of task %s", [criterion, _task_id])
}

# A result echoes the envelope of its assignment: a worker cannot change the objective,
# the required output, the criteria or the authorization it runs under.
_envelope_problems contains [field, msg] if {
	_result
	assignment := _assignment(_task_id).content
	some field in ["objective", "required_output", "completion_criteria", "authorization_context"]
	object.get(lib.request, field, null) != object.get(assignment, field, null)
	msg := sprintf("%s differs from the assignment of task %s (TASK_ASSIGNMENT v%d)", [field, _task_id, _assignment(_task_id).ref.version])
}

_input_ref_known(name) if {
	parts := split(name, ".")
	count(parts) == 1
	parts[0] in lib.input_types
}

_input_ref_known(name) if {
	parts := split(name, ".")
	count(parts) == 2
	parts[0] in lib.input_types
	lib.pack_contract.artifacts[parts[0]].fields[parts[1]]
}

# METADATA
# title: Envelope inconsistent
# description: >-
#   The handoff envelope contradicts the request or the task graph: sender or recipient
#   differ from source and target; the task_type or output type is not the task's;
#   input_refs name something the handoff does not carry; a result goes to someone else
#   than the Supervisor (the customer for T6); a dispatch carries an output,
#   assigns a task its owner performs itself, names output fields the task's artifact
#   lacks or leaves out the task's completion criteria; a result does not echo its
#   assignment's objective, required output, criteria and authorization context.
# custom:
#   code: ENVELOPE_MISMATCH
#   outcome: block
reasons contains r if {
	some [path, msg] in _envelope_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "ENVELOPE", "block")
}

# METADATA
# title: Stale state version
# description: >-
#   The envelope's state_version is not the workflow's current version: the sender acted
#   on a state that has moved on (or never existed). It must reload and reconcile;
#   nothing is overwritten silently.
# custom:
#   code: STALE_STATE_VERSION
#   outcome: block
reasons contains r if {
	_ready
	input.request.kind == "handoff"
	v := lib.request.state_version
	v != lib.state.state_version
	r := lib.gate_reason(rego.metadata.rule(), sprintf("state_version %v is not the workflow's current version %v: reload and reconcile", [v, lib.state.state_version]), "state_version", "STATE_VERSION", "block")
}

# --- the assignment a result answers --------------------------------------------------

# _assignment is the latest TASK_ASSIGNMENT version of a task.
_assignment(id) := core.artifact_version("TASK_ASSIGNMENT", max(ns)) if {
	ns := {v.ref.version | some v in object.get(core.artifact("TASK_ASSIGNMENT"), "versions", {}); v.content.task_id == id}
	count(ns) > 0
}

# --- task ownership ------------------------------------------------------------------

# _not_assigned holds for a result, failure or review of a task that is not running
# with the agent sending (or named by) it. T2 is recorded by the authorization gateway
# on the Supervisor's behalf; in BLOCKED it re-verifies.
_not_assigned if {
	_result
	not _runs(_task_id, lib.request.source_agent)
	not _reverification
}

_not_assigned if {
	_failure
	not _failure_task_open
	not _send_failure_repeated
}

# A review is compared as (type, id): the task graph's agents are agents, and a review
# by anyone else is UNAUTHORIZED_SUBJECT (sequence.rego).
_not_assigned if {
	_review
	lib.actor_type == "agent"
	not _runs("T5", lib.actor_id)
}

_runs(id, agent) if {
	_task_status(id) == "running"
	_task_agent(id) == agent
}

# T6 is the Supervisor's from when it is ready (the accepted draft may be sent) until its
# delivery is acknowledged.
_runs("T6", "supervisor") if _task_status("T6") in {"ready", "running", "unknown"}

_reverification if {
	_authorization
	lib.status == "BLOCKED"
}

# A failure concerns a task running with that agent: a blocked task runs nothing, so a
# failure of it repeats the one that blocked it.
_failure_task_open if _runs(lib.request.task, lib.request.agent)

_failure_task_open if {
	lib.status == "REVIEW_PENDING"
	lib.request.task == "T6"
	_task_status("T6") == "running"
	_task_agent("T6") == lib.request.agent
}

# _send_failure_repeated holds for a failure of the send whose delivery is already
# UNKNOWN: the send's failure was reported, and nothing was sent since.
_send_failure_repeated if {
	lib.status == "REVIEW_PENDING"
	lib.request.task == "T6"
	_task_status("T6") == "unknown"
	_task_agent("T6") == lib.request.agent
}

# METADATA
# title: Task not assigned to the sender
# description: >-
#   A result, failure or review names a task that is not running with that agent: the
#   task was never dispatched, is done or cancelled, or runs with another agent. A task
#   starts only when the Supervisor dispatched it, after its dependencies.
# custom:
#   code: TASK_NOT_ASSIGNED
#   outcome: block
reasons contains r if {
	_not_assigned
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s: task %s is %s (agent %q)", [_request_label, _named_task, _task_status(_named_task), _task_agent(_named_task)]), _named_task_path, "TASK_GRAPH", "block")
}

_named_task := lib.request.task if {
	input.request.kind == "failure"
} else := "T5" if {
	input.request.kind == "review"
} else := _task_id

_named_task_path := "task" if {
	input.request.kind == "failure"
} else := "actor.id" if {
	input.request.kind == "review"
} else := "task_id"

# --- output types --------------------------------------------------------------------

_type_ok("string", v) if is_string(v)

_type_ok("string_or_null", v) if is_string(v)

_type_ok("string_or_null", null)

_type_ok("timestamp", v) if {
	is_string(v)
	regex.match(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`, v)
}

_type_ok("number", v) if is_number(v)

_type_ok("boolean", v) if is_boolean(v)

_type_ok("list", v) if is_array(v)

_type_ok("object", v) if is_object(v)

# METADATA
# title: Output does not match its required output
# description: >-
#   A result's content lacks a field its required_output names, or the field has
#   another type (string, string_or_null, timestamp, number, boolean, list, object).
# custom:
#   code: SCHEMA_INVALID
#   outcome: block
reasons contains r if {
	_result
	some field, want in lib.request.required_output
	not _type_ok(want, object.get(lib.content, field, {"missing": true}))
	r := lib.gate_reason(rego.metadata.rule(), sprintf("output.content.%s is not %s as required_output says (got %v)", [field, lib.with_article(want), object.get(lib.content, field, "nothing")]), sprintf("output.content.%s", [field]), "OUTPUT_TYPES", "block")
}

# --- per-call timeout ------------------------------------------------------------------

# METADATA
# title: Per-call timeout exceeded
# description: >-
#   The handoff's work depended on a model or tool call longer than the per-call
#   timeout (config.per_call_timeout_ms): the result is refused and the host reports
#   a timeout failure, retried under its budget.
# custom:
#   code: CALL_TIMEOUT_EXCEEDED
#   outcome: block
reasons contains r if {
	_handoff
	took := lib.request.usage.max_call_ms
	not _within_call_timeout(took)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("a call took %v ms; the per-call timeout is %v ms: report a timeout failure instead", [took, object.get(lib.pack_config, "per_call_timeout_ms", "not configured")]), "usage.max_call_ms", "CALL_TIMEOUT", "block")
}

_within_call_timeout(ms) if {
	limit := _cfg("per_call_timeout_ms")
	is_number(limit)
	ms <= limit
}
