# Human approval before delivery: APPROVE, REQUEST (targeted) REVISION, REJECT, and a
# person's answer to an escalation.
package handoff.campaign_test

st_escalated_qa := state("ESCALATED", st_human.artifacts)

test_approval_incomplete_without_qa_result if {
	d := decide(approval("APPROVE", [ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1)], []), st_human)
	codes(d) == {"APPROVAL_INCOMPLETE"}
	d.reasons[0].gate == "CTRL-5"
}

test_approval_incomplete_with_research_report if {
	st := state("HUMAN_APPROVAL", object.union(st_qa.artifacts, {"QA_REPORT": history("QA_REPORT", [report_v1])}))
	d := decide(approval("APPROVE", [ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1), ref("QA_REPORT", 1)], []), st)
	codes(d) == {"APPROVAL_INCOMPLETE"}
}

test_approval_incomplete_returned_version if {
	st := state("HUMAN_APPROVAL", object.union(st_human.artifacts, {"COPY_PACKAGE": history("COPY_PACKAGE", [copy_v(1, "revision_required")])}))
	d := decide(approval("APPROVE", final_refs, []), st)
	codes(d) == {"APPROVAL_INCOMPLETE"}
}

test_approval_incomplete_twin if {
	d := decide(approval("APPROVE", final_refs, []), st_human)
	not "APPROVAL_INCOMPLETE" in codes(d)
	d.outcome == "allow"
}

test_final_approval_closes_accepted_defects if {
	s1 := defect("D-3", "S1", "COPY_PACKAGE", "cta_compliance")
	d := decide(approval("APPROVE", final_refs, []), with_state(st_human, {"defects": {"D-3": {"defect": s1, "status": "open"}}}))
	{"type": "defect", "defect": s1, "status": "closed"} in d.events
}

test_final_approval_of_another_stage if {
	d := decide(object.union(approval("APPROVE", final_refs, []), {"stage": "STRATEGY_APPROVAL"}), st_human)
	codes(d) == {"APPROVAL_INVALID"}
}

test_final_approval_stage_twin if {
	d := decide(object.union(approval("APPROVE", final_refs, []), {"stage": "HUMAN_APPROVAL"}), st_human)
	count(d.reasons) == 0
}

test_self_approval if {
	req := object.union(approval("APPROVE", final_refs, []), {"actor": {"type": "agent", "id": "copywriter"}})
	d := decide(req, st_human)
	codes(d) == {"SELF_APPROVAL", "UNAUTHORIZED_SUBJECT"}
}

# A person carrying the copywriter's id is not the copywriter, and is refused for the
# confusion: identities are typed.
test_person_with_the_producers_id if {
	req := object.union(approval("APPROVE", final_refs, []), {"actor": {"type": "human", "id": "copywriter", "roles": ["campaign_approver"]}})
	d := decide(req, st_human)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_revision_requested_visual_only if {
	d := decide(approval("REQUEST_REVISION", [ref("VISUAL_PACKAGE", 1)], ["VISUAL_PACKAGE"]), st_human)
	d.outcome == "revise"
	d.status_after == "TARGETED_REVISION"
	codes(d) == {"REVISION_REQUESTED"}
	d.revise == [{"artifact": "VISUAL_PACKAGE", "producer": "visual_prompt_agent", "defects": []}]
	status_events(d) == {"VISUAL_PACKAGE v1 revision_required"}
	recorded(d) == {"APPROVAL_RECORD v2 approved"}
	next_agents(d) == {"visual_prompt_agent"}
	ctx := d.next[0].context.must_know
	ctx.APPROVAL_RECORD == {"revise": ["VISUAL_PACKAGE"], "comment": "Reviewed"}
	ctx.STRATEGY_BRIEF.core_proposition == strategy.core_proposition
}

test_revision_record_content if {
	d := decide(approval("REQUEST_REVISION", [ref("VISUAL_PACKAGE", 1)], ["VISUAL_PACKAGE"]), st_human)
	some e in d.events
	e.type == "artifact_recorded"
	e.content.decision == "REQUEST_REVISION"
	e.content.stage == "HUMAN_APPROVAL"
	e.content.approver == "maria.lopez"
	e.content.decided_at == now
	some a in d.events
	a.type == "approval_recorded"
	a.stage == "HUMAN_APPROVAL"
}

test_revision_of_the_strategy_at_final_approval if {
	d := decide(object.union(approval("REQUEST_REVISION", [], ["STRATEGY_BRIEF"]), {"stage": "HUMAN_APPROVAL"}), st_human)
	d.status_after == "STRATEGY"
	next_agents(d) == {"strategy_agent"}
	status_events(d) == set()
}

test_revision_requested_twin_approve if {
	d := decide(approval("APPROVE", final_refs, []), st_human)
	not "REVISION_REQUESTED" in codes(d)
}

test_revision_target_invalid_empty if {
	d := decide(approval("REQUEST_REVISION", [ref("VISUAL_PACKAGE", 1)], []), st_human)
	codes(d) == {"REVISION_TARGET_INVALID"}
}

test_revision_target_invalid_not_revisable if {
	d := decide(object.union(approval("REQUEST_REVISION", [], ["QA_REPORT"]), {"stage": "HUMAN_APPROVAL"}), st_human)
	codes(d) == {"REVISION_TARGET_INVALID"}
}

test_revision_target_invalid_approved_version if {
	d := decide(object.union(approval("REQUEST_REVISION", [], ["COPY_PACKAGE"]), {"stage": "ESCALATED"}), state("ESCALATED", st_delivery.artifacts))
	codes(d) == {"REVISION_TARGET_INVALID"}
}

test_revision_target_invalid_nothing_to_return if {
	d := decide(object.union(approval("REQUEST_REVISION", [], ["COPY_PACKAGE"]), {"stage": "ESCALATED"}), state("ESCALATED", st_validation.artifacts))
	codes(d) == {"REVISION_TARGET_INVALID"}
}

test_revision_target_twin if {
	d := decide(object.union(approval("REQUEST_REVISION", [], ["COPY_PACKAGE"]), {"stage": "HUMAN_APPROVAL"}), st_human)
	not "REVISION_TARGET_INVALID" in codes(d)
}

test_final_reject_fails_safe if {
	d := decide(approval("REJECT", final_refs, []), st_human)
	d.outcome == "fail"
	d.status_after == "FAILED_SAFE"
	codes(d) == {"HUMAN_REJECTED"}
	status_events(d) == {"COPY_PACKAGE v1 rejected", "VISUAL_PACKAGE v1 rejected"}
	recorded(d) == {"APPROVAL_RECORD v2 approved"}
}

test_approval_out_of_sequence if {
	d := decide(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), st_production)
	codes(d) == {"OUT_OF_SEQUENCE"}
}

