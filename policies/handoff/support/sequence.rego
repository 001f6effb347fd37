package handoff.support

import data.handoff.lib

# Which request each status waits for, who may send what, the correlation id, and the
# start. Seed phase 2 (roles and boundaries), phase 7 (correlation ids) and phase 12
# (service identities).

# --- request kinds -------------------------------------------------------------------

_handoff if {
	_live
	input.request.kind == "handoff"
}

_task_id := t if {
	t := lib.request.task_id
	is_string(t)
} else := ""

# _dispatch is the Supervisor assigning a task of the graph to a worker (phase 7 envelope).
_dispatch if {
	_handoff
	lib.request.task_type == "assign_task"
}

# _result is a handoff delivering a task's output.
_result if {
	_handoff
	not _dispatch
	lib.output
}

_classification if {
	_result
	lib.output.type == "CLASSIFICATION"
}

_authorization if {
	_result
	lib.output.type == "AUTHORIZATION_RECORD"
}

_order_result if {
	_result
	lib.output.type == "ORDER_RESULT"
}

_draft if {
	_result
	lib.output.type == "RESPONSE_DRAFT"
}

_send if {
	_result
	lib.output.type == "CUSTOMER_RESPONSE"
}

_review if {
	_live
	input.request.kind == "review"
}

_failure if {
	_live
	input.request.kind == "failure"
}

_outcome if {
	_ready
	input.request.kind == "outcome"
}

_cancel if {
	_ready
	input.request.kind == "cancel"
}

# --- what each status waits for -------------------------------------------------------

_expected if {
	input.request.kind == "start"
	lib.status == object.get(lib.pack_contract, ["workflow", "initial"], "CREATED")
}

# T1 in CREATED, T2 in PLANNED (and as re-verification in BLOCKED).
_expected if {
	_classification
	lib.status == "CREATED"
}

_expected if {
	_authorization
	lib.status == "PLANNED"
}

# In BLOCKED, only a task blocked by an authorization failure waits for the gateway's
# re-verification; a permanent or unknown-outcome failure waits for its recovery check.
_expected if {
	_authorization
	lib.status == "BLOCKED"
	some id, t in _tasks
	t.status == "blocked"
	_last_failure(id).class == "authorization"
}

_expected if {
	_dispatch
	lib.status in {"READY", "RUNNING"}
}

_expected if {
	_order_result
	lib.status == "RUNNING"
}

_expected if {
	_draft
	lib.status == "RUNNING"
}

_expected if {
	_send
	lib.status == "REVIEW_PENDING"
}

_expected if {
	_review
	lib.status == "REVIEW_PENDING"
}

_expected if {
	_failure
	lib.status in {"CREATED", "PLANNED", "RUNNING", "REVIEW_PENDING"}
}

_expected if {
	_outcome
	lib.status in {"RETRY_PENDING", "REVIEW_PENDING", "BLOCKED", "ESCALATED"}
}

# A cancel is always expected; CANCELLATION_UNSAFE says where it is refused.
_expected if _cancel

# Past its deadline or budget, any valid request stops the workflow.
_expected if _stopping

# _sequence_explained holds when a more specific rule says why the request does not fit
# the current status (it then stands alone instead of OUT_OF_SEQUENCE).
_sequence_explained if _not_assigned

_sequence_explained if _output_missing

# METADATA
# title: Request out of sequence
# description: >-
#   The request is not one the workflow's current status waits for: T1 outside CREATED,
#   T2 outside PLANNED (and BLOCKED after an authorization failure), a dispatch outside
#   READY and RUNNING, a result outside RUNNING, a send or review outside
#   REVIEW_PENDING, a failure where no task runs, an outcome outside the statuses that
#   wait for one, an approval or resolution (the support pack asks for neither).
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
reasons contains r if {
	_live
	not _expected
	not _sequence_explained
	r := lib.reason(rego.metadata.rule(), sprintf("%s %s is not expected in status %s", [lib.kind, _request_label, lib.status]), "")
}

_request_label := sprintf("%s/%s (task %s) by %q", [lib.request.source_agent, lib.request.task_type, _task_id, lib.actor_id]) if input.request.kind == "handoff"

else := sprintf("of task %s by %q", [lib.request.task, lib.actor_id]) if input.request.kind == "failure"

else := sprintf("by %q", [lib.actor_id])

# METADATA
# title: Result handoff without output
# description: >-
#   A handoff that is not a dispatch (task_type assign_task) delivers its task's
#   output: without one it passes responsibility on without the work.
# custom:
#   code: OUTPUT_MISSING
#   outcome: block
reasons contains r if {
	_output_missing
	r := lib.reason(rego.metadata.rule(), sprintf("handoff %s>%s (task %s, %s) delivers no output", [lib.request.source_agent, lib.request.target_agent, _task_id, lib.request.task_type]), "output")
}

_output_missing if {
	_handoff
	not _dispatch
	not lib.output
}

# --- who may send what ---------------------------------------------------------------

