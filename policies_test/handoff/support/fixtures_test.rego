# Fixtures for the support pack tests: an order-status case (ORD-1001, in transit,
# estimated 2026-03-12), the workflow snapshot at every stage of the task graph, and one
# valid request for every step. Each test takes a fixture, changes one thing and checks
# the decision. The pack's tables are the real exported ones
# (data.handoff.support.contract and data.handoff.support.config).
package handoff.support_test

import data.handoff.support

now := "2026-03-10T10:00:00.000Z"

# created is ten minutes before now: well within the workflow's 30 minutes.
created := "2026-03-10T09:50:00.000Z"

recent := "2026-03-10T09:58:00.000Z"

customer := "cust-7f3a9c"

trace := "trace-wf-1001"

hash(s) := sprintf("sha256:%s", [crypto.sha256(s)])

ids := {
	"CASE": "case",
	"CLASSIFICATION": "classification",
	"AUTHORIZATION_RECORD": "authorization-record",
	"TASK_ASSIGNMENT": "task-assignment",
	"FAILURE_RECORD": "failure-record",
	"ORDER_RESULT": "order-result",
	"RESPONSE_DRAFT": "response-draft",
	"REVIEW_RECORD": "review-record",
	"CUSTOMER_RESPONSE": "customer-response",
	"ESCALATION_RECORD": "escalation-record",
}

ref(type, n) := {"id": ids[type], "type": type, "version": n, "hash": hash(sprintf("%s@%d", [type, n]))}

# --- contents ------------------------------------------------------------------------

case_content := {
	"channel": "chat",
	"customer_ref": customer,
	"message": "Hi, where is my order ORD-1001? It was supposed to ship last week.",
	"order_ref": "ORD-1001",
	"language": "en",
	"correlation_id": trace,
}

classification_content := {"intent": "order_status", "confidence": 0.93, "order_ref": "ORD-1001", "rationale": "Asks where the order is"}

auth_content := {
	"verified": true, "method": "session_token", "customer_ref": customer, "order_ref": "ORD-1001",
	"scopes": ["order_status:read"], "expires_at": "2099-12-31T23:59:59Z",
}

unverified_content := {
	"verified": false, "method": "session_token", "customer_ref": customer, "scopes": [],
	"expires_at": "2099-12-31T23:59:59Z", "denial_reason": "session could not be verified",
}

oms := {
	"source": "order_management_system", "source_reference": "oms://orders/ORD-1001", "status": "in_transit",
	"estimated_delivery": "2026-03-12", "observed_at": "2026-03-10T08:40:00Z",
	"provenance": {"via": "tool_gateway", "call_id": "call-311"},
}

evidence(source, status, est, observed, via) := {
	"source": source, "source_reference": sprintf("%s://ORD-1001", [source]), "status": status,
	"estimated_delivery": est, "observed_at": observed, "provenance": {"via": via, "call_id": "call-9"},
}

order_content := {
	"order_ref": "ORD-1001", "order_status": "in_transit", "estimated_delivery": "2026-03-12",
	"source_reference": "oms://orders/ORD-1001", "retrieved_at": "2026-03-10T09:59:00Z", "evidence": [oms],
}

message := "Your order ORD-1001 is in transit and should arrive on 2026-03-12."

draft_content := {
	"kind": "order_status", "message": message, "answers": "Where is my order ORD-1001?",
	"order_claims": {"order_status": "in_transit", "estimated_delivery": "2026-03-12"},
	"promises": [{"type": "delivery_date", "detail": "Expected delivery on 2026-03-12"}],
}

checks := ["evidence_supported", "delivery_date_current", "answers_question", "no_unnecessary_personal_data", "no_unsupported_promise"]

gates := [{"id": c, "passed": true} | some c in checks]

# failing(check) are the review's gates with check failed, the others passed.
failing(check) := [{"id": c, "passed": c != check} | some c in checks]

# --- the envelope of each task -------------------------------------------------------

not_required := {"status": "not_required"}

verified_ctx := {"status": "verified", "reference": ref("AUTHORIZATION_RECORD", 1), "scopes": ["order_status:read"]}

