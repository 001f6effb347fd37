package handoff.support

import data.handoff.core
import data.handoff.lib

# Routing and delegation (seed phase 5). The Supervisor dispatches a task of the plan
# with the phase-7 envelope; the dispatch is checked in the configured priority order
# authorization → capability → permission → availability → cost and deadline, and only
# the first failing check is reported: an unauthorized dispatch is refused as
# unauthorized whatever else is wrong with it.

_recipient := object.get(lib.request, "target_agent", "")

_dispatch_cfg := _task_cfg(_task_id)

# --- 1. authorization --------------------------------------------------------------------

_auth_ctx := c if {
	c := lib.request.authorization_context
	is_object(c)
} else := {}

# _referenced_authorization is the recorded authorization the context references: the
# latest AUTHORIZATION_RECORD version, bound to its hash.
_referenced_authorization := v if {
	ref := _auth_ctx.reference
	core.ref_matches(ref)
	ref.version == core.latest_number("AUTHORIZATION_RECORD")
	v := core.ref_version(ref)
}

# _authorization_problems are why an authorization context does not cover scope now.
_authorization_problems(scope) := (_context_unverified | _context_unrecorded) | _referenced_problems(scope)

_context_unverified := {"the authorization context is not verified" | _auth_ctx.status != "verified"}

_context_unrecorded := {"the authorization context names no recorded AUTHORIZATION_RECORD (the latest version, with its hash)" |
	_auth_ctx.status == "verified"
	not _referenced_authorization
}

_referenced_problems(scope) := _record_problems(_referenced_authorization, scope) if _referenced_authorization

else := set()

# _record_problems are why a recorded authorization does not cover scope now.
_record_problems(v, scope) := ((_unverified_record(v) | _no_order_record(v)) | _scope_missing(v, scope)) | _expired_record(v)

_unverified_record(v) := {"the gateway did not verify the customer" | object.get(v, ["content", "verified"], false) != true}

_no_order_record(v) := {"no order reference was authorized" | not is_string(object.get(v, ["content", "order_ref"], null))}

_scope_missing(v, scope) := {msg |
	granted := object.get(v, ["content", "scopes"], [])
	not scope in granted
	msg := sprintf("scope %s is not granted (granted: %v)", [scope, granted])
}

_expired_record(v) := {"the authorization has expired" | not _unexpired(v)}

_unexpired(v) if {
	_now_ns < _ns(v.content.expires_at)
	ttl := _cfg("authorization_ttl_ms")
	is_number(ttl)
	_now_ns - _ns(v.recorded_at) < ttl * _ms
}

# _authorized_for(scope) holds when the workflow's latest authorization covers scope now.
_authorized_for(scope) if {
	v := core.latest_version("AUTHORIZATION_RECORD")
	count(_record_problems(v, scope)) == 0
}

# METADATA
# title: Authorization required
# description: >-
#   Routing check 1 (authorization). A task that reads customer records (a scope in
#   config.tasks) is dispatched only under a verified authorization context naming the
#   latest AUTHORIZATION_RECORD, whose customer was verified for an order, with the
#   scope granted and not expired (expires_at and config.authorization_ttl_ms). Missing
#   authorization stops access to customer records; the Supervisor cannot bypass it.
# custom:
#   code: AUTHORIZATION_REQUIRED
#   outcome: block
_authz_required contains r if {
	_dispatch
	scope := _dispatch_cfg.scope
	some problem in _authorization_problems(scope)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("task %s needs %s: %s", [_task_id, scope, problem]), "authorization_context", "SEC-AUTHZ", "block")
}

# _claims_authorization holds for a handoff whose authorization context is its own claim:
# a dispatch, or the result of a task the Supervisor performs itself (T1, T2, T6). A
# dispatched task's result echoes its assignment's context (ENVELOPE_MISMATCH).
_claims_authorization if _dispatch

_claims_authorization if {
	_result
	not _task_cfg(_task_id).dispatched == true
}

# METADATA
# title: Authorization context unverifiable
# description: >-
#   Routing check 1 (authorization). A dispatch, or a handoff of the Supervisor's own
#   task, that claims a verified authorization names a version that is not the latest
#   recorded AUTHORIZATION_RECORD with its id and hash.
# custom:
#   code: AUTHORIZATION_REQUIRED
#   outcome: block
_authz_required contains r if {
	_claims_authorization
	not _dispatch_cfg.scope
	_auth_ctx.status == "verified"
	not _referenced_authorization
	r := lib.gate_reason(rego.metadata.rule(), sprintf("task %s claims a verified authorization that is not the latest recorded AUTHORIZATION_RECORD", [_task_id]), "authorization_context.reference", "SEC-AUTHZ", "block")
}

