# The Reviewer (T5): ACCEPT / REVISE / REASSIGN / REJECT / ESCALATE, its five checks,
# bounded revision cycles, the review deadline, and what the policy finds before an
# ACCEPT.
package handoff.support_test

test_review_scope_without_the_draft if {
	req := object.union(review("ACCEPT", gates, []), {"artifacts": [ref("ORDER_RESULT", 1)]})
	d := decide(req, st_review)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_review_scope_twin if {
	d := decide(review("ACCEPT", gates, []), st_review)
	not "REVIEW_SCOPE_INVALID" in codes(d)
}

# A return names the defect it returns the work for (core's verdict consistency).
test_verdict_inconsistent_return_without_a_defect if {
	every verdict in ["REVISE", "REJECT", "REASSIGN"] {
		d := decide(review(verdict, gates, []), st_review)
		"VERDICT_INCONSISTENT" in codes(d)
		not "SUBJECTIVE_DEFECT" in codes(d)
		d.outcome == "block"
		some r in d.reasons
		r.code == "VERDICT_INCONSISTENT"
		r.path == "verdict"
		r.gate == "REVIEW_CHECKS"
		r.title == "Review contradicts itself"
	}
}

test_verdict_inconsistent_twin_return_with_a_defect if {
	d := decide(review("REVISE", failing("answers_question"), [defect("D-1", "answers_question")]), st_review)
	not "VERDICT_INCONSISTENT" in codes(d)
	d.outcome == "revise"
}

test_subjective_defect_without_a_check if {
	d := decide(review("REVISE", gates, [defect("D-1", "tone")]), st_review)
	codes(d) == {"SUBJECTIVE_DEFECT"}
	d.reasons[0].path == "defects[0].check"
}

test_subjective_defect_twin if {
	d := decide(review("REVISE", failing("answers_question"), [defect("D-1", "answers_question")]), st_review)
	not "SUBJECTIVE_DEFECT" in codes(d)
}

test_review_checks_incomplete_missing if {
	d := decide(review("ACCEPT", [g | some g in gates; g.id != "delivery_date_current"], []), st_review)
	codes(d) == {"REVIEW_CHECKS_INCOMPLETE"}
	contains(d.reasons[0].message, "not reported")
}

# An ACCEPT with a failed check contradicts itself (core); a check left out is
# incomplete (support).
test_verdict_inconsistent_accept_with_a_failed_check if {
	failed := [object.union(g, {"passed": g.id != "no_unsupported_promise"}) | some g in gates]
	d := decide(review("ACCEPT", failed, []), st_review)
	codes(d) == {"VERDICT_INCONSISTENT"}
	d.reasons[0].path == "gates[4]"
}

test_review_checks_twin if {
	d := decide(review("ACCEPT", gates, []), st_review)
	not "REVIEW_CHECKS_INCOMPLETE" in codes(d)
}

test_accept_refused_when_a_newer_result_disagrees if {
	newer := object.union(order_content, {"order_status": "delayed", "estimated_delivery": "2026-03-14"})
	st := with_artifacts(st_review, {"ORDER_RESULT": history("ORDER_RESULT", [version("ORDER_RESULT", 1, "superseded", order_content), version("ORDER_RESULT", 2, "under_review", newer)])})
	req := object.union(review("ACCEPT", gates, []), {"artifacts": [ref("RESPONSE_DRAFT", 1), ref("ORDER_RESULT", 2)]})
	d := decide(req, st)
	codes(d) == {"UNSUPPORTED_CLAIM"}
}

test_accept_refused_on_an_old_result if {
	old := json.patch(st_review, [{"op": "replace", "path": "/artifacts/ORDER_RESULT/versions/1/recorded_at", "value": "2026-03-10T09:20:00.000Z"}])
	d := decide(review("ACCEPT", gates, []), old)
	codes(d) == {"STALE_EVIDENCE"}
}

test_escalation_required_on_the_human_route if {
	st := with_artifacts(st_review, {"CLASSIFICATION": one("CLASSIFICATION", "approved", object.union(classification_content, {"intent": "refund_dispute"}))})
	d := decide(review("ACCEPT", gates, []), st)
	codes(d) == {"ESCALATION_REQUIRED"}
}

test_escalation_required_for_a_sensitive_promise if {
	promising := object.union(draft_content, {"promises": [{"type": "replacement", "detail": "A replacement ships today"}]})
	st := with_artifacts(st_review, {"RESPONSE_DRAFT": one("RESPONSE_DRAFT", "under_review", promising)})
	d := decide(review("ACCEPT", gates, []), st)
	codes(d) == {"ESCALATION_REQUIRED"}
}

test_escalation_required_twin if {
	d := decide(review("ACCEPT", gates, []), st_review)
	not "ESCALATION_REQUIRED" in codes(d)
}

test_escalate if {
	d := decide(review("ESCALATE", gates, []), st_review)
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	d.requires_human_review == true
	next_agents(d) == {"human_escalation_gate"}
	recorded(d) == {"REVIEW_RECORD v1 approved", "ESCALATION_RECORD v1 approved"}
	effects(d) == {"human-handoff pending"}
	"T7 ready" in task_events(d)
	"T6 cancelled" in task_events(d)
	d.next[0].context.must_know.ESCALATION_RECORD.must_know.reasons == ["ESCALATE"]
}

reassign(task_id, agent_id) := object.union(review("REASSIGN", failing("answers_question"), [defect("D-1", "answers_question")]), {"report": {"reassign": {"task_id": task_id, "agent": agent_id}}})

test_reassign_not_permitted_without_the_capability if {
	d := decide(reassign("T3", "support_agent"), st_review)
	codes(d) == {"QUALITY_GATE_FAILED", "REASSIGN_NOT_PERMITTED"}
}

test_reassign_not_permitted_of_the_review_itself if {
	d := decide(reassign("T5", "supervisor"), st_review)
	"REASSIGN_NOT_PERMITTED" in codes(d)
}

test_reassign_not_permitted_naming_nobody if {
	d := decide(review("REASSIGN", failing("answers_question"), [defect("D-1", "answers_question")]), st_review)
	"REASSIGN_NOT_PERMITTED" in codes(d)
}

test_reassign_twin if {
	d := decide(reassign("T3", "order_research"), st_review)
	not "REASSIGN_NOT_PERMITTED" in codes(d)
	d.outcome == "revise"
	d.status_after == "READY"
	task_events(d) == {"T3 ready", "T4 pending", "T5 pending"}
	d.revise == [{"artifact": "ORDER_RESULT", "producer": "order_research", "defects": ["D-1"]}]
}

test_reassign_to_records_needs_authorization if {
	st := with_artifacts(st_review, {"AUTHORIZATION_RECORD": one("AUTHORIZATION_RECORD", "approved", unverified_content)})
	d := decide(reassign("T3", "order_research"), st)
	codes(d) == {"AUTHORIZATION_REQUIRED", "QUALITY_GATE_FAILED"}
}

test_review_deadline_exceeded if {
	d := decide_at(review("ACCEPT", gates, []), st_review, "2026-03-10T10:04:00.000Z")
	codes(d) == {"REVIEW_DEADLINE_EXCEEDED"}
	d.status_after == "ESCALATED"
	d.outcome == "await_human"
}

test_review_deadline_failure_of_the_reviewer if {
	d := decide_at(failure("T5", "reviewer", "timeout"), st_review, "2026-03-10T10:04:00.000Z")
	"REVIEW_DEADLINE_EXCEEDED" in codes(d)
	d.status_after == "ESCALATED"
}

test_review_deadline_twin if {
	d := decide_at(review("ACCEPT", gates, []), st_review, "2026-03-10T10:02:00.000Z")
	not "REVIEW_DEADLINE_EXCEEDED" in codes(d)
	d.status_after == "REVIEW_PENDING"
}

test_review_cycles_exhausted if {
	d := decide(review("REJECT", failing("evidence_supported"), [defect("D-3", "evidence_supported")]), with_state(st_review, {"counters": {"review_cycles": 2}}))
	codes(d) == {"QUALITY_GATE_FAILED", "REVIEW_CYCLES_EXHAUSTED"}
	d.status_after == "ESCALATED"
}

test_review_cycles_twin if {
	d := decide(review("REJECT", failing("evidence_supported"), [defect("D-2", "evidence_supported")]), with_state(st_review, {"counters": {"review_cycles": 1}}))
	not "REVIEW_CYCLES_EXHAUSTED" in codes(d)
	d.status_after == "READY"
	status_events(d) == {"RESPONSE_DRAFT v1 rejected"}
	{"type": "counter", "name": "review_cycles", "delta": 1} in d.events
}

test_review_cycles_missing_limit_never_loops if {
	d := support_decision_without_cycles(review("REVISE", failing("answers_question"), [defect("D-1", "answers_question")]), st_review)
	"REVIEW_CYCLES_EXHAUSTED" in codes(d)
}

support_decision_without_cycles(req, st) := d if {
	d := data.handoff.support.decision with input as input_of(req, st) with data.handoff.support.contract as json.remove(contract, ["limits/max_review_cycles"])
}

test_quality_gate_failed_on_revise if {
	d := decide(review("REVISE", failing("answers_question"), [defect("D-1", "answers_question")]), st_review)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.outcome == "revise"
	d.revise == [{"artifact": "RESPONSE_DRAFT", "producer": "support_agent", "defects": ["D-1"]}]
	status_events(d) == {"RESPONSE_DRAFT v1 revision_required"}
	task_events(d) == {"T4 ready", "T5 pending"}
}

test_quality_gate_twin_accept if {
	d := decide(review("ACCEPT", gates, []), st_review)
	not "QUALITY_GATE_FAILED" in codes(d)
}

# --- identity: the Reviewer is an agent --------------------------------------------------

test_review_by_a_person_with_the_reviewers_id if {
	d := decide(object.union(review("ACCEPT", gates, []), {"actor": {"type": "human", "id": "reviewer"}}), st_review)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.outcome == "block"
	some r in d.reasons
	r.path == "actor.type"
	r.gate == "SEC-IDENTITY"
}

test_review_by_a_person_with_a_role_is_still_not_the_reviewer if {
	d := decide(object.union(review("ACCEPT", gates, []), {"actor": specialist}), st_review)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.outcome == "block"
}

test_review_by_a_service_with_the_reviewers_id if {
	d := decide(object.union(review("ACCEPT", gates, []), {"actor": system("reviewer")}), st_review)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	count(d.events) == 0
}

test_review_identity_twin_the_reviewer_agent if {
	d := decide(review("ACCEPT", gates, []), st_review)
	count(d.reasons) == 0
	d.outcome == "allow"
	status_events(d) == {"RESPONSE_DRAFT v1 approved", "ORDER_RESULT v1 approved"}
}

# --- freshness at review: from the retrieval time, not the record time --------------------

with_result(st, content) := with_artifacts(st, {"ORDER_RESULT": one("ORDER_RESULT", "under_review", content)})

test_accept_refused_on_a_result_retrieved_long_ago if {
	# Recorded a minute ago, but read from the order system 20 hours ago.
	d := decide(review("ACCEPT", gates, []), with_result(st_review, object.union(order_content, {"retrieved_at": "2026-03-09T14:00:00Z"})))
	codes(d) == {"STALE_EVIDENCE"}
	contains(d.reasons[0].message, "retrieved at 2026-03-09T14:00:00Z")
}

test_accept_twin_retrieved_within_a_results_life if {
	d := decide(review("ACCEPT", gates, []), with_result(st_review, object.union(order_content, {"retrieved_at": "2026-03-10T09:30:00Z"})))
	count(d.reasons) == 0
	d.outcome == "allow"
}

test_accept_refused_once_the_estimate_has_passed if {
	past := object.union(order_content, {"estimated_delivery": "2026-03-09"})
	claims := object.union(draft_content, {"order_claims": {"order_status": "in_transit", "estimated_delivery": "2026-03-09"}})
	st := with_artifacts(with_result(st_review, past), {"RESPONSE_DRAFT": one("RESPONSE_DRAFT", "under_review", claims)})
	d := decide(review("ACCEPT", gates, []), st)
	codes(d) == {"STALE_EVIDENCE"}
	contains(d.reasons[0].message, "has passed")
}

test_accept_twin_estimate_today if {
	today := object.union(order_content, {"estimated_delivery": "2026-03-10"})
	claims := object.union(draft_content, {"order_claims": {"order_status": "in_transit", "estimated_delivery": "2026-03-10"}})
	st := with_artifacts(with_result(st_review, today), {"RESPONSE_DRAFT": one("RESPONSE_DRAFT", "under_review", claims)})
	d := decide(review("ACCEPT", gates, []), st)
	count(d.reasons) == 0
}

# --- a verdict agrees with its own gates and defects ---------------------------------------

test_accept_with_a_defect if {
	every severity in ["S1", "S2", "S3"] {
		d := decide(review("ACCEPT", gates, [object.union(defect("D-1", "no_unsupported_promise"), {"severity": severity})]), st_review)
		"VERDICT_INCONSISTENT" in codes(d)
		d.outcome == "block"
		some r in d.reasons
		r.code == "VERDICT_INCONSISTENT"
		r.path == "defects[0]"
		count(d.events) == 0
	}
}

test_accept_with_a_defect_twin_without if {
	d := decide(review("ACCEPT", gates, []), st_review)
	not "VERDICT_INCONSISTENT" in codes(d)
	d.outcome == "allow"
}

test_verdict_inconsistent_defect_citing_a_passed_check if {
	d := decide(review("REVISE", gates, [defect("D-1", "answers_question")]), st_review)
	"VERDICT_INCONSISTENT" in codes(d)
	d.outcome == "block"
	some r in d.reasons
	r.code == "VERDICT_INCONSISTENT"
	r.path == "defects[0].check"
	contains(r.message, "reports as passed")
}

test_subjective_defect_twin_citing_a_failed_check if {
	d := decide(review("REVISE", failing("answers_question"), [defect("D-1", "answers_question")]), st_review)
	not "SUBJECTIVE_DEFECT" in codes(d)
	d.outcome == "revise"
}

test_subjective_defect_origin_not_judged if {
	d := decide(review("REVISE", failing("answers_question"), [object.union(defect("D-1", "answers_question"), {"origin": "CASE"})]), st_review)
	"SUBJECTIVE_DEFECT" in codes(d)
	some r in d.reasons
	r.path == "defects[0].origin"
}

test_subjective_defect_origin_downstream if {
	wrong := {"id": "D-1", "severity": "S2", "artifact": "ORDER_RESULT", "origin": "RESPONSE_DRAFT", "check": "evidence_supported", "description": "Status not supported"}
	d := decide(review("REVISE", failing("evidence_supported"), [wrong]), st_review)
	"SUBJECTIVE_DEFECT" in codes(d)
}

test_subjective_defect_twin_origin_upstream if {
	upstream := object.union(defect("D-1", "evidence_supported"), {"origin": "ORDER_RESULT"})
	d := decide(review("REVISE", failing("evidence_supported"), [upstream]), st_review)
	not "SUBJECTIVE_DEFECT" in codes(d)
	d.outcome == "revise"
}

# A gate result names one of the Reviewer's checks.
test_review_scope_gate_result_of_no_check if {
	d := decide(review("ACCEPT", array.concat(gates, [{"id": "made_up_check", "passed": true}]), []), st_review)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
	d.reasons[0].path == "gates[5].id"
	d.reasons[0].title == "Gate result of no Reviewer check"
}

test_review_scope_gate_result_twin_reviewer_checks if {
	not "REVIEW_SCOPE_INVALID" in codes(decide(review("ACCEPT", gates, []), st_review))
}

# Two defects of one review with one id would be recorded as one (core's rule).
test_defect_id_twice_in_one_review if {
	d := decide(review("REVISE", failing("answers_question"), [defect("D-1", "answers_question"), defect("D-1", "answers_question")]), st_review)
	"ID_NOT_UNIQUE" in codes(d)
	d.outcome == "block"
}
