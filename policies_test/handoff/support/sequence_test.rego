# Who may act when, identities, correlation and the configuration: requests out of
# sequence, unknown service identities, broken correlation ids and missing tables never
# let a request through.
package handoff.support_test

import data.handoff.support

test_out_of_sequence_resolution if {
	req := object.union(envelope("resolution", specialist), {"conflict_id": "c-1", "rationale": "No conflict"})
	d := decide(req, st_t3)
	codes(d) == {"CONFLICT_NOT_FOUND", "OUT_OF_SEQUENCE"}
	d.outcome == "block"
}

test_out_of_sequence_classification_after_planning if {
	st := with_tasks(st_planned, {"T1": task("running", "supervisor", [])})
	d := decide(classify(classification_content), st)
	codes(d) == {"ARTIFACT_IMMUTABLE", "OUT_OF_SEQUENCE"}
}

test_out_of_sequence_twin_classification_when_created if {
	d := decide(classify(classification_content), st_created)
	not "OUT_OF_SEQUENCE" in codes(d)
}

test_out_of_sequence_outcome_of_an_effect_the_status_does_not_wait_for if {
	st := with_state(st_review, {"effects": {"retry/T3": "pending"}})
	d := decide(outcome("retry/T3", "acknowledged", "retry-scheduler"), st)
	codes(d) == {"OUT_OF_SEQUENCE"}
	d.reasons[0].path == "effect_id"
}

test_outcome_of_a_settled_effect if {
	st := with_state(st_review, {"effects": {"retry/T3": "acknowledged"}})
	d := decide(outcome("retry/T3", "acknowledged", "retry-scheduler"), st)
	codes(d) == {"EFFECT_ALREADY_SETTLED"}
	d.reasons[0].path == "effect_id"
}

test_out_of_sequence_twin_due_retry if {
	d := decide(outcome("retry/T3", "acknowledged", "retry-scheduler"), st_retry_pending(1, 3))
	not "OUT_OF_SEQUENCE" in codes(d)
	d.status_after == "READY"
}

test_out_of_sequence_when_no_rule_decides if {
	d := decide_without(authorize(auth_content), st_planned, "routes/order_status")
	codes(d) == {"OUT_OF_SEQUENCE"}
	d.outcome == "block"
}

test_output_missing if {
	req := object.remove(order_result(order_content), ["output", "output_summary", "assumptions", "limitations", "confidence_score"])
	d := decide(req, st_t3)
	codes(d) == {"OUTPUT_MISSING"}
}

test_output_missing_twin_dispatch_needs_none if {
	d := decide(dispatch_t3, st_ready)
	not "OUTPUT_MISSING" in codes(d)
	d.outcome == "allow"
}

test_unknown_service_identity if {
	req := object.union(failure("T3", "order_research", "timeout"), {"actor": system("cron-7")})
	d := decide(req, st_t3)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.reasons[0].gate == "SEC-IDENTITY"
}

test_unknown_service_identity_twin if {
	d := decide(failure("T3", "order_research", "timeout"), st_t3)
	not "UNAUTHORIZED_SUBJECT" in codes(d)
}