# _claimed_scopes are the scopes a dispatch's authorization context claims for the task.
_claimed_scopes := {s | some s in object.get(_auth_ctx, "scopes", [])}

# _task_scopes are the scopes the dispatched task needs (config.tasks[T].scope): none for
# a task that reads no customer record.
_task_scopes := {s | s := _dispatch_cfg.scope; is_string(s)}

# _granted_scopes are the scopes the gateway granted in the authorization the context
# references, while it is verified and unexpired: none without one. The context's own
# status or scope list grants nothing.
_granted_scopes := {s |
	_auth_ctx.status == "verified"
	v := _referenced_authorization
	object.get(v, ["content", "verified"], false) == true
	_unexpired(v)
	some s in object.get(v, ["content", "scopes"], [])
}

# _passed_scopes are the scopes a dispatch passes on to the worker: claimed, granted and
# needed by the task (least privilege). A dispatch claiming any other is refused, and
# even then no other scope reaches the assignment.
_passed_scopes := (_claimed_scopes & _granted_scopes) & _task_scopes

_scope_claims contains [s, msg] if {
	some s in _claimed_scopes
	not s in _granted_scopes
	msg := sprintf("task %s claims scope %s, which the gateway did not grant (granted: %v)", [_task_id, s, sort(_granted_scopes)])
}

_scope_claims contains [s, msg] if {
	some s in _claimed_scopes
	s in _granted_scopes
	not s in _task_scopes
	msg := sprintf("task %s claims scope %s, which it does not need (it needs %v): an agent gets least-privilege credentials", [_task_id, s, sort(_task_scopes)])
}

# METADATA
# title: Scope claimed but not granted
# description: >-
#   Routing check 1 (authorization). A dispatch's authorization_context.scopes (or that
#   of a handoff of the Supervisor's own task) lists a scope that the referenced
#   AUTHORIZATION_RECORD (verified, unexpired) does not grant, or that the task does not
#   need (config.tasks[T].scope): the assignment carries only
#   scopes the gateway granted and the task uses (seed phase 12: least-privilege
#   credentials; sensitive actions need their explicit authorization). Refused, after an
#   authorization failure too; no ungranted scope is ever passed on.
# custom:
#   code: SCOPE_NOT_GRANTED
#   outcome: block
_scope_denials contains r if {
	_claims_authorization
	some [_, msg] in _scope_claims
	r := lib.gate_reason(rego.metadata.rule(), msg, "authorization_context.scopes", "SEC-SCOPE", "block")
}

# _authz_denials are the reasons of routing check 1: a missing or invalid authorization
# first; only under a valid one do the claimed scopes matter.
_authz_denials := _authz_required if {
	count(_authz_required) > 0
} else := _scope_denials

# --- 2. capability ---------------------------------------------------------------------

# METADATA
# title: Capability missing
# description: >-
#   Routing check 2 (capability). The recipient's registry entry does not list the task
#   type that performs the task (or the task is not in the task graph).
# custom:
#   code: CAPABILITY_MISSING
#   outcome: block
_capability_denials contains r if {
	_dispatch
	not _task_type(_task_id) in _agent_tasks(_recipient)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%q cannot perform task %s (%s); its tasks are %v", [_recipient, _task_id, _task_type(_task_id), sort(_agent_tasks(_recipient))]), "target_agent", "ROUTING", "block")
}

# --- 3. permission -----------------------------------------------------------------------

# METADATA
# title: Dependencies not met
# description: >-
#   Routing check 3 (permission). The task graph does not let the task start: it is not
#   in the workflow's plan, a dependency is not done, or it already runs, is done or was
#   cancelled; or the plan assigns it to another agent (a REASSIGN names who takes over).
# custom:
#   code: DEPENDENCY_NOT_MET
#   outcome: block
_permission_denials contains r if {
	_dispatch
	some [path, msg] in _dependency_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "TASK_GRAPH", "block")
}

_dependency_problems contains ["task_id", msg] if {
	_task_status(_task_id) != "ready"
	msg := sprintf("task %s is %s, not ready (depends on %v: %v)", [_task_id, _task_status(_task_id), _deps(_task_id), [sprintf("%s %s", [d, _task_status(d)]) | some d in _deps(_task_id)]])
}

