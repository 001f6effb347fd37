# The authorization gateway (T2), re-verification without elevated privileges, and the
# order result's evidence (T3): provenance, authority and freshness, never a vote.
package handoff.support_test

test_authorization_unverified_by_an_agent if {
	d := decide(object.union(authorize(auth_content), {"actor": agent("supervisor")}), st_planned)
	codes(d) == {"AUTHORIZATION_UNVERIFIED"}
	d.reasons[0].gate == "SEC-GATEWAY"
}

test_authorization_unverified_by_another_service if {
	d := decide(object.union(authorize(auth_content), {"actor": system("delivery-service")}), st_planned)
	codes(d) == {"AUTHORIZATION_UNVERIFIED"}
}

test_authorization_unverified_other_customer if {
	d := decide(authorize(object.union(auth_content, {"customer_ref": "cust-0000"})), st_planned)
	codes(d) == {"AUTHORIZATION_UNVERIFIED"}
}

test_authorization_unverified_twin if {
	d := decide(authorize(auth_content), st_planned)
	not "AUTHORIZATION_UNVERIFIED" in codes(d)
}

test_elevated_privileges_scope if {
	d := decide(reverify(object.union(auth_content, {"scopes": ["order_status:read", "refund:approve"]})), st_blocked)
	codes(d) == {"ELEVATED_PRIVILEGES"}
}

test_elevated_privileges_other_order if {
	d := decide(reverify(object.union(auth_content, {"order_ref": "ORD-2002"})), st_blocked)
	codes(d) == {"ELEVATED_PRIVILEGES"}
}

test_elevated_privileges_twin_recovers if {
	d := decide(reverify(auth_content), st_blocked)
	count(d.reasons) == 0
	d.status_after == "READY"
	task_events(d) == {"T3 ready"}
	effects(d) == {"recovery/T3 acknowledged"}
}

test_reverification_denied_fails if {
	d := decide(reverify(unverified_content), st_blocked)
	d.outcome == "fail"
	d.status_after == "FAILED"
	codes(d) == {"AUTHORIZATION_REQUIRED"}
	d.reasons[0].outcome == "fail"
	effects(d) == {"recovery/T3 failed"}
}

# --- evidence ------------------------------------------------------------------------------

carrier := evidence("carrier_tracking", "delivered", null, "2026-03-10T09:05:00Z", "tool_gateway")

customer_says := evidence("customer_message", "delivered", null, "2026-03-10T09:10:00Z", "customer_upload")

warehouse := evidence("warehouse_system", "returned", null, "2026-03-10T09:05:00Z", "tool_gateway")

majority := [oms, carrier, customer_says]

test_unsupported_claim_majority_does_not_count if {
	content := object.union(order_content, {"order_status": "delivered", "estimated_delivery": null, "source_reference": "carrier_tracking://ORD-1001", "evidence": majority})
	d := decide(order_result(content), st_t3)
	codes(d) == {"UNSUPPORTED_CLAIM"}
	count(d.reasons) == 3
}

test_unsupported_claim_without_verified_evidence if {
	content := object.union(order_content, {"evidence": [object.union(oms, {"provenance": {"via": "screenshot"}})]})
	d := decide(order_result(content), st_t3)
	codes(d) == {"UNSUPPORTED_CLAIM"}
}

test_unsupported_claim_twin_authority_wins if {
	d := decide(order_result(object.union(order_content, {"evidence": majority})), st_t3)
	count(d.reasons) == 0
}

test_freshness_breaks_ties_within_authority if {
	older := object.union(oms, {"status": "processing", "estimated_delivery": "2026-03-14", "observed_at": "2026-03-09T08:00:00Z", "source_reference": "oms://orders/ORD-1001/h1"})
	d := decide(order_result(object.union(order_content, {"evidence": [older, oms]})), st_t3)
	count(d.reasons) == 0
}

test_evidence_conflict if {
	content := object.union(order_content, {"order_status": "delivered", "estimated_delivery": null, "source_reference": "carrier_tracking://ORD-1001", "evidence": [carrier, warehouse]})
	d := decide(order_result(content), st_t3)
	codes(d) == {"EVIDENCE_CONFLICT"}
}