# --- escalation ---------------------------------------------------------------------------

test_escalation_approve_final_package if {
	d := decide(approval("APPROVE", final_refs, []), st_escalated_qa)
	d.outcome == "allow"
	d.status_after == "DELIVERY"
	some e in d.events
	e.type == "approval_recorded"
	e.stage == "HUMAN_APPROVAL"
}

test_escalation_approve_research if {
	d := decide(approval("APPROVE", [ref("RESEARCH_BRIEF", 1)], []), state("ESCALATED", st_validation.artifacts))
	d.outcome == "allow"
	d.status_after == "STRATEGY"
	status_events(d) == {"RESEARCH_BRIEF v1 approved"}
	next_agents(d) == {"strategy_agent"}
}

test_escalation_approve_returned_research if {
	d := decide(approval("APPROVE", [ref("RESEARCH_BRIEF", 1)], []), state("ESCALATED", {"RESEARCH_BRIEF": brief_v1("revision_required")}))
	codes(d) == {"APPROVAL_INCOMPLETE"}
}

test_escalation_reapproval_after_delivery_failure if {
	d := decide(approval("APPROVE", final_refs, []), state("ESCALATED", st_delivery.artifacts))
	count(d.reasons) == 0
	d.status_after == "DELIVERY"
	recorded(d) == {"APPROVAL_RECORD v3 approved"}
}

test_escalation_revision_of_research if {
	d := decide(approval("REQUEST_REVISION", [ref("RESEARCH_BRIEF", 1)], ["RESEARCH_BRIEF"]), state("ESCALATED", st_validation.artifacts))
	d.status_after == "RESEARCH_REVISION"
	status_events(d) == {"RESEARCH_BRIEF v1 revision_required"}
	some e in d.events
	e.type == "approval_recorded"
	e.stage == "ESCALATED"
}

test_escalation_reject if {
	d := decide(object.union(approval("REJECT", [], []), {"stage": "ESCALATED"}), st_escalated_qa)
	d.status_after == "FAILED_SAFE"
}

# The approval record keeps the roles the pack grants, not every role claimed.
test_approval_record_keeps_granted_roles_only if {
	req := object.union(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), {"actor": {"type": "human", "id": "maria.lopez", "roles": ["ceo", "campaign_approver"]}})
	d := decide(req, st_strategy_approval)
	d.outcome == "allow"
	some e in d.events
	e.type == "artifact_recorded"
	e.ref.type == "APPROVAL_RECORD"
	e.content.roles == ["campaign_approver"]
}