# METADATA
# title: Unknown service identity
# description: >-
#   A request from the host (actor type system) names a service identity that is not
#   in config.system_actors: service identities are authenticated like agents.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_ready
	lib.actor_type == "system"
	not lib.actor_id in object.get(lib.pack_config, "system_actors", [])
	r := lib.gate_reason(rego.metadata.rule(), sprintf("system actor %q is not a service identity of the support pack (%v)", [lib.actor_id, object.get(lib.pack_config, "system_actors", [])]), "actor.id", "SEC-IDENTITY", "block")
}

# METADATA
# title: Report not from the host
# description: >-
#   Failures and outcomes of external effects (deliveries, retries, recovery checks, the
#   human handoff) are reported by the host's services, never by an agent or a person:
#   an agent cannot declare its own work delivered or its own failure settled.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_ready
	lib.kind in {"failure", "outcome"}
	lib.actor_type != "system"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s %q may not report %s: the host's services do", [lib.actor_type, lib.actor_id, lib.with_article(lib.kind)]), "actor.type", "SEC-IDENTITY", "block")
}

# _effect_kind is the kind of the effect an outcome names: its id up to the first "/".
_effect_kind := split(object.get(lib.request, "effect_id", ""), "/")[0]

# _service_duty is what a service's request asks to do: a kind of request, or the
# outcome of a kind of effect; and the services config allows to do it.
_service_duty := [sprintf("report %s outcomes", [_effect_kind]), object.get(lib.pack_config, ["effect_reporters", _effect_kind], [])] if {
	input.request.kind == "outcome"
} else := [sprintf("send %s requests", [lib.kind]), object.get(lib.pack_config, ["service_requests", lib.kind], [])] if {
	lib.kind in {"start", "cancel", "failure"}
}

# METADATA
# title: Service outside its duty
# description: >-
#   A service identity sends a request outside its duty: a start, cancel or failure
#   from a service config.service_requests does not name for it, or an outcome of an
#   effect kind (delivery, retry, recovery, human-handoff) from a service
#   config.effect_reporters does not name for it. The ticketing service cannot report a
#   delivery acknowledged; every service has least privilege.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_ready
	lib.actor_type == "system"
	lib.actor_id in object.get(lib.pack_config, "system_actors", [])
	[duty, allowed] := _service_duty
	not lib.actor_id in allowed
	r := lib.gate_reason(rego.metadata.rule(), sprintf("service %q may not %s (only %v)", [lib.actor_id, duty, allowed]), "actor.id", "SEC-IDENTITY", "block")
}

# METADATA
# title: Review not by the Reviewer agent
# description: >-
#   A review is the Reviewer's verdict on T5 (seed phase 3: the independent review is
#   mandatory before sending): it comes from an agent (actor type agent) that runs T5.
#   Agents, people and services are separate identities: a person or a service that
#   gives the Reviewer's id, or any role, is not the Reviewer and cannot review in its
#   name. People act only where the pack gives them a role (start and cancel as a
#   support specialist).
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_ready
	input.request.kind == "review"
	lib.actor_type != "agent"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s %q may not send a review: only the Reviewer agent running T5 reviews", [lib.actor_type, lib.actor_id]), "actor.type", "SEC-IDENTITY", "block")
}

# METADATA
# title: Handoff by a service
# description: >-
#   A service identity sends a handoff only as the authorization gateway recording T2 on
#   the Supervisor's behalf; every other handoff comes from the agent itself.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_ready
	input.request.kind == "handoff"
	lib.actor_type == "system"
	not lib.output.type == "AUTHORIZATION_RECORD"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("system actor %q may not send a handoff as %q: only the gateway's T2 is sent by a service", [lib.actor_id, object.get(lib.request, "source_agent", "")]), "actor.type", "SEC-IDENTITY", "block")
}

# METADATA
# title: Start by an agent
# description: >-
#   A support workflow is started by the host (a system actor) or a support specialist
#   from the customer's message, never by an agent.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_ready
	input.request.kind == "start"
	not _may_start
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s %q may not start a support workflow", [lib.actor_type, lib.actor_id]), "actor", "SEC-IDENTITY", "block")
}

_may_start if lib.actor_type == "system"

_may_start if {
	lib.actor_type == "human"
	_has_role("support_specialist")
}

# _has_role holds when the person holds a role that the pack's roles table defines: a
# role missing from the table grants nothing.
_has_role(role) if {
	lib.actor_type == "human"
	role in lib.actor_roles
	is_object(lib.pack_contract.roles[role])
}

# METADATA
# title: Cancel by a person without the support role
# description: >-
#   A person cancels a support workflow only as a support specialist; the host may
#   cancel (for the customer), an agent never (core).
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_cancel
	lib.actor_type == "human"
	not _has_role("support_specialist")
	r := lib.gate_reason(rego.metadata.rule(), sprintf("person %q is not a support specialist and may not cancel", [lib.actor_id]), "actor.roles", "SEC-IDENTITY", "block")
}

