# Sending the accepted response (T6) idempotently, reconciling its outcome, and the
# documented human handoff (T7).
package handoff.support_test

test_review_required_before_review if {
	st := with_tasks(st_review, {"T6": task("ready", "supervisor", ["T5"])})
	d := decide(object.union(send(response_content), {"input_artifacts": [ref("RESPONSE_DRAFT", 1)]}), st)
	codes(d) == {"REVIEW_REQUIRED"}
	count(d.reasons) == 2
	d.reasons[0].gate == "REVIEW"
}

test_review_required_rejected_draft if {
	st := with_artifacts(st_accepted, {"RESPONSE_DRAFT": one("RESPONSE_DRAFT", "rejected", draft_content)})
	d := decide(send(response_content), st)
	codes(d) == {"REVIEW_REQUIRED"}
	contains(d.reasons[0].message, "rejected")
}

test_review_required_twin if {
	d := decide(send(response_content), st_accepted)
	not "REVIEW_REQUIRED" in codes(d)
}

test_content_modified if {
	d := decide(send(object.union(response_content, {"message": "ORD-1001 arrives tomorrow, guaranteed."})), st_accepted)
	codes(d) == {"CONTENT_MODIFIED"}
	d.reasons[0].path == "output.content.message"
}

test_content_modified_channel if {
	d := decide(send(object.union(response_content, {"channel": "email"})), st_accepted)
	codes(d) == {"CONTENT_MODIFIED"}
}

test_content_modified_twin if {
	d := decide(send(response_content), st_accepted)
	not "CONTENT_MODIFIED" in codes(d)
}

test_send_refused_on_an_old_result if {
	old := json.patch(st_accepted, [{"op": "replace", "path": "/artifacts/ORDER_RESULT/versions/1/recorded_at", "value": "2026-03-10T09:20:00.000Z"}])
	d := decide(send(response_content), old)
	codes(d) == {"STALE_EVIDENCE"}
}

resend := object.union(send(response_content), {
	"input_artifacts": [ref("RESPONSE_DRAFT", 1), ref("REVIEW_RECORD", 1), ref("CUSTOMER_RESPONSE", 1)],
	"output": output("CUSTOMER_RESPONSE", 2, response_content),
})

test_duplicate_delivery_pending if {
	d := decide(resend, st_sending("pending"))
	codes(d) == {"DUPLICATE_DELIVERY"}
}

test_duplicate_delivery_acknowledged if {
	d := decide(resend, with_tasks(st_sending("acknowledged"), {"T6": task("running", "supervisor", ["T5"])}))
	codes(d) == {"DUPLICATE_DELIVERY"}
}

test_duplicate_delivery_twin_after_a_failure if {
	d := decide(resend, st_delivery_failed(2000))
	count(d.reasons) == 0
	status_events(d) == {"CUSTOMER_RESPONSE v1 superseded"}
	effects(d) == {"delivery/response-draft@v1 pending"}
}

test_resend_while_unknown_is_unreconciled if {
	d := decide(resend, with_tasks(st_sending("unknown"), {"T6": task("unknown", "supervisor", ["T5"])}))
	codes(d) == {"DELIVERY_UNRECONCILED"}
}

test_failed_delivery_is_retried if {
	d := decide(outcome(delivery, "failed", "delivery-service"), st_sending("pending"))
	d.outcome == "retry"
	d.status_after == "REVIEW_PENDING"
	d.retry == {"attempt": 2, "max_attempts": 3, "delay_ms": 2000, "task": "T6"}
	effects(d) == {"delivery/response-draft@v1 failed"}
	task_events(d) == {"T6 ready"}
	recorded(d) == {"FAILURE_RECORD v1 approved"}
	some e in d.events
	e.type == "artifact_recorded"
	object.remove(e.content, ["delay_ms"]) == {"task_id": "T6", "agent": "supervisor", "class": "timeout", "attempt": 1, "max_attempts": 3, "decision": "retry"}

	# The record keeps the delay the decision announces to the host.
	e.content.delay_ms == d.retry.delay_ms
}

# --- a resend waits for the delay its failure decision announced ----------------------------

test_resend_not_due_before_the_delivery_backoff if {
	# The failure was recorded at 09:58:00 with a delay of 2000 ms: due at 09:58:02.
	d := decide_at(resend, st_delivery_failed(2000), "2026-03-10T09:58:01.999Z")
	codes(d) == {"RETRY_NOT_DUE"}
	d.outcome == "block"
	d.status_after == "REVIEW_PENDING"
	count(d.events) == 0
}

test_resend_twin_at_the_delivery_backoff if {
	d := decide_at(resend, st_delivery_failed(2000), "2026-03-10T09:58:02Z")
	count(d.reasons) == 0
	d.outcome == "allow"
	effects(d) == {"delivery/response-draft@v1 pending"}
}