test_start_by_an_agent if {
	d := decide(object.union(start, {"actor": agent("supervisor")}), state("CREATED", {}, {}))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_start_twin_by_a_specialist if {
	d := decide(object.union(start, {"actor": specialist}), state("CREATED", {}, {}))
	count(d.reasons) == 0
}

test_cancel_by_a_person_without_the_role if {
	d := decide(cancel({"type": "human", "id": "sam.lee", "roles": ["customer"]}), st_ready)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_cancel_twin_by_a_specialist if {
	d := decide(cancel(specialist), st_ready)
	count(d.reasons) == 0
	d.status_after == "CANCELLED"
}

test_correlation_mismatch if {
	d := decide(object.union(dispatch_t3, {"trace_id": "trace-other"}), st_ready)
	codes(d) == {"CORRELATION_MISMATCH"}
}

test_correlation_twin if {
	d := decide(dispatch_t3, st_ready)
	not "CORRELATION_MISMATCH" in codes(d)
}

test_correlation_mismatch_without_a_case if {
	d := decide(dispatch_t3, json.remove(st_ready, ["artifacts/CASE"]))
	"CORRELATION_MISMATCH" in codes(d)
}

test_contract_missing_config_value if {
	d := decide_without(dispatch_t3, st_ready, "max_concurrent_tasks")
	"CONTRACT_MISSING" in codes(d)
	d.outcome == "block"
}

test_every_config_value_is_required if {
	every name, want in support._required_config {
		d := decide_without(dispatch_t3, st_ready, name)
		[r.message | some r in d.reasons; r.code == "CONTRACT_MISSING"] == [sprintf("the support configuration has no %s %s", [want, name])]
	}
}

test_every_config_value_of_another_type_is_refused if {
	every name, want in support._required_config {
		d := support.decision with input as input_of(dispatch_t3, st_ready)
			with data.handoff.support.config as object.union(config, {name: true})
		[r.message | some r in d.reasons; r.code == "CONTRACT_MISSING"] == [sprintf("the support configuration has no %s %s", [want, name])]
	}
}

test_contract_missing_twin if {
	d := decide(dispatch_t3, st_ready)
	not "CONTRACT_MISSING" in codes(d)
}

test_missing_config_blocks_everything if {
	d := support.decision with input as input_of(dispatch_t3, st_ready) with data.handoff.support.config as {}
	d.outcome == "block"
	"CONTRACT_MISSING" in codes(d)
	count(d.events) == 0
}

test_missing_contract_blocks if {
	d := support.decision with input as input_of(dispatch_t3, st_ready) with data.handoff.support.contract as {}
	d.outcome == "block"
}

test_invalid_request_gets_core_reasons_only if {
	inp := object.union(input_of(dispatch_t3, st_ready), {"validation": {"errors": [{"code": "SCHEMA_INVALID", "path": "objective", "message": "required field \"objective\" is missing"}]}})
	d := support.decision with input as inp
	codes(d) == {"SCHEMA_INVALID"}
}

test_no_state_blocks if {
	d := support.decision with input as object.union(input_of(dispatch_t3, st_ready), {"state": null})
	d.outcome == "block"
	"WORKFLOW_NOT_FOUND" in codes(d)
	d.status_after == "NONE"
}

test_agent_reports_its_own_delivery if {
	d := decide(object.union(outcome(delivery, "acknowledged", "delivery-service"), {"actor": agent("supervisor")}), st_sending("pending"))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.outcome == "block"
}

test_agent_reports_a_failure if {
	d := decide(object.union(failure("T3", "order_research", "timeout"), {"actor": agent("order_research")}), st_t3)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_service_sends_a_dispatch if {
	d := decide(object.union(dispatch_t3, {"actor": system("support-orchestrator")}), st_ready)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_service_twin_gateway_records_t2 if {
	d := decide(authorize(auth_content), st_planned)
	not "UNAUTHORIZED_SUBJECT" in codes(d)
}

# --- messages: the article fits the word ------------------------------------------------

test_message_an_outcome if {
	d := decide(object.union(outcome(delivery, "acknowledged", "delivery-service"), {"actor": agent("supervisor")}), st_sending("pending"))
	d.reasons[0].message == `agent "supervisor" may not report an outcome: the host's services do`
}

test_message_twin_a_failure if {
	d := decide(object.union(failure("T3", "order_research", "timeout"), {"actor": agent("order_research")}), st_t3)
	d.reasons[0].message == `agent "order_research" may not report a failure: the host's services do`
}

test_message_an_object if {
	req := object.union(order_result(order_content), {"required_output": object.union(required_output.T3, {"evidence": "object"})})
	st := with_artifacts(st_t3, {"TASK_ASSIGNMENT": history("TASK_ASSIGNMENT", [version("TASK_ASSIGNMENT", 1, "approved", object.union(assignment("T3"), {"required_output": req.required_output}))])})
	d := decide(req, st)
	some r in d.reasons
	r.code == "SCHEMA_INVALID"
	startswith(r.message, "output.content.evidence is not an object as required_output says")
}

test_message_an_authorization_required_response if {
	refusal := object.union(draft_content, {"kind": "authorization_required"})
	d := decide(draft(refusal), st_t4)
	some r in d.reasons
	r.code == "ROUTE_MISMATCH"
	startswith(r.message, "an authorization_required response does not fit route order_status")
}

# --- a service acts within its duty -------------------------------------------------------

test_service_outside_its_duty_acknowledges_a_delivery if {
	d := decide(outcome(delivery, "acknowledged", "ticketing-service"), st_sending("pending"))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.outcome == "block"
	d.reasons[0].path == "actor.id"
	count(d.events) == 0
}

test_service_within_its_duty_twin_the_delivery_service if {
	d := decide(outcome(delivery, "acknowledged", "delivery-service"), st_sending("pending"))
	count(d.reasons) == 0
	d.status_after == "COMPLETED"
}

test_service_outside_its_duty_reports_a_failure if {
	d := decide(object.union(failure("T3", "order_research", "timeout"), {"actor": system("delivery-service")}), st_t3)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_service_outside_its_duty_reports_a_retry_due if {
	d := decide(outcome("retry/T3", "acknowledged", "support-orchestrator"), st_retry_pending(1, 3))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_service_outside_its_duty_starts_a_workflow if {
	d := decide(object.union(start, {"actor": system("tool-gateway")}), state("CREATED", {}, {}))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_service_duties_missing_deny if {
	d := decide_without(outcome(delivery, "acknowledged", "delivery-service"), st_sending("pending"), "effect_reporters")
	codes(d) == {"CONTRACT_MISSING", "UNAUTHORIZED_SUBJECT"}
}

test_start_by_a_specialist_whose_role_the_pack_lacks if {
	d := support.decision with input as input_of(object.union(start, {"actor": specialist}), state("CREATED", {}, {})) with data.handoff.support.contract as json.remove(contract, ["roles/support_specialist"])
	"UNAUTHORIZED_SUBJECT" in codes(d)
	d.outcome == "block"
}

test_cancel_by_a_specialist_whose_role_the_pack_lacks if {
	d := support.decision with input as input_of(cancel(specialist), st_ready) with data.handoff.support.contract as json.remove(contract, ["roles/support_specialist"])
	"UNAUTHORIZED_SUBJECT" in codes(d)
}