# --- correlation ---------------------------------------------------------------------

_correlation_id := object.get(_case, "correlation_id", "")

# METADATA
# title: Correlation id not preserved
# description: >-
#   Every request of a support workflow carries the workflow's correlation id as its
#   trace_id: the start's trace_id, recorded on the case. A request with another one
#   would break the trace Workflow → Task → Agent → API call.
# custom:
#   code: CORRELATION_MISMATCH
#   outcome: block
reasons contains r if {
	_ready
	lib.kind != "start"
	trace := lib.request.trace_id
	is_string(trace)
	trace != _correlation_id
	r := lib.gate_reason(rego.metadata.rule(), sprintf("trace_id %q is not the workflow's correlation id %q", [trace, _correlation_id]), "trace_id", "CORRELATION", "block")
}

# --- configuration -------------------------------------------------------------------

_required_config := {
	"per_call_timeout_ms": "number",
	"max_workflow_duration_ms": "number",
	"review_deadline_ms": "number",
	"max_model_calls": "number",
	"max_tool_calls": "number",
	"cost_budget_micros": "number",
	"max_concurrent_tasks": "number",
	"max_delegation_depth": "number",
	"max_evidence_age_ms": "number",
	"max_result_age_ms": "number",
	"clock_skew_ms": "number",
	"min_classification_confidence": "number",
	"authorization_ttl_ms": "number",
	"source_authority": "object",
	"verified_provenance": "array",
	"intents": "object",
	"routes": "object",
	"tasks": "object",
	"review_checks": "object",
	"system_actors": "array",
	"authorization_services": "array",
	"service_requests": "object",
	"effect_reporters": "object",
	"sensitive_actions": "object",
	"allowed_promises": "array",
	"approved_knowledge_sources": "array",
	"personal_data": "array",
	"untrusted_fields": "object",
	"stop_exits": "object",
	"cancellable": "array",
}

# _config_complete holds when every table of _required_config is there with its type:
# the same test as CONTRACT_MISSING's, one table after the other, so that a complete
# configuration is not checked again table by table.
_config_complete if {
	is_number(lib.pack_config.per_call_timeout_ms)
	is_number(lib.pack_config.max_workflow_duration_ms)
	is_number(lib.pack_config.review_deadline_ms)
	is_number(lib.pack_config.max_model_calls)
	is_number(lib.pack_config.max_tool_calls)
	is_number(lib.pack_config.cost_budget_micros)
	is_number(lib.pack_config.max_concurrent_tasks)
	is_number(lib.pack_config.max_delegation_depth)
	is_number(lib.pack_config.max_evidence_age_ms)
	is_number(lib.pack_config.max_result_age_ms)
	is_number(lib.pack_config.clock_skew_ms)
	is_number(lib.pack_config.min_classification_confidence)
	is_number(lib.pack_config.authorization_ttl_ms)
	is_object(lib.pack_config.source_authority)
	is_array(lib.pack_config.verified_provenance)
	is_object(lib.pack_config.intents)
	is_object(lib.pack_config.routes)
	is_object(lib.pack_config.tasks)
	is_object(lib.pack_config.review_checks)
	is_array(lib.pack_config.system_actors)
	is_array(lib.pack_config.authorization_services)
	is_object(lib.pack_config.service_requests)
	is_object(lib.pack_config.effect_reporters)
	is_object(lib.pack_config.sensitive_actions)
	is_array(lib.pack_config.allowed_promises)
	is_array(lib.pack_config.approved_knowledge_sources)
	is_array(lib.pack_config.personal_data)
	is_object(lib.pack_config.untrusted_fields)
	is_object(lib.pack_config.stop_exits)
	is_array(lib.pack_config.cancellable)
}

# METADATA
# title: Support configuration missing
# description: >-
#   The support configuration (data.handoff.support.config, exported from the CUE value
#   config) lacks a value the policy reads. No limit is unlimited and no table is
#   optional: every request is blocked until it is there.
# custom:
#   code: CONTRACT_MISSING
#   outcome: block
reasons contains r if {
	lib.valid
	not _config_complete
	some name, want in _required_config
	type_name(object.get(lib.pack_config, name, null)) != want
	r := lib.reason(rego.metadata.rule(), sprintf("the support configuration has no %s %s", [want, name]), "")
}

# --- start -------------------------------------------------------------------------------

_brief := b if {
	b := lib.request.brief
	is_object(b)
} else := {}

_case_content := object.union(_brief, {"correlation_id": object.get(lib.request, "trace_id", "")})

# start: the case is recorded and the Supervisor classifies it (T1).
_start_proposal := {
	"outcome": "allow",
	"status_after": lib.status,
	"next": [_next("supervisor", "classify_request", _package("customer>supervisor", _case_content))],
	"events": [
		_record("CASE", "case", "approved", _case_content, [], {"channel": object.get(_brief, "channel", "")}),
		_task_event("T1", "running", "supervisor", []),
	],
}
