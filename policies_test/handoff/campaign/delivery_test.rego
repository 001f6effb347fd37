# Client delivery: approved artifacts only, unmodified, after the final approval; the
# delivery's outcome is reconciled, retried within its budget, then escalated.
package handoff.campaign_test

test_delivery_before_approval if {
	d := decide(delivery_handoff(array.concat(final_refs, [ref("APPROVAL_RECORD", 1)]), client_package), st_human)
	codes(d) == {"APPROVAL_REQUIRED", "ARTIFACT_NOT_APPROVED"}
	not "OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
}

test_delivery_with_a_record_that_is_not_the_final_approval if {
	inputs := [ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1), ref("QA_REPORT", 2), ref("APPROVAL_RECORD", 1)]
	d := decide(delivery_handoff(inputs, client_package), st_delivery)
	codes(d) == {"APPROVAL_REQUIRED", "VERSION_MISMATCH"}
	some r in d.reasons
	r.code == "APPROVAL_REQUIRED"
	r.path == "input_artifacts[3]"
}

test_delivery_after_a_revision_request if {
	st := with_state(st_delivery, {"approvals": {"HUMAN_APPROVAL": {"decision": "REQUEST_REVISION", "by": "maria.lopez", "artifacts": []}}})
	d := decide(delivery_handoff(delivery_inputs, client_package), st)
	codes(d) == {"APPROVAL_REQUIRED"}
}

test_approval_required_twin if {
	d := decide(delivery_handoff(delivery_inputs, client_package), st_delivery)
	count(d.reasons) == 0
}

test_delivery_of_a_report_that_is_not_approved if {
	reports := history("QA_REPORT", [object.union(report_v1, {"status": "superseded"}), final_report])
	st := with_state(state("DELIVERY", object.union(st_delivery.artifacts, {"QA_REPORT": reports})), {"approvals": st_delivery.approvals})
	d := decide(delivery_handoff(delivery_inputs, client_package), st)
	codes(d) == {"ARTIFACT_NOT_APPROVED"}
	d.reasons[0].path == "input_artifacts[2]"
}

test_delivery_of_a_draft_copy if {
	copies := history("COPY_PACKAGE", [copy_v(1, "superseded"), copy_v(2, "approved")])
	st := with_state(state("DELIVERY", object.union(st_delivery.artifacts, {"COPY_PACKAGE": copies})), {"approvals": st_delivery.approvals})
	d := decide(delivery_handoff(delivery_inputs, client_package), st)
	"ARTIFACT_NOT_APPROVED" in codes(d)
	d.outcome == "block"
}