objective := {
	"T1": "Classify the customer request",
	"T2": "Verify the customer's authorization for the order",
	"T3": "Retrieve the authorized customer's shipment status",
	"T4": "Draft a factual response from verified data",
	"T5": "Check evidence, privacy and completeness of the draft",
	"T6": "Send the accepted response to the customer",
}

required_output := {
	"T1": {"intent": "string", "confidence": "number"},
	"T2": {"verified": "boolean", "scopes": "list", "expires_at": "timestamp"},
	"T3": {"order_status": "string", "estimated_delivery": "string_or_null", "source_reference": "string", "retrieved_at": "timestamp"},
	"T4": {"kind": "string", "message": "string", "promises": "list"},
	"T5": {"verdict": "string"},
	"T6": {"message": "string"},
}

criteria := {
	"T1": ["Intent identified"],
	"T2": ["Customer identity verified", "Order ownership verified"],
	"T3": ["Authorized order matched", "Status supported by source"],
	"T4": ["Claims supported by verified data", "Customer question answered"],
	"T5": ["Evidence, privacy and completeness checked"],
	"T6": ["Delivery acknowledged"],
}

auth_ctx := {"T1": not_required, "T2": not_required, "T3": verified_ctx, "T4": not_required, "T5": not_required, "T6": not_required}

owner := {"T3": "order_research", "T4": "support_agent", "T5": "reviewer"}

assignment(task) := {
	"task_id": task, "sender": "supervisor", "recipient": owner[task], "objective": objective[task],
	"input_refs": [], "required_output": required_output[task], "state_version": 3,
	"authorization_context": auth_ctx[task], "completion_criteria": criteria[task],
	"delegation": 1, "timeout_ms": 10000,
}

# --- state ---------------------------------------------------------------------------

version(type, n, status, content) := {
	"ref": ref(type, n), "status": status, "producer": data.handoff.support.contract.artifacts[type].producer,
	"based_on": [], "assumptions": [], "limitations": [], "content": content, "meta": {}, "recorded_at": recent,
}

history(type, versions) := {
	"id": ids[type],
	"latest": max({v.ref.version | some v in versions}),
	"approved": max({0} | {v.ref.version | some v in versions; v.status in {"approved", "final"}}),
	"versions": {format_int(v.ref.version, 10): v | some v in versions},
}

one(type, status, content) := history(type, [version(type, 1, status, content)])

task(status, agent, deps) := {"status": status, "agent": agent, "depends_on": deps}

state(status, artifacts, tasks) := {
	"workflow_id": "wf-1001", "tenant_id": "northwind", "organization_id": "northwind-support",
	"pack": "support", "subject_id": "ORD-1001", "status": status, "terminal": false,
	"state_version": 7, "created_at": created, "updated_at": now,
	"artifacts": artifacts, "counters": {}, "edges": {}, "input_hashes": {}, "recent_edges": [],
	"stage_handoffs": {}, "conflicts": {}, "open_conflicts": 0, "approvals": {}, "defects": {},
	"effects": {}, "tasks": tasks,
}

with_state(st, patch) := object.union(st, patch)

with_tasks(st, tasks) := object.union(st, {"tasks": object.union(st.tasks, tasks)})

with_artifacts(st, artifacts) := object.union(st, {"artifacts": object.union(st.artifacts, artifacts)})

a_case := {"CASE": one("CASE", "approved", case_content)}

a_classified := object.union(a_case, {"CLASSIFICATION": one("CLASSIFICATION", "approved", classification_content)})

a_authorized := object.union(a_classified, {"AUTHORIZATION_RECORD": one("AUTHORIZATION_RECORD", "approved", auth_content)})

assignments(tasks) := history("TASK_ASSIGNMENT", [version("TASK_ASSIGNMENT", i + 1, "approved", assignment(t)) | some i, t in tasks])

plan_tasks := {
	"T1": task("done", "supervisor", []),
	"T2": task("done", "supervisor", ["T1"]),
	"T3": task("ready", "order_research", ["T2"]),
	"T4": task("pending", "support_agent", ["T3"]),
	"T5": task("pending", "reviewer", ["T4"]),
	"T6": task("pending", "supervisor", ["T5"]),
}

st_created := state("CREATED", a_case, {"T1": task("running", "supervisor", [])})