test_evidence_conflict_twin_unknown if {
	content := object.union(order_content, {"order_status": "UNKNOWN", "estimated_delivery": null, "source_reference": "carrier_tracking://ORD-1001", "evidence": [carrier, warehouse]})
	d := decide(order_result(content), st_t3)
	count(d.reasons) == 0
	task_events(d) == {"T3 done", "T4 ready", "T6 cancelled", "T7 pending"}
}

test_stale_evidence_old_record if {
	old := object.union(oms, {"observed_at": "2026-03-08T08:00:00Z"})
	d := decide(order_result(object.union(order_content, {"evidence": [old]})), st_t3)
	codes(d) == {"STALE_EVIDENCE"}
}

test_stale_evidence_passed_estimate if {
	past := object.union(oms, {"estimated_delivery": "2026-03-09"})
	d := decide(order_result(object.union(order_content, {"estimated_delivery": "2026-03-09", "evidence": [past]})), st_t3)
	"STALE_EVIDENCE" in codes(d)
}

test_stale_evidence_future_retrieval if {
	d := decide(order_result(object.union(order_content, {"retrieved_at": "2026-03-10T11:00:00Z"})), st_t3)
	codes(d) == {"STALE_EVIDENCE"}
}

test_stale_evidence_twin if {
	d := decide(order_result(order_content), st_t3)
	not "STALE_EVIDENCE" in codes(d)
}

test_scope_mismatch_other_order if {
	other := object.union(oms, {"source_reference": "oms://orders/ORD-2002"})
	d := decide(order_result(object.union(order_content, {"order_ref": "ORD-2002", "source_reference": "oms://orders/ORD-2002", "evidence": [other]})), st_t3)
	codes(d) == {"SCOPE_MISMATCH"}
}

test_scope_mismatch_twin if {
	d := decide(order_result(order_content), st_t3)
	not "SCOPE_MISMATCH" in codes(d)
}

test_order_result_labels_tool_excerpts_for_the_reviewer if {
	noisy := object.union(oms, {"excerpt": "Status: IN TRANSIT, hub Leipzig"})
	st := with_artifacts(st_t5_ready, {"ORDER_RESULT": one("ORDER_RESULT", "under_review", object.union(order_content, {"evidence": [noisy]}))})
	d := decide(dispatch_t5, st)
	d.next[0].context.must_know.ORDER_RESULT.must_know.evidence[0].excerpt == {"untrusted_data": "Status: IN TRANSIT, hub Leipzig"}
}

# --- times: the result's own retrieval and evidence times, against the decision time ----

# The T3 assignment is recorded at 09:58:00 (recent); now is 10:00:00; the clock skew is 60 s.

test_stale_evidence_retrieved_twenty_hours_ago if {
	old := object.union(order_content, {"retrieved_at": "2026-03-09T14:00:00Z", "evidence": [object.union(oms, {"observed_at": "2026-03-09T13:40:00Z"})]})
	d := decide(order_result(old), st_t3)
	codes(d) == {"STALE_EVIDENCE"}
	{r.path | some r in d.reasons} == {"output.content.retrieved_at"}
	count(d.reasons) == 2
}

test_stale_evidence_retrieved_before_its_dispatch if {
	d := decide(order_result(object.union(order_content, {"retrieved_at": "2026-03-10T09:56:59Z"})), st_t3)
	codes(d) == {"STALE_EVIDENCE"}
	contains(d.reasons[0].message, "before T3 was dispatched")
}

test_stale_evidence_twin_retrieved_within_the_skew_of_its_dispatch if {
	d := decide(order_result(object.union(order_content, {"retrieved_at": "2026-03-10T09:57:00Z"})), st_t3)
	not "STALE_EVIDENCE" in codes(d)
	d.outcome == "allow"
}

test_stale_evidence_retrieved_longer_ago_than_a_result_lasts if {
	# T3 was dispatched at 09:20; the order system was read 31 min before now.
	st := json.patch(st_t3, [{"op": "replace", "path": "/artifacts/TASK_ASSIGNMENT/versions/1/recorded_at", "value": "2026-03-10T09:20:00.000Z"}])
	d := decide(order_result(object.union(order_content, {"retrieved_at": "2026-03-10T09:29:00Z"})), st)
	codes(d) == {"STALE_EVIDENCE"}
	contains(d.reasons[0].message, "is current for at most")
}