_dependency_problems contains ["task_id", msg] if {
	_task_status(_task_id) == "ready"
	some d in _deps(_task_id)
	not _done(d)
	msg := sprintf("task %s depends on %s, which is %s", [_task_id, d, _task_status(d)])
}

_dependency_problems contains ["target_agent", msg] if {
	_task_status(_task_id) == "ready"
	_task_agent(_task_id) != _recipient
	msg := sprintf("task %s is planned for %q, not %q", [_task_id, _task_agent(_task_id), _recipient])
}

# METADATA
# title: Input not permitted
# description: >-
#   Routing check 3 (permission). The dispatch hands the recipient an artifact type its
#   registry entry does not consume (least privilege: a worker receives only what it may
#   read).
# custom:
#   code: INPUT_NOT_PERMITTED
#   outcome: block
_permission_denials contains r if {
	_dispatch
	some i, ref in lib.inputs
	not ref.type in _agent_consumes(_recipient)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%q may not receive %s", [_recipient, ref.type]), sprintf("input_artifacts[%d]", [i]), "ROUTING", "block")
}

_deps(id) := d if {
	d := _tasks[id].depends_on
	is_array(d)
} else := []

# --- 4. availability ---------------------------------------------------------------------

_delegations(id) := core.counter(sprintf("delegations/%s", [id]))

# METADATA
# title: Concurrency limit
# description: >-
#   Routing check 4 (availability). config.max_concurrent_tasks tasks already run: the
#   dispatch waits. Concurrency is a configured limit, never unlimited.
# custom:
#   code: CONCURRENCY_LIMIT
#   outcome: block
_availability_denials contains r if {
	_dispatch
	not _below("max_concurrent_tasks", count(_running_tasks))
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%d tasks run (%v); at most %v may run at once", [count(_running_tasks), sort(_running_tasks), object.get(lib.pack_config, "max_concurrent_tasks", "not configured")]), "task_id", "CONCURRENCY", "block")
}

# METADATA
# title: Delegation limit exceeded
# description: >-
#   Routing check 4 (availability). The task was already delegated
#   config.max_delegation_depth times (dispatches and re-delegations after a crashed
#   worker, a failure or a review): delegation depth is a configured limit.
# custom:
#   code: DELEGATION_LIMIT_EXCEEDED
#   outcome: block
_availability_denials contains r if {
	_dispatch
	not _below("max_delegation_depth", _delegations(_task_id))
	r := lib.gate_reason(rego.metadata.rule(), sprintf("task %s was delegated %d times; at most %v", [_task_id, _delegations(_task_id), object.get(lib.pack_config, "max_delegation_depth", "not configured")]), "task_id", "DELEGATION", "block")
}

# _below holds when n is below the configured limit name (never when it is missing).
_below(name, n) if {
	limit := _cfg(name)
	is_number(limit)
	n < limit
}

# --- 5. cost and deadline ----------------------------------------------------------------

# METADATA
# title: Budget exhausted
# description: >-
#   Routing check 5 (cost). The workflow has no model calls, tool calls or cost budget
#   left (config.max_model_calls, max_tool_calls, cost_budget_micros): nothing more is
#   dispatched. Spending past a budget stops the workflow (see the stop rules).
# custom:
#   code: BUDGET_EXHAUSTED
#   outcome: block
_cost_denials contains r if {
	_dispatch
	some [counter, limit] in _budgets
	not _below(limit, core.counter(counter))
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s is %d of %v: no budget left for task %s", [counter, core.counter(counter), object.get(lib.pack_config, limit, "not configured"), _task_id]), "task_id", "BUDGET", "block")
}

# METADATA
# title: Not enough time left
# description: >-
#   Routing check 5 (deadline). Less than one per-call timeout is left before the
#   workflow's deadline (config.max_workflow_duration_ms from its start): the task could
#   not finish in time.
# custom:
#   code: WORKFLOW_DEADLINE_EXCEEDED
#   outcome: block
_cost_denials contains r if {
	_dispatch
	not _time_for_a_call
	r := lib.gate_reason(rego.metadata.rule(), sprintf("less than one per-call timeout (%v ms) is left before the workflow's deadline", [object.get(lib.pack_config, "per_call_timeout_ms", "not configured")]), "task_id", "DEADLINE", "block")
}

_time_for_a_call if {
	call := _cfg("per_call_timeout_ms")
	is_number(call)
	_deadline_ns - _now_ns >= call * _ms
}