test_content_modified_copy if {
	edited := json.patch(client_package, [{"op": "replace", "path": "/copy/1/body", "value": "The best cold brew in Europe."}])
	d := decide(delivery_handoff(delivery_inputs, edited), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
	d.reasons[0].path == "output.content.copy"
}

test_content_modified_visual if {
	edited := json.patch(client_package, [{"op": "remove", "path": "/visual_prompts/1"}])
	d := decide(delivery_handoff(delivery_inputs, edited), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
}

# Delivery adds no content: free-text notes are refused, whatever they say.
test_content_modified_new_copy_in_delivery_notes if {
	notes := "P.S. Flash sale: Brightbrew cures your Monday blues, 50% off today only!"
	d := decide(delivery_handoff(delivery_inputs, object.union(client_package, {"delivery_notes": notes})), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
	d.reasons[0].path == "output.content.delivery_notes"
	d.outcome == "block"
}

test_content_modified_packaging_note_is_free_text_too if {
	d := decide(delivery_handoff(delivery_inputs, object.union(client_package, {"delivery_notes": "Zip with two folders"})), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
}

test_content_modified_twin_blank_notes if {
	d := decide(delivery_handoff(delivery_inputs, object.union(client_package, {"delivery_notes": "  "})), st_delivery)
	count(d.reasons) == 0
	d.outcome == "allow"
}

test_content_modified_twin_no_notes if {
	d := decide(delivery_handoff(delivery_inputs, client_package), st_delivery)
	not "CONTENT_MODIFIED" in codes(d)
}

test_input_missing_visual if {
	inputs := [ref("COPY_PACKAGE", 1), ref("QA_REPORT", 2), ref("APPROVAL_RECORD", 2)]
	d := decide(delivery_handoff(inputs, client_package), st_delivery)
	codes(d) == {"INPUT_MISSING"}
}

test_delivery_while_pending if {
	req := object.union(delivery_handoff(delivery_inputs, client_package), {"output": output("CLIENT_PACKAGE", 2, client_package)})
	d := decide(req, st_delivering("pending"))
	codes(d) == {"DELIVERY_UNRECONCILED"}
}

test_delivery_while_pending_twin_after_failure if {
	d := decide(redelivery(redelivery_inputs), st_delivering("failed"))
	not "DELIVERY_UNRECONCILED" in codes(d)
	status_events(d) == {"CLIENT_PACKAGE v1 superseded"}
}

# --- outcomes -----------------------------------------------------------------------------

test_failed_delivery_is_retried if {
	d := decide(outcome("client-package@v1", "failed"), st_delivering("pending"))
	d.outcome == "retry"
	d.status_after == "DELIVERY"
	d.retry == {"attempt": 2, "max_attempts": 3, "delay_ms": 4000, "task": "delivery"}
	{"type": "counter", "name": "retry/delivery", "delta": 1} in d.events
	{"type": "effect", "id": "client-package@v1", "status": "failed"} in d.events
	next_agents(d) == {"delivery_agent"}
}

test_retry_exhausted if {
	st := with_state(st_delivering("pending"), {"counters": {"retry/delivery": 2}})
	d := decide(outcome("client-package@v1", "failed"), st)
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	codes(d) == {"RETRY_EXHAUSTED"}
	next_agents(d) == {"campaign_approver"}
}

test_retry_exhausted_twin_last_retry if {
	st := with_state(st_delivering("pending"), {"counters": {"retry/delivery": 1}})
	d := decide(outcome("client-package@v1", "failed"), st)
	not "RETRY_EXHAUSTED" in codes(d)
	d.retry.attempt == 3
	d.retry.delay_ms == 8000
}

test_retry_without_a_retry_policy_escalates if {
	contract := json.remove(campaign_contract, ["limits/retry/timeout"])
	d := decide_with(outcome("client-package@v1", "failed"), st_delivering("pending"), contract)
	d.status_after == "ESCALATED"
	"RETRY_EXHAUSTED" in codes(d)
}

test_unknown_outcome_waits_for_reconciliation if {
	d := decide(outcome("client-package@v1", "unknown"), st_delivering("pending"))
	d.outcome == "await_human"
	d.status_after == "DELIVERY"
	codes(d) == {"DELIVERY_UNRECONCILED"}
	d.reasons[0].outcome == "await_human"
	{"type": "effect", "id": "client-package@v1", "status": "unknown"} in d.events
}

test_unknown_outcome_twin_acknowledged if {
	d := decide(outcome("client-package@v1", "acknowledged"), st_delivering("unknown"))
	not "DELIVERY_UNRECONCILED" in codes(d)
	d.status_after == "COMPLETED"
}

test_outcome_of_an_unknown_effect if {
	d := decide(outcome("client-package@v9", "acknowledged"), st_delivering("pending"))
	codes(d) == {"EFFECT_NOT_FOUND"}
	d.outcome == "block"
}

test_outcome_outside_delivery if {
	d := decide(outcome("client-package@v1", "acknowledged"), state("HUMAN_APPROVAL", st_delivering("pending").artifacts))
	"OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
}

# --- a delivery event is counted once; a retry is a redelivery, when it is due -------------

now_ms := time.parse_rfc3339_ns(now) / 1000000

redelivery_inputs := array.concat(delivery_inputs, [ref("CLIENT_PACKAGE", 1)])

redelivery(inputs) := object.union(delivery_handoff(inputs, client_package), {"output": output("CLIENT_PACKAGE", 2, client_package)})

test_failed_delivery_records_when_its_retry_is_due if {
	d := decide(outcome("client-package@v1", "failed"), st_delivering("pending"))
	{"type": "counter", "name": "retry_due_ms/delivery", "value": now_ms + 4000} in d.events
}

test_outcome_duplicate_failed_again if {
	st := with_state(st_delivering("failed"), {"counters": {"retry/delivery": 1}})
	d := decide(outcome("client-package@v1", "failed"), st)
	codes(d) == {"EFFECT_ALREADY_SETTLED"}
	d.outcome == "block"
	d.status_after == "DELIVERY"
	count(d.events) == 0
}

test_outcome_duplicate_acknowledged_after_failed if {
	d := decide(outcome("client-package@v1", "acknowledged"), st_delivering("failed"))
	codes(d) == {"EFFECT_ALREADY_SETTLED"}
}

test_outcome_duplicate_twin_first_report if {
	d := decide(outcome("client-package@v1", "failed"), st_delivering("pending"))
	not "EFFECT_ALREADY_SETTLED" in codes(d)
	d.outcome == "retry"
}

test_outcome_duplicate_twin_after_unknown if {
	d := decide(outcome("client-package@v1", "acknowledged"), st_delivering("unknown"))
	count(d.reasons) == 0
	d.status_after == "COMPLETED"
}

test_redelivery_names_the_failed_package if {
	d := decide(redelivery(delivery_inputs), st_delivering("failed"))
	codes(d) == {"INPUT_MISSING"}
}

test_redelivery_before_it_is_due if {
	st := with_state(st_delivering("failed"), {"counters": {"retry/delivery": 1, "retry_due_ms/delivery": now_ms + 4000}})
	d := decide(redelivery(redelivery_inputs), st)
	codes(d) == {"RETRY_NOT_DUE"}
	d.outcome == "block"
	contains(d.reasons[0].message, "4000 ms are left")
}

test_redelivery_twin_when_due if {
	st := with_state(st_delivering("failed"), {"counters": {"retry/delivery": 1, "retry_due_ms/delivery": now_ms}})
	d := decide(redelivery(redelivery_inputs), st)
	count(d.reasons) == 0
	d.outcome == "allow"
	{"type": "effect", "id": "client-package@v2", "status": "pending"} in d.events
}