st_planned := state("PLANNED", a_classified, {"T1": task("done", "supervisor", []), "T2": task("running", "supervisor", ["T1"])})

st_ready := state("READY", a_authorized, plan_tasks)

st_t3 := with_state(
	state("RUNNING", object.union(a_authorized, {"TASK_ASSIGNMENT": assignments(["T3"])}), object.union(plan_tasks, {"T3": task("running", "order_research", ["T2"])})),
	{"counters": {"delegations/T3": 1}},
)

a_researched := object.union(a_authorized, {"ORDER_RESULT": one("ORDER_RESULT", "under_review", order_content)})

st_t4 := with_state(
	state("RUNNING", object.union(a_researched, {"TASK_ASSIGNMENT": assignments(["T3", "T4"])}), object.union(plan_tasks, {
		"T3": task("done", "order_research", ["T2"]),
		"T4": task("running", "support_agent", ["T3"]),
	})),
	{"counters": {"delegations/T3": 1, "delegations/T4": 1}},
)

a_drafted := object.union(a_researched, {"RESPONSE_DRAFT": one("RESPONSE_DRAFT", "under_review", draft_content)})

st_t5_ready := with_state(
	state("RUNNING", object.union(a_drafted, {"TASK_ASSIGNMENT": assignments(["T3", "T4"])}), object.union(plan_tasks, {
		"T3": task("done", "order_research", ["T2"]),
		"T4": task("done", "support_agent", ["T3"]),
		"T5": task("ready", "reviewer", ["T4"]),
	})),
	{"counters": {"delegations/T3": 1, "delegations/T4": 1}},
)

st_review := with_state(
	state("REVIEW_PENDING", object.union(a_drafted, {"TASK_ASSIGNMENT": assignments(["T3", "T4", "T5"])}), object.union(st_t5_ready.tasks, {"T5": task("running", "reviewer", ["T4"])})),
	{"counters": {"delegations/T3": 1, "delegations/T4": 1, "delegations/T5": 1}},
)

review_record := {"verdict": "ACCEPT", "result": "accepted", "cycle": 0, "reviewed": [ref("RESPONSE_DRAFT", 1)], "checks": gates, "defects": []}

st_accepted := state(
	"REVIEW_PENDING",
	object.union(st_review.artifacts, {
		"RESPONSE_DRAFT": one("RESPONSE_DRAFT", "approved", draft_content),
		"REVIEW_RECORD": one("REVIEW_RECORD", "approved", review_record),
	}),
	object.union(st_review.tasks, {"T5": task("done", "reviewer", ["T4"]), "T6": task("ready", "supervisor", ["T5"])}),
)

response_content := {"kind": "order_status", "message": message, "draft": ref("RESPONSE_DRAFT", 1), "channel": "chat"}

delivery := "delivery/response-draft@v1"

st_sending(effect_status) := with_state(
	with_artifacts(
		with_tasks(st_accepted, {"T6": task("running", "supervisor", ["T5"])}),
		{"CUSTOMER_RESPONSE": one("CUSTOMER_RESPONSE", "approved", response_content)},
	),
	{"effects": {delivery: effect_status}},
)

# st_delivery_failed is the state after the delivery of the accepted response failed at
# 09:58:00 (recent): T6 is ready again, and the FAILURE_RECORD says the resend is due
# delay_ms later.
st_delivery_failed(delay_ms) := with_artifacts(
	with_tasks(st_sending("failed"), {"T6": task("ready", "supervisor", ["T5"])}),
	{"FAILURE_RECORD": one("FAILURE_RECORD", "approved", {
		"task_id": "T6", "agent": "supervisor", "class": "timeout", "attempt": 1,
		"max_attempts": 3, "delay_ms": delay_ms, "decision": "retry",
	})},
)

failure_content(task_id, class, attempt, max_attempts) := {
	"task_id": task_id, "agent": "order_research", "class": class, "attempt": attempt,
	"max_attempts": max_attempts, "delay_ms": 1000, "decision": "retry",
}

