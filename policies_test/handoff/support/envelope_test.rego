# The handoff envelope of seed phase 7: consistency with the request, the task graph and
# the assignment; stale state versions; task ownership; output types; the per-call
# timeout.
package handoff.support_test

test_envelope_sender_is_not_the_source if {
	d := decide(object.union(dispatch_t3, {"sender": "reviewer"}), st_ready)
	codes(d) == {"ENVELOPE_MISMATCH"}
	d.reasons[0].path == "sender"
}

test_envelope_result_changes_its_objective if {
	d := decide(object.union(order_result(order_content), {"objective": "Find anything about the customer"}), st_t3)
	codes(d) == {"ENVELOPE_MISMATCH"}
	d.reasons[0].path == "objective"
}

test_envelope_result_changes_its_authorization if {
	d := decide(object.union(order_result(order_content), {"authorization_context": not_required}), st_t3)
	codes(d) == {"ENVELOPE_MISMATCH"}
}

test_envelope_dispatch_drops_a_criterion if {
	d := decide(object.union(dispatch_t3, {"completion_criteria": ["Authorized order matched"]}), st_ready)
	codes(d) == {"ENVELOPE_MISMATCH"}
	d.reasons[0].path == "completion_criteria"
}

test_envelope_dispatch_names_a_field_the_task_lacks if {
	d := decide(object.union(dispatch_t3, {"required_output": {"order_status": "string", "customer_email": "string"}}), st_ready)
	codes(d) == {"ENVELOPE_MISMATCH"}
	d.reasons[0].path == "required_output.customer_email"
}

test_envelope_input_ref_not_carried if {
	d := decide(object.union(dispatch_t3, {"input_refs": ["CASE.message"]}), st_ready)
	codes(d) == {"ENVELOPE_MISMATCH"}
}

test_envelope_dispatch_of_a_task_its_owner_performs if {
	st := with_tasks(st_ready, {"T6": task("ready", "supervisor", [])})
	req := object.union(dispatch_t3, {"task_id": "T6", "target_agent": "order_research"})
	d := decide(req, st)
	"ENVELOPE_MISMATCH" in codes(d)
}

test_envelope_twin if {
	d := decide(order_result(order_content), st_t3)
	not "ENVELOPE_MISMATCH" in codes(d)
	count(d.reasons) == 0
}

test_stale_state_version if {
	d := decide(object.union(order_result(order_content), {"state_version": 6}), st_t3)
	codes(d) == {"STALE_STATE_VERSION"}
	d.outcome == "block"
	count(d.events) == 0
	d.status_after == "RUNNING"
}

test_stale_state_version_twin if {
	d := decide(order_result(order_content), st_t3)
	not "STALE_STATE_VERSION" in codes(d)
}

test_task_not_assigned_result if {
	d := decide(order_result(order_content), st_ready)
	codes(d) == {"TASK_NOT_ASSIGNED"}
}

test_task_not_assigned_failure if {
	d := decide(failure("T4", "support_agent", "timeout"), st_t3)
	codes(d) == {"TASK_NOT_ASSIGNED"}
	d.reasons[0].path == "task"
}

test_task_not_assigned_review if {
	d := decide(review("ACCEPT", gates, []), with_tasks(st_review, {"T5": task("running", "order_research", ["T4"])}))
	"TASK_NOT_ASSIGNED" in codes(d)
}

test_task_not_assigned_twin if {
	d := decide(failure("T3", "order_research", "timeout"), st_t3)
	not "TASK_NOT_ASSIGNED" in codes(d)
}

test_output_type_mismatch if {
	d := decide(order_result(object.remove(order_content, ["source_reference"])), st_t3)
	codes(d) == {"SCHEMA_INVALID"}
	d.reasons[0].path == "output.content.source_reference"
}

test_output_type_twin if {
	d := decide(order_result(order_content), st_t3)
	not "SCHEMA_INVALID" in codes(d)
}

test_call_timeout_exceeded if {
	d := decide(object.union(order_result(order_content), {"usage": object.union(usage, {"max_call_ms": 12000})}), st_t3)
	codes(d) == {"CALL_TIMEOUT_EXCEEDED"}
}

test_call_timeout_twin if {
	d := decide(object.union(order_result(order_content), {"usage": object.union(usage, {"max_call_ms": 9000})}), st_t3)
	not "CALL_TIMEOUT_EXCEEDED" in codes(d)
}

test_call_timeout_missing_config_refuses if {
	d := decide_without(object.union(order_result(order_content), {"usage": object.union(usage, {"max_call_ms": 10})}), st_t3, "per_call_timeout_ms")
	"CALL_TIMEOUT_EXCEEDED" in codes(d)
}

test_envelope_mismatch_result_handed_past_the_supervisor if {
	req := object.union(classify(classification_content), {"target_agent": "order_research", "recipient": "order_research"})
	d := decide(req, st_created)
	codes(d) == {"ENVELOPE_MISMATCH"}
	d.reasons[0].path == "target_agent"
}

test_envelope_mismatch_response_not_to_the_customer if {
	d := decide(object.union(send(response_content), {"target_agent": "reviewer", "recipient": "reviewer"}), st_accepted)
	codes(d) == {"ENVELOPE_MISMATCH"}
}

test_envelope_result_target_twin if {
	d := decide(classify(classification_content), st_created)
	count(d.reasons) == 0
	d2 := decide(send(response_content), st_accepted)
	count(d2.reasons) == 0
}
