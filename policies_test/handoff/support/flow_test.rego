# The support flow step by step, each request against the snapshot the previous steps
# leave: CREATED → PLANNED → READY → RUNNING → REVIEW_PENDING → COMPLETED.
package handoff.support_test

test_start_records_the_case_and_routes_t1 if {
	d := decide(start, state("CREATED", {}, {}))
	d.outcome == "allow"
	d.status_after == "CREATED"
	count(d.reasons) == 0
	recorded(d) == {"CASE v1 approved"}
	task_events(d) == {"T1 running"}
	next_agents(d) == {"supervisor"}
	d.next[0].context.must_know.message == {"untrusted_data": case_content.message}
	not d.next[0].context.must_know.customer_ref
	not d.next[0].context.may_know.customer_ref
}

test_classification_plans if {
	d := decide(classify(classification_content), st_created)
	d.outcome == "allow"
	d.status_after == "PLANNED"
	count(d.reasons) == 0
	task_events(d) == {"T1 done", "T2 running"}
	d.next[0].task == "verify_authorization"
}

test_authorization_builds_the_order_plan if {
	d := decide(authorize(auth_content), st_planned)
	d.outcome == "allow"
	d.status_after == "READY"
	count(d.reasons) == 0
	task_events(d) == {"T2 done", "T3 ready", "T4 pending", "T5 pending", "T6 pending"}
	d.next[0].context.must_know.ready_tasks == ["T3"]
}

test_unverified_customer_gets_no_order_lookup if {
	d := decide(authorize(unverified_content), st_planned)
	d.status_after == "READY"
	task_events(d) == {"T2 done", "T4 ready", "T5 pending", "T6 pending"}
}

test_refund_dispute_plans_a_human_handoff if {
	st := with_artifacts(st_planned, {"CLASSIFICATION": one("CLASSIFICATION", "approved", object.union(classification_content, {"intent": "refund_dispute"}))})
	d := decide(authorize(auth_content), st)
	task_events(d) == {"T2 done", "T4 ready", "T5 pending", "T7 pending"}
}

test_low_confidence_is_clarified if {
	st := with_artifacts(st_planned, {"CLASSIFICATION": one("CLASSIFICATION", "approved", object.union(classification_content, {"confidence": 0.4}))})
	d := decide(authorize(auth_content), st)
	task_events(d) == {"T2 done", "T4 ready", "T5 pending", "T6 pending"}
	clarifying := state("RUNNING", object.union(a_authorized, {"CLASSIFICATION": st.artifacts.CLASSIFICATION}), {
		"T1": task("done", "supervisor", []),
		"T2": task("done", "supervisor", ["T1"]),
		"T4": task("running", "support_agent", ["T2"]),
	})
	question := object.union(object.remove(draft_content, ["order_claims"]), {"kind": "clarification", "promises": []})
	d2 := decide(object.union(draft(question), {"input_artifacts": [ref("CASE", 1), ref("CLASSIFICATION", 1)], "input_refs": ["CASE.message", "CLASSIFICATION"]}), clarifying)
	count(d2.reasons) == 0
	not "ROUTE_MISMATCH" in codes(d2)
}

test_dispatch_t3_runs_with_least_privilege if {
	d := decide(dispatch_t3, st_ready)
	d.outcome == "allow"
	d.status_after == "RUNNING"
	count(d.reasons) == 0
	next_agents(d) == {"order_research"}
	recorded(d) == {"TASK_ASSIGNMENT v1 approved"}
	task_events(d) == {"T3 running"}
	{"type": "counter", "name": "delegations/T3", "delta": 1} in d.events
	ctx := d.next[0].context.must_know
	ctx.AUTHORIZATION_RECORD.must_know == {"order_ref": "ORD-1001", "scopes": ["order_status:read"]}
	not ctx.AUTHORIZATION_RECORD.must_know.customer_ref
	ctx.assignment.timeout_ms == 10000
}

test_order_result_readies_t4 if {
	d := decide(order_result(order_content), st_t3)
	d.outcome == "allow"
	d.status_after == "RUNNING"
	count(d.reasons) == 0
	recorded(d) == {"ORDER_RESULT v1 under_review"}
	task_events(d) == {"T3 done", "T4 ready"}
	{"type": "counter", "name": "usage/tool_calls", "delta": 1} in d.events
}

test_dispatch_t4_passes_verified_facts_only if {
	st := with_tasks(with_state(st_t4, {"artifacts": object.union(st_t4.artifacts, {"TASK_ASSIGNMENT": assignments(["T3"])})}), {"T4": task("ready", "support_agent", ["T3"])})
	d := decide(dispatch_t4, st)
	count(d.reasons) == 0
	ctx := d.next[0].context.must_know
	ctx.ORDER_RESULT.must_know.order_status == "in_transit"
	not ctx.ORDER_RESULT.must_know.evidence
	ctx.CASE.must_know.message == {"untrusted_data": case_content.message}
	ctx.route == {"route": "order_status", "response_kinds": ["order_status"]}
}

test_draft_readies_the_review if {
	d := decide(draft(draft_content), st_t4)
	d.outcome == "allow"
	count(d.reasons) == 0
	task_events(d) == {"T4 done", "T5 ready"}
	recorded(d) == {"RESPONSE_DRAFT v1 under_review"}
}

test_dispatch_t5_waits_for_the_review if {
	d := decide(dispatch_t5, st_t5_ready)
	d.status_after == "REVIEW_PENDING"
	count(d.reasons) == 0
	next_agents(d) == {"reviewer"}
	d.next[0].context.must_know.ORDER_RESULT.must_know.evidence == [oms]
	object.keys(d.next[0].context.must_know.checks) == {c | some c in checks}
}

test_accept_readies_the_send if {
	d := decide(review("ACCEPT", gates, []), st_review)
	d.outcome == "allow"
	d.status_after == "REVIEW_PENDING"
	count(d.reasons) == 0
	status_events(d) == {"RESPONSE_DRAFT v1 approved", "ORDER_RESULT v1 approved"}
	task_events(d) == {"T5 done", "T6 ready"}
	recorded(d) == {"REVIEW_RECORD v1 approved"}
	d.next[0].context.must_know.message == message
}

test_send_records_a_pending_delivery if {
	d := decide(send(response_content), st_accepted)
	d.outcome == "allow"
	d.status_after == "REVIEW_PENDING"
	count(d.reasons) == 0
	effects(d) == {"delivery/response-draft@v1 pending"}
	task_events(d) == {"T6 running"}
}

test_acknowledged_delivery_completes if {
	d := decide(outcome(delivery, "acknowledged", "delivery-service"), st_sending("pending"))
	d.outcome == "allow"
	d.status_after == "COMPLETED"
	status_events(d) == {"CUSTOMER_RESPONSE v1 final", "RESPONSE_DRAFT v1 final"}
}