test_resend_without_a_failure_record_is_never_due if {
	d := decide(resend, with_tasks(st_sending("failed"), {"T6": task("ready", "supervisor", ["T5"])}))
	codes(d) == {"RETRY_NOT_DUE"}
	contains(d.reasons[0].message, "no FAILURE_RECORD")
}

test_delivery_retry_exhausted_records_the_failure if {
	d := decide(outcome(delivery, "failed", "delivery-service"), with_state(st_sending("pending"), {"counters": {"retry/T6": 2}}))
	some e in d.events
	e.type == "artifact_recorded"
	e.ref.type == "FAILURE_RECORD"
	e.content.decision == "escalated"
	e.content.delay_ms == 0
	e.content.attempt == 3
}

test_delivery_retry_exhausted if {
	d := decide(outcome(delivery, "failed", "delivery-service"), with_state(st_sending("pending"), {"counters": {"retry/T6": 2}}))
	codes(d) == {"RETRY_EXHAUSTED"}
	d.status_after == "ESCALATED"
	next_agents(d) == {"human_escalation_gate"}
}

test_delivery_retry_exhausted_twin if {
	d := decide(outcome(delivery, "failed", "delivery-service"), with_state(st_sending("pending"), {"counters": {"retry/T6": 1}}))
	not "RETRY_EXHAUSTED" in codes(d)
	d.retry.attempt == 3
	d.retry.delay_ms == 4000
}

test_delivery_unknown_outcome if {
	d := decide(outcome(delivery, "unknown", "delivery-service"), st_sending("pending"))
	codes(d) == {"DELIVERY_UNRECONCILED"}
	d.outcome == "await_human"
	d.status_after == "REVIEW_PENDING"
	effects(d) == {"delivery/response-draft@v1 unknown"}
	task_events(d) == {"T6 unknown"}
}

test_send_failure_is_unknown if {
	d := decide(failure("T6", "supervisor", "timeout"), st_sending("pending"))
	codes(d) == {"DELIVERY_UNRECONCILED"}
	d.outcome == "await_human"
	effects(d) == {"delivery/response-draft@v1 unknown"}
}

test_delivery_unknown_twin_reconciled if {
	d := decide(outcome(delivery, "acknowledged", "delivery-service"), st_sending("unknown"))
	not "DELIVERY_UNRECONCILED" in codes(d)
	d.status_after == "COMPLETED"
}

test_human_handoff_pending if {
	d := decide(outcome("human-handoff", "failed", "ticketing-service"), st_escalated("pending"))
	codes(d) == {"HUMAN_HANDOFF_PENDING"}
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	effects(d) == {"human-handoff failed"}
}

test_human_handoff_twin_acknowledged if {
	d := decide(outcome("human-handoff", "acknowledged", "ticketing-service"), st_escalated("failed"))
	count(d.reasons) == 0
	d.outcome == "allow"
	task_events(d) == {"T7 done"}
}

test_nothing_else_on_an_escalated_workflow if {
	d := decide(outcome("human-handoff", "acknowledged", "ticketing-service"), st_escalated("acknowledged"))
	codes(d) == {"WORKFLOW_TERMINAL"}
	d2 := decide(send(response_content), st_escalated("pending"))
	"WORKFLOW_TERMINAL" in codes(d2)
}

test_send_failure_of_another_agent_is_not_the_send if {
	d := decide(failure("T6", "reviewer", "timeout"), st_sending("pending"))
	codes(d) == {"TASK_NOT_ASSIGNED"}
	d.outcome == "block"
}

test_send_refused_on_a_result_retrieved_long_ago if {
	old := object.union(order_content, {"retrieved_at": "2026-03-09T14:00:00Z"})
	st := with_artifacts(st_accepted, {"ORDER_RESULT": one("ORDER_RESULT", "approved", old)})
	d := decide(send(response_content), st)
	codes(d) == {"STALE_EVIDENCE"}
	d.reasons[0].path == "output.content.draft"
}

test_send_twin_on_a_current_result if {
	d := decide(send(response_content), st_accepted)
	count(d.reasons) == 0
	d.outcome == "allow"
}

# --- duplicate delivery events are never counted twice (TST-07) ---------------------------

# The first failure of the delivery was recorded: retry/T6 counts one try, T6 waits for
# the resend.
failed_once := with_state(st_delivery_failed(2000), {"counters": {"retry/T6": 1}})

test_duplicate_failed_outcome_is_refused_and_not_counted if {
	d := decide(object.union(outcome(delivery, "failed", "delivery-service"), {"request_id": "req-outcome-2"}), failed_once)
	codes(d) == {"EFFECT_ALREADY_SETTLED"}
	d.outcome == "block"
	d.status_after == "REVIEW_PENDING"
	count(d.events) == 0
	not d.retry
	d.reasons[0].path == "effect_id"
}