_budgets := [
	["usage/model_calls", "max_model_calls"],
	["usage/tool_calls", "max_tool_calls"],
	["usage/cost_micros", "cost_budget_micros"],
]

# _routing_denials are the reasons of the first failing routing check in priority order.
_routing_denials := _authz_denials if {
	count(_authz_denials) > 0
} else := _capability_denials if {
	count(_capability_denials) > 0
} else := _permission_denials if {
	count(_permission_denials) > 0
} else := _availability_denials if {
	count(_availability_denials) > 0
} else := _cost_denials

reasons contains r if {
	some r in _routing_denials
}

# --- the dispatch ----------------------------------------------------------------------

_assignment_content := {
	"task_id": _task_id,
	"sender": lib.request.sender,
	"recipient": lib.request.recipient,
	"objective": lib.request.objective,
	"input_refs": lib.request.input_refs,
	"required_output": lib.request.required_output,
	"state_version": lib.request.state_version,
	"authorization_context": _assigned_authorization,
	"completion_criteria": lib.request.completion_criteria,
	"delegation": _delegations(_task_id) + 1,
	"timeout_ms": object.get(lib.pack_config, "per_call_timeout_ms", 0),
}

# _assigned_authorization is the dispatch's authorization context with only the scopes
# it may pass on: identical to the request's whenever the dispatch is allowed.
_assigned_authorization := object.union(_auth_ctx, {"scopes": sort(_passed_scopes)}) if {
	_auth_ctx.scopes
} else := _auth_ctx

# T5 goes to the Reviewer: the workflow waits for the review. Every other dispatch
# starts (or continues) the run.
_dispatch_status := "REVIEW_PENDING" if {
	_task_id == "T5"
	lib.status == "RUNNING"
} else := "RUNNING"

_dispatch_proposal := {
	"outcome": "allow",
	"status_after": _dispatch_status,
	"next": [_next(_recipient, _task_type(_task_id), _dispatch_context)],
	"events": array.concat(
		[
			_record("TASK_ASSIGNMENT", "task-assignment", "approved", _assignment_content, lib.inputs, {"task_id": _task_id}),
			_task_event(_task_id, "running", _recipient, _deps(_task_id)),
			{"type": "counter", "name": sprintf("delegations/%s", [_task_id]), "delta": 1},
			core.handoff_event,
		],
		_usage_events,
	),
}

# _dispatch_context is what the worker receives: the assignment, and the context
# packages of the artifacts its task works from.
_dispatch_context := {
	"must_know": object.union({"assignment": object.remove(_assignment_content, ["state_version"])}, _context_parts(_task_id)),
	"may_know": {},
}

# T3 learns the authorized order and only the scopes its assignment carries.
_context_parts("T3") := {"AUTHORIZATION_RECORD": _package("supervisor>order_research", object.union(_authorization_content, {"scopes": sort(_passed_scopes)}))}

_context_parts("T4") := object.union(
	{
		"CASE": _package("supervisor>support_agent:CASE", _case),
		"route": {"route": _route, "response_kinds": _response_kinds},
		"revision": _revision_context,
	},
	{"ORDER_RESULT": _package("supervisor>support_agent", core.latest_content("ORDER_RESULT")) | core.latest_version("ORDER_RESULT")},
)

_context_parts("T5") := object.union(
	{
		"RESPONSE_DRAFT": _package("supervisor>reviewer", core.latest_content("RESPONSE_DRAFT")),
		"CASE": _package("supervisor>reviewer:CASE", _case),
		"checks": object.get(lib.pack_config, "review_checks", {}),
		"route": {"route": _route, "response_kinds": _response_kinds},
	},
	{"ORDER_RESULT": _package("supervisor>reviewer:ORDER_RESULT", core.latest_content("ORDER_RESULT")) | core.latest_version("ORDER_RESULT")},
)

# A revision learns the defects of the review that returned the draft.
_revision_context := {"defects": object.get(core.latest_content("REVIEW_RECORD"), "defects", [])} if {
	core.latest_version("REVIEW_RECORD")
} else := {"defects": []}

# --- what the Supervisor may dispatch now ----------------------------------------------

_ready_tasks := sort([id | some id, t in _tasks; t.status == "ready"])

_supervisor_next(tasks) := [_next("supervisor", "assign_task", {"must_know": {"ready_tasks": tasks}, "may_know": {}})]