st_retry_pending(attempt, max_attempts) := with_state(
	state("RETRY_PENDING", object.union(st_t3.artifacts, {"FAILURE_RECORD": one("FAILURE_RECORD", "approved", failure_content("T3", "timeout", attempt, max_attempts))}), object.union(plan_tasks, {"T3": task("failed", "order_research", ["T2"])})),
	{"counters": {"delegations/T3": 1, "retry/T3": attempt}, "effects": {"retry/T3": "pending"}},
)

# st_blocked is the state after T3 failed on authorization: blocked until the gateway
# verifies the customer again (or the recovery check settles it).
st_blocked := with_state(
	state("BLOCKED", object.union(st_t3.artifacts, {"FAILURE_RECORD": one("FAILURE_RECORD", "approved", object.union(failure_content("T3", "authorization", 1, 1), {"delay_ms": 0, "decision": "blocked"}))}), object.union(plan_tasks, {"T3": task("blocked", "order_research", ["T2"])})),
	{"counters": {"delegations/T3": 1, "retry/T3": 1}, "effects": {"recovery/T3": "pending"}},
)

# st_blocked_permanent is the state after T3 failed on a permanent order API error:
# blocked until the recovery check settles it.
st_blocked_permanent := with_artifacts(st_blocked, {"FAILURE_RECORD": one("FAILURE_RECORD", "approved", object.union(failure_content("T3", "permanent", 1, 1), {"delay_ms": 0, "decision": "blocked"}))})

st_escalated(effect_status) := with_state(
	state("ESCALATED", st_review.artifacts, object.union(st_review.tasks, {"T5": task("done", "reviewer", ["T4"]), "T6": task("cancelled", "supervisor", ["T5"]), "T7": task("ready", "human_escalation_gate", [])})),
	{"terminal": true, "effects": {"human-handoff": effect_status}},
)

# --- requests ------------------------------------------------------------------------

envelope(kind, actor) := {
	"request_id": sprintf("req-%s", [kind]), "kind": kind, "tenant_id": "northwind", "organization_id": "northwind-support",
	"workflow_id": "wf-1001", "trace_id": trace, "actor": actor,
}

system(id) := {"type": "system", "id": id}

agent(id) := {"type": "agent", "id": id}

specialist := {"type": "human", "id": "dana.okafor", "roles": ["support_specialist"]}

usage := {"model_calls": 1, "tool_calls": 1, "cost_micros": 2000}

zero_usage := {"model_calls": 0, "tool_calls": 0, "cost_micros": 0}

output(type, n, content) := {"id": ids[type], "type": type, "version": n, "content": content}

handoff(actor, source, target, task_type, task_id, inputs, input_refs) := object.union(envelope("handoff", actor), {
	"source_agent": source, "target_agent": target, "task_type": task_type, "input_artifacts": inputs,
	"task_id": task_id, "sender": source, "recipient": target, "objective": objective[task_id],
	"input_refs": input_refs, "required_output": required_output[task_id], "state_version": 7,
	"authorization_context": auth_ctx[task_id], "completion_criteria": criteria[task_id], "usage": zero_usage,
})

result(actor, source, task_type, task_id, inputs, input_refs, out) := object.union(handoff(actor, source, "supervisor", task_type, task_id, inputs, input_refs), {
	"output": out, "output_summary": "Task output", "assumptions": [], "limitations": [], "confidence_score": 0.9, "usage": usage,
})

start := object.union(envelope("start", system("support-orchestrator")), {
	"pack": "support", "subject_id": "ORD-1001",
	"brief": {"channel": "chat", "customer_ref": customer, "message": case_content.message, "order_ref": "ORD-1001", "language": "en"},
})

classify(content) := result(agent("supervisor"), "supervisor", "classify_request", "T1", [ref("CASE", 1)], ["CASE.message"], output("CLASSIFICATION", 1, content))

authorize(content) := result(system("tool-gateway"), "supervisor", "verify_authorization", "T2", [ref("CASE", 1), ref("CLASSIFICATION", 1)], ["CLASSIFICATION"], output("AUTHORIZATION_RECORD", 1, content))

reverify(content) := object.union(authorize(content), {
	"input_artifacts": [ref("CASE", 1), ref("CLASSIFICATION", 1), ref("AUTHORIZATION_RECORD", 1)],
	"output": output("AUTHORIZATION_RECORD", 2, content),
})