test_duplicate_failed_outcome_never_escalates if {
	# Even with the budget nearly spent, a repeated failure changes nothing.
	d := decide(outcome(delivery, "failed", "delivery-service"), with_state(failed_once, {"counters": {"retry/T6": 2}}))
	codes(d) == {"EFFECT_ALREADY_SETTLED"}
	d.status_after == "REVIEW_PENDING"
}

test_duplicate_twin_failure_after_a_resend_counts_once if {
	# The resend reopened the delivery (pending): its failure is the second try.
	d := decide(outcome(delivery, "failed", "delivery-service"), with_state(st_sending("pending"), {"counters": {"retry/T6": 1}}))
	count(d.reasons) == 0
	d.outcome == "retry"
	d.retry.attempt == 3
}

test_duplicate_twin_late_acknowledgement_completes if {
	# The delivery record shows it arrived after all: nothing is resent.
	d := decide(outcome(delivery, "acknowledged", "delivery-service"), failed_once)
	count(d.reasons) == 0
	d.status_after == "COMPLETED"
}

test_send_failure_reported_again_is_refused if {
	st := with_tasks(st_sending("unknown"), {"T6": task("unknown", "supervisor", ["T5"])})
	d := decide(failure("T6", "supervisor", "timeout"), st)
	codes(d) == {"DELIVERY_UNRECONCILED"}
	d.outcome == "block"
	count(d.events) == 0
}

test_send_failure_is_not_counted_until_its_outcome if {
	d := decide(failure("T6", "supervisor", "timeout"), st_sending("pending"))
	not {"type": "counter", "name": "retry/T6", "delta": 1} in d.events
	some e in d.events
	e.type == "artifact_recorded"
	e.content.attempt == 1
	e.content.decision == "unknown"
}

test_failed_outcome_after_an_unknown_send_counts_the_try_once if {
	st := with_tasks(st_sending("unknown"), {"T6": task("unknown", "supervisor", ["T5"])})
	d := decide(outcome(delivery, "failed", "delivery-service"), st)
	d.outcome == "retry"
	d.retry.attempt == 2
	{"type": "counter", "name": "retry/T6", "delta": 1} in d.events
}

# --- an outcome or a send failure names a recorded effect ---------------------------------

test_outcome_for_an_unknown_effect if {
	d := decide(outcome("delivery/response-draft@v9", "acknowledged", "delivery-service"), st_sending("pending"))
	codes(d) == {"EFFECT_NOT_FOUND"}
	d.outcome == "block"
	d.reasons[0].path == "effect_id"
	d.reasons[0].gate == "EFFECT_KNOWN"
}

test_outcome_for_an_unknown_effect_twin_the_recorded_delivery if {
	d := decide(outcome(delivery, "acknowledged", "delivery-service"), st_sending("pending"))
	count(d.reasons) == 0
	d.status_after == "COMPLETED"
}

test_outcome_for_an_unknown_effect_on_a_terminal_workflow if {
	d := decide(outcome("retry/T9", "acknowledged", "retry-scheduler"), st_escalated("acknowledged"))
	codes(d) == {"EFFECT_NOT_FOUND", "WORKFLOW_TERMINAL"}
}

test_send_failure_before_anything_was_sent if {
	d := decide(failure("T6", "supervisor", "timeout"), st_accepted)
	codes(d) == {"EFFECT_NOT_FOUND"}
	d.outcome == "block"
	count(d.events) == 0
}

test_send_failure_after_a_failed_delivery_was_not_resent if {
	d := decide(failure("T6", "supervisor", "timeout"), st_delivery_failed(2000))
	codes(d) == {"EFFECT_NOT_FOUND"}
}

# --- the send names the recorded draft: its id, type and hash ----------------------------

test_duplicate_delivery_under_another_draft_id if {
	# The same draft under another id would have made a new delivery key.
	renamed := object.union(response_content, {"draft": object.union(ref("RESPONSE_DRAFT", 1), {"id": "response-draft-copy"})})
	d := decide(object.union(resend, {"output": output("CUSTOMER_RESPONSE", 2, renamed)}), st_sending("pending"))
	codes(d) == {"DUPLICATE_DELIVERY", "REVIEW_REQUIRED"}
	some r in d.reasons
	r.code == "DUPLICATE_DELIVERY"
	contains(r.message, "delivery/response-draft@v1 is pending")
}

test_send_names_another_artifact_type if {
	d := decide(send(object.union(response_content, {"draft": ref("ORDER_RESULT", 1)})), with_artifacts(st_accepted, {"ORDER_RESULT": one("ORDER_RESULT", "approved", order_content)}))
	"REVIEW_REQUIRED" in codes(d)
	d.outcome == "block"
}

test_send_names_the_recorded_draft_twin if {
	d := decide(send(response_content), st_accepted)
	count(d.reasons) == 0
	effects(d) == {"delivery/response-draft@v1 pending"}
}
