# Who may act when, failures and cancellation, and failing closed: an invalid request,
# a missing snapshot or missing tables never let a request through.
package handoff.campaign_test

import data.handoff.campaign

test_out_of_sequence_handoff if {
	d := decide(research_handoff(2, research), st_qa)
	codes(d) == {"OUT_OF_SEQUENCE"}
	d.outcome == "block"
	d.status_after == "QA"
	count(d.events) == 0
}

test_out_of_sequence_twin if {
	d := decide(research_handoff(1, research), st_research)
	not "OUT_OF_SEQUENCE" in codes(d)
}

test_out_of_sequence_review_by_producer if {
	req := object.union(qa(1, "ACCEPT", []), {"actor": agent("copywriter")})
	d := decide(req, st_qa)
	"OUT_OF_SEQUENCE" in codes(d)
	"SOURCE_NOT_AUTHORIZED" in codes(d)
}

test_out_of_sequence_resolution if {
	req := object.union(envelope("resolution", approver), {"conflict_id": "c-1", "rationale": "No conflict"})
	d := decide(req, st_qa)
	codes(d) == {"CONFLICT_NOT_FOUND", "OUT_OF_SEQUENCE"}
}

test_start_by_agent if {
	d := decide(object.union(start, {"actor": agent("research_agent")}), state("INTAKE", {}))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_start_by_person_twin if {
	d := decide(object.union(start, {"actor": approver}), state("INTAKE", {}))
	count(d.reasons) == 0
	d.status_after == "RESEARCH"
}

test_cancel_by_person_without_approving_role if {
	req := object.union(envelope("cancel", {"type": "human", "id": "client.contact", "roles": ["client"]}), {"reason": "Stop"})
	d := decide(req, st_qa)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_cancel_twin_by_host if {
	d := decide(object.union(envelope("cancel", system), {"reason": "Host shutdown"}), st_qa)
	count(d.reasons) == 0
	d.status_after == "CANCELLED"
}

test_nothing_after_terminal if {
	st := object.union(state("FAILED_SAFE", st_qa.artifacts), {"terminal": true})
	d := decide(visual_handoff(2, [ref("STRATEGY_BRIEF", 1)], visual), st)
	codes(d) == {"WORKFLOW_TERMINAL"}
}

# --- failures -----------------------------------------------------------------------------

test_failure_retried_with_backoff if {
	d := decide(failure("copy", "copywriter", "timeout"), st_production)
	d.outcome == "retry"
	d.status_after == "PRODUCTION"
	d.retry == {"attempt": 2, "max_attempts": 3, "delay_ms": 4000, "task": "copy"}
	d.events == [
		{"type": "counter", "name": "retry/copy", "delta": 1},
		{"type": "counter", "name": "retry_due_ms/copy", "value": now_ms + 4000},
	]
	next_agents(d) == {"copywriter"}
}

test_failure_rate_limit_honours_retry_after if {
	d := decide(object.union(failure("visual_prompts", "visual_prompt_agent", "rate_limit"), {"retry_after_ms": 9000}), st_production)
	d.retry.delay_ms == 9000
}

test_failure_exhausted_escalates if {
	d := decide(failure("copy", "copywriter", "timeout"), with_state(st_production, {"counters": {"retry/copy": 2}}))
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	codes(d) == {"RETRY_EXHAUSTED"}
	next_agents(d) == {"campaign_approver"}
}

test_failure_not_retryable_escalates if {
	d := decide(failure("research", "research_agent", "authorization"), st_research)
	d.status_after == "ESCALATED"
	codes(d) == {"NOT_RETRYABLE"}
}

test_failure_of_a_task_not_routed if {
	d := decide(failure("delivery", "delivery_agent", "timeout"), st_production)
	codes(d) == {"OUT_OF_SEQUENCE"}
}

# --- failing closed -----------------------------------------------------------------------

test_invalid_request_gets_core_reasons_only if {
	inp := object.union(input_of(copy_handoff(1, [], copy), st_production), {"validation": {"errors": [{"code": "SCHEMA_INVALID", "path": "output.content.offer", "message": "offer: incomplete value"}]}})
	d := campaign.decision with input as inp
	codes(d) == {"SCHEMA_INVALID"}
}

test_no_state_blocks if {
	d := campaign.decision with input as object.union(input_of(copy_handoff(1, [ref("STRATEGY_BRIEF", 1)], copy), st_production), {"state": null})
	d.outcome == "block"
	"WORKFLOW_NOT_FOUND" in codes(d)
	d.status_after == "NONE"
	every r in d.reasons {
		not r.code in {"OUT_OF_SEQUENCE", "UNVERSIONED_DEPENDENCY", "VERSION_MISMATCH", "STRATEGY_DEVIATION"}
	}
}

test_missing_tables_block if {
	d := decide_with(copy_handoff(1, [ref("STRATEGY_BRIEF", 1)], copy), st_production, {})
	d.outcome == "block"
	"OUT_OF_SEQUENCE" in codes(d)
}

test_missing_routing_table_blocks if {
	d := decide_with(copy_handoff(1, [ref("STRATEGY_BRIEF", 1)], copy), st_production, json.remove(campaign_contract, ["workflow/actors"]))
	codes(d) == {"OUT_OF_SEQUENCE"}
}

test_missing_checks_table_refuses_every_defect if {
	d := decide_with(qa(1, "REVISE", [d1]), st_qa, json.remove(campaign_contract, ["artifacts/COPY_PACKAGE/gates"]))
	"SUBJECTIVE_DEFECT" in codes(d)
	d.outcome == "block"
}

test_missing_cycle_limit_never_loops if {
	d := decide_with(qa(1, "REVISE", [d1]), st_qa, json.remove(campaign_contract, ["limits/max_review_cycles"]))
	d.outcome == "block"
	"REVIEW_CYCLES_EXHAUSTED" in codes(d)
}

test_missing_contexts_pass_nothing if {
	d := decide_with(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), st_strategy_approval, json.remove(campaign_contract, ["context"]))
	every n in d.next {
		n.context == {"must_know": {}, "may_know": {}}
	}
}

test_missing_strategy_blocks_production if {
	st := state("PRODUCTION", {"RESEARCH_BRIEF": brief_v1("approved")})
	d := decide(copy_handoff(1, [ref("STRATEGY_BRIEF", 1)], copy), st)
	d.outcome == "block"
	"VERSION_MISMATCH" in codes(d)
}

# A handoff the status routes (qa_agent/qa_review in QA) but no campaign rule decides: the
# message reads "a handoff request".
test_no_rule_message_article if {
	req := handoff("qa_agent", "copywriter", "qa_review", [], output("QA_REPORT", 2, production_report))
	d := decide(req, st_qa)
	d.outcome == "block"
	some r in d.reasons
	r.code == "OUT_OF_SEQUENCE"
	contains(r.message, "decides a handoff request in status QA")
}

# --- identity is (type, id); a person's roles come from the pack's roles table -----------

test_review_by_person_carrying_the_qa_agent_id if {
	req := object.union(qa(1, "ACCEPT", []), {"actor": {"type": "human", "id": "qa_agent", "roles": ["campaign_approver"]}})
	d := decide(req, st_qa)
	"UNAUTHORIZED_SUBJECT" in codes(d)
	not "OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
	count(d.events) == 0
}

test_review_by_system_carrying_the_qa_agent_id if {
	req := object.union(qa(1, "ACCEPT", []), {"actor": {"type": "system", "id": "qa_agent"}})
	d := decide(req, st_qa)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_review_twin_by_the_agent if {
	d := decide(qa(1, "ACCEPT", []), st_qa)
	not "UNAUTHORIZED_SUBJECT" in codes(d)
	d.status_after == "HUMAN_APPROVAL"
}

test_outcome_by_an_agent if {
	req := object.union(outcome("client-package@v1", "acknowledged"), {"actor": agent("delivery_agent")})
	d := decide(req, st_delivering("pending"))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.status_after == "DELIVERY"
}

test_outcome_by_a_person_without_a_pack_role if {
	req := object.union(outcome("client-package@v1", "acknowledged"), {"actor": {"type": "human", "id": "someone", "roles": ["marketing_lead"]}})
	d := decide(req, st_delivering("pending"))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_outcome_twin_by_the_client if {
	req := object.union(outcome("client-package@v1", "acknowledged"), {"actor": {"type": "human", "id": "client.contact", "roles": ["client"]}})
	d := decide(req, st_delivering("pending"))
	count(d.reasons) == 0
	d.status_after == "COMPLETED"
}

test_failure_reported_for_another_agent if {
	req := object.union(failure("visual_prompts", "visual_prompt_agent", "authorization"), {"actor": agent("copywriter")})
	d := decide(req, st_production)
	"UNAUTHORIZED_SUBJECT" in codes(d)
	d.outcome == "block"
}

test_failure_twin_own_failure if {
	req := object.union(failure("visual_prompts", "visual_prompt_agent", "timeout"), {"actor": agent("visual_prompt_agent")})
	d := decide(req, st_production)
	count(d.reasons) == 0
	d.outcome == "retry"
}

test_failure_reported_by_a_person_without_approving_role if {
	req := object.union(failure("copy", "copywriter", "timeout"), {"actor": {"type": "human", "id": "client.contact", "roles": ["client"]}})
	d := decide(req, st_production)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_start_by_person_without_a_pack_role if {
	d := decide(object.union(start, {"actor": {"type": "human", "id": "someone", "roles": ["admin"]}}), state("INTAKE", {}))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

# The same failure posted again before its retry could run repeats the one counted.
test_failure_before_its_retry_was_due if {
	st := with_state(st_production, {"counters": {"retry/copy": 1, "retry_due_ms/copy": now_ms + 4000}})
	d := decide(failure("copy", "copywriter", "timeout"), st)
	codes(d) == {"FAILURE_REPEATED"}
	d.outcome == "block"
	count(d.events) == 0
}

test_failure_twin_after_its_retry_was_due if {
	st := with_state(st_production, {"counters": {"retry/copy": 1, "retry_due_ms/copy": now_ms}})
	d := decide(failure("copy", "copywriter", "timeout"), st)
	count(d.reasons) == 0
	d.retry.attempt == 3
}