dispatch(task_id, inputs, input_refs) := handoff(agent("supervisor"), "supervisor", owner[task_id], "assign_task", task_id, inputs, input_refs)

dispatch_t3 := dispatch("T3", [ref("AUTHORIZATION_RECORD", 1)], ["AUTHORIZATION_RECORD.order_ref"])

dispatch_t4 := dispatch("T4", [ref("CASE", 1), ref("ORDER_RESULT", 1)], ["CASE.message", "ORDER_RESULT"])

dispatch_t5 := dispatch("T5", [ref("RESPONSE_DRAFT", 1), ref("ORDER_RESULT", 1)], ["RESPONSE_DRAFT", "ORDER_RESULT"])

order_result(content) := result(agent("order_research"), "order_research", "retrieve_order_status", "T3", [ref("AUTHORIZATION_RECORD", 1)], ["AUTHORIZATION_RECORD.order_ref"], output("ORDER_RESULT", 1, content))

draft(content) := result(agent("support_agent"), "support_agent", "draft_response", "T4", [ref("CASE", 1), ref("ORDER_RESULT", 1)], ["CASE.message", "ORDER_RESULT"], output("RESPONSE_DRAFT", 1, content))

review(verdict, g, defects) := object.union(envelope("review", agent("reviewer")), {
	"verdict": verdict, "artifacts": [ref("RESPONSE_DRAFT", 1), ref("ORDER_RESULT", 1)], "defects": defects, "gates": g,
})

defect(id, check) := {"id": id, "severity": "S2", "artifact": "RESPONSE_DRAFT", "check": check, "description": "Check failed"}

send(content) := object.union(
	handoff(agent("supervisor"), "supervisor", "customer", "send_response", "T6", [ref("RESPONSE_DRAFT", 1), ref("REVIEW_RECORD", 1)], ["RESPONSE_DRAFT"]),
	{"output": output("CUSTOMER_RESPONSE", 1, content), "output_summary": "Sent", "assumptions": [], "limitations": [], "confidence_score": 1},
)

outcome(effect, result, actor) := object.union(envelope("outcome", system(actor)), {"effect_id": effect, "result": result})

failure(task_id, agent_id, class) := object.union(envelope("failure", system("support-orchestrator")), {"task": task_id, "agent": agent_id, "class": class})

cancel(actor) := object.union(envelope("cancel", actor), {"reason": "customer withdrew the request"})

# --- input and decision --------------------------------------------------------------

input_of(request, st) := {
	"pack": "support",
	"request": request,
	"validation": {"errors": []},
	"state": st,
	"derived": derived(request),
	"now": now,
}

derived(request) := {
	"output_hash": hash(json.marshal(request.output.content)),
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": 0,
	"payload_bytes": 2048,
} if {
	request.output
} else := {
	"output_hash": "",
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": 0,
	"payload_bytes": 1024,
}

decide(request, st) := d if {
	d := support.decision with input as input_of(request, st)
}

decide_at(request, st, at) := d if {
	d := support.decision with input as object.union(input_of(request, st), {"now": at})
}

# decide_with evaluates the decision with one configuration value replaced.
decide_with(request, st, path, value) := d if {
	d := support.decision with input as input_of(request, st) with data.handoff.support.config as json.patch(config, [{"op": "replace", "path": path, "value": value}])
}

# decide_without evaluates the decision with one configuration value removed.
decide_without(request, st, path) := d if {
	d := support.decision with input as input_of(request, st) with data.handoff.support.config as json.remove(config, [path])
}

config := data.handoff.support.config

contract := data.handoff.support.contract

codes(d) := {r.code | some r in d.reasons}

next_agents(d) := {n.agent | some n in d.next}

event_types(d) := [e.type | some e in d.events]

task_events(d) := {sprintf("%s %s", [e.id, e.status]) | some e in d.events; e.type == "task"}

recorded(d) := {sprintf("%s v%d %s", [e.ref.type, e.ref.version, e.status]) | some e in d.events; e.type == "artifact_recorded"}

status_events(d) := {sprintf("%s v%d %s", [e.artifact, e.version, e.status]) | some e in d.events; e.type == "artifact_status"}

effects(d) := {sprintf("%s %s", [e.id, e.status]) | some e in d.events; e.type == "effect"}