test_stale_evidence_twin_retrieved_within_a_results_life if {
	st := json.patch(st_t3, [{"op": "replace", "path": "/artifacts/TASK_ASSIGNMENT/versions/1/recorded_at", "value": "2026-03-10T09:20:00.000Z"}])
	d := decide(order_result(object.union(order_content, {"retrieved_at": "2026-03-10T09:30:00Z"})), st)
	not "STALE_EVIDENCE" in codes(d)
}

test_stale_evidence_observed_after_the_retrieval if {
	later := object.union(oms, {"observed_at": "2026-03-10T09:59:30Z"})
	d := decide(order_result(object.union(order_content, {"retrieved_at": "2026-03-10T09:58:20Z", "evidence": [later]})), st_t3)
	codes(d) == {"STALE_EVIDENCE"}
	d.reasons[0].path == "output.content.evidence[0].observed_at"
}

test_stale_evidence_twin_observed_within_the_skew_of_the_retrieval if {
	later := object.union(oms, {"observed_at": "2026-03-10T09:59:20Z"})
	d := decide(order_result(object.union(order_content, {"retrieved_at": "2026-03-10T09:58:20Z", "evidence": [later]})), st_t3)
	not "STALE_EVIDENCE" in codes(d)
}

test_authorization_for_another_order if {
	d := decide(authorize(object.union(auth_content, {"order_ref": "ORD-2002"})), st_planned)
	codes(d) == {"SCOPE_MISMATCH"}
	d.reasons[0].path == "output.content.order_ref"
}

test_authorization_for_the_cases_order_twin if {
	d := decide(authorize(auth_content), st_planned)
	count(d.reasons) == 0
}

test_authorization_when_the_case_names_no_order_twin if {
	unnamed := json.remove(st_planned, ["artifacts/CASE/versions/1/content/order_ref", "artifacts/CLASSIFICATION/versions/1/content/order_ref"])
	d := decide(authorize(object.union(auth_content, {"order_ref": "ORD-2002"})), unnamed)
	not "SCOPE_MISMATCH" in codes(d)
}

test_authorization_already_expired if {
	d := decide(authorize(object.union(auth_content, {"expires_at": "2026-03-10T10:00:00Z"})), st_planned)
	codes(d) == {"AUTHORIZATION_UNVERIFIED"}
	d.reasons[0].path == "output.content.expires_at"
}

test_authorization_already_expired_twin_still_valid if {
	d := decide(authorize(object.union(auth_content, {"expires_at": "2026-03-10T10:00:01Z"})), st_planned)
	count(d.reasons) == 0
}

test_authorization_denial_needs_no_future_expiry_twin if {
	d := decide(authorize(object.union(unverified_content, {"expires_at": "2026-03-10T09:00:00Z"})), st_planned)
	count(d.reasons) == 0
	d.status_after == "READY"
}

test_reverification_after_a_permanent_failure_is_out_of_sequence if {
	d := decide(reverify(auth_content), st_blocked_permanent)
	codes(d) == {"OUT_OF_SEQUENCE"}
	d.status_after == "BLOCKED"
}

test_reverification_twin_after_an_authorization_failure if {
	d := decide(reverify(auth_content), st_blocked)
	count(d.reasons) == 0
	d.status_after == "READY"
}

test_classification_of_another_order if {
	d := decide(classify(object.union(classification_content, {"order_ref": "ORD-2002"})), st_created)
	codes(d) == {"SCOPE_MISMATCH"}
	d.reasons[0].path == "output.content.order_ref"
}

test_classification_twin_of_the_stated_order if {
	d := decide(classify(classification_content), st_created)
	count(d.reasons) == 0
}

test_classification_twin_reads_an_order_the_case_does_not_state if {
	unnamed := json.remove(st_created, ["artifacts/CASE/versions/1/content/order_ref"])
	d := decide(classify(object.union(classification_content, {"order_ref": "ORD-2002"})), unnamed)
	count(d.reasons) == 0
}
