# People's decisions at the approval gates, the validation step and human review.
package handoff.assessment_test

test_soa_approved if {
	d := decide(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	d.outcome == "allow"
	d.status_after == "EVIDENCE"
	next_agents(d) == {"evidence_analyst"}
	status_events(d) == {"STATEMENT_OF_APPLICABILITY v1 approved"}
	d.next[0].context.may_know.approval_decision.decision == "APPROVE"
}

test_findings_approved if {
	d := decide(approval(reviewer, "APPROVE", "FINDINGS_APPROVAL", [ref("GAP_ANALYSIS", 1)]), st_findings_approval)
	d.status_after == "MATURITY"
	next_agents(d) == {"maturity_assessor"}
}

test_report_approved_completes if {
	d := decide(approval(lead, "APPROVE", "REPORT_APPROVAL", [ref("ASSESSMENT_REPORT", 1)]), st_report_approval)
	d.outcome == "allow"
	d.status_after == "COMPLETED"
	d.next == []
}

test_report_needs_the_lead if {
	d := decide(approval(reviewer, "APPROVE", "REPORT_APPROVAL", [ref("ASSESSMENT_REPORT", 1)]), st_report_approval)
	d.outcome == "block"
	"APPROVAL_REQUIRED" in codes(d)
}

test_approval_invalid_stage if {
	d := decide(approval(reviewer, "APPROVE", "FINDINGS_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	codes(d) == {"APPROVAL_INVALID"}
}

test_approval_invalid_twin_stage if {
	d := decide(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	not "APPROVAL_INVALID" in codes(d)
}

test_approval_incomplete_no_version if {
	d := decide(approval(reviewer, "APPROVE", "VALIDATION", []), st_validation)
	codes(d) == {"APPROVAL_INCOMPLETE"}
}

test_approval_incomplete_revision_without_types if {
	d := decide(approval(lead, "REQUEST_REVISION", "HUMAN_REVIEW", []), st_human_review)
	codes(d) == {"APPROVAL_INCOMPLETE"}
}

test_approval_incomplete_twin_named if {
	d := decide(approval(reviewer, "APPROVE", "VALIDATION", [ref("EVIDENCE_ASSESSMENT", 1)]), st_validation)
	not "APPROVAL_INCOMPLETE" in codes(d)
	d.outcome == "allow"
	d.status_after == "GAPS"
	status_events(d) == {"EVIDENCE_ASSESSMENT v1 approved"}
}

test_revision_requested_at_a_gate if {
	d := decide(approval(reviewer, "REQUEST_REVISION", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	d.outcome == "revise"
	codes(d) == {"REVISION_REQUESTED"}
	d.status_after == "SOA"
	d.revise == [{"artifact": "STATEMENT_OF_APPLICABILITY", "producer": "soa_architect", "defects": []}]
	status_events(d) == {"STATEMENT_OF_APPLICABILITY v1 revision_required"}
	recorded(d) == {"REWORK_ORDER v1 approved"}
	counters(d)["rework_pending/soa_architect"] == 1
	c := record_content(d, "REWORK_ORDER")
	c.kind == "revision_request"
	c.reason == "Reviewed"
	c.returned == ref("STATEMENT_OF_APPLICABILITY", 1)
}

test_revision_requested_at_validation if {
	d := decide(approval(reviewer, "REQUEST_REVISION", "VALIDATION", [ref("EVIDENCE_ASSESSMENT", 1)]), st_validation)
	d.status_after == "EVIDENCE"
	next_agents(d) == {"evidence_analyst"}
}

test_revision_requested_at_human_review if {
	r := with_req(approval(lead, "REQUEST_REVISION", "HUMAN_REVIEW", []), {"revise": ["EVIDENCE_ASSESSMENT", "GAP_ANALYSIS"]})
	d := decide(r, add(st_human_review, [version("EVIDENCE_ASSESSMENT", 1, "draft")]))
	d.outcome == "revise"
	d.status_after == "EVIDENCE"
	counters(d)["retry/evidence_analysis"] == 0
	status_events(d) == {"EVIDENCE_ASSESSMENT v1 revision_required"}
}

test_revision_twin_approve if {
	d := decide(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	not "REVISION_REQUESTED" in codes(d)
}

test_human_review_resumes_with_a_fresh_budget if {
	d := decide(approval(lead, "APPROVE", "HUMAN_REVIEW", []), st_human_review)
	d.outcome == "allow"
	d.status_after == "EVIDENCE"
	next_agents(d) == {"evidence_analyst"}
	counters(d) == {"retry/evidence_analysis": 0, "retry_pending/evidence_analysis": 0}
}

test_human_rejected if {
	d := decide(approval(reviewer, "REJECT", "FINDINGS_APPROVAL", [ref("GAP_ANALYSIS", 1)]), st_findings_approval)
	d.outcome == "fail"
	codes(d) == {"HUMAN_REJECTED"}
	d.status_after == "REJECTED"
	status_events(d) == {"GAP_ANALYSIS v1 rejected"}
}

test_human_rejected_twin_approve if {
	d := decide(approval(reviewer, "APPROVE", "FINDINGS_APPROVAL", [ref("GAP_ANALYSIS", 1)]), st_findings_approval)
	not "HUMAN_REJECTED" in codes(d)
}

test_agent_may_not_approve if {
	d := decide(approval(agent("soa_architect"), "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	d.outcome == "block"
	"UNAUTHORIZED_SUBJECT" in codes(d)
}

# --- a person's decision is about what waits for it, and agrees with itself -------------

test_approval_names_another_artifact_too if {
	d := decide(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1), ref("FRAMEWORK_MAPPING", 1)]), st_soa_approval)
	codes(d) == {"APPROVAL_INVALID"}
	some r in d.reasons
	r.path == "artifacts[1]"
}

test_approval_twin_names_the_waiting_version if {
	d := decide(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	codes(d) == set()
	d.outcome == "allow"
}

test_human_review_decision_names_an_artifact if {
	st := add(st_human_review, [version("GAP_ANALYSIS", 1, "draft")])
	d := decide(approval(lead, "APPROVE", "HUMAN_REVIEW", [ref("GAP_ANALYSIS", 1)]), st)
	codes(d) == {"APPROVAL_INVALID"}
}

test_human_review_twin_names_the_stage_only if {
	d := decide(approval(lead, "APPROVE", "HUMAN_REVIEW", []), st_human_review)
	codes(d) == set()
	d.outcome == "allow"
}

test_approve_with_types_to_revise if {
	r := with_req(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), {"revise": ["STATEMENT_OF_APPLICABILITY"]})
	d := decide(r, st_soa_approval)
	codes(d) == {"APPROVAL_INVALID"}
}

test_revision_at_a_gate_names_another_type if {
	r := with_req(approval(reviewer, "REQUEST_REVISION", "FINDINGS_APPROVAL", [ref("GAP_ANALYSIS", 1)]), {"revise": ["EVIDENCE_ASSESSMENT"]})
	d := decide(r, st_findings_approval)
	codes(d) == {"APPROVAL_INVALID"}
}

test_revision_at_a_gate_twin_names_the_waiting_type if {
	r := with_req(approval(reviewer, "REQUEST_REVISION", "FINDINGS_APPROVAL", [ref("GAP_ANALYSIS", 1)]), {"revise": ["GAP_ANALYSIS"]})
	d := decide(r, st_findings_approval)
	codes(d) == {"REVISION_REQUESTED"}
	d.outcome == "revise"
}

# --- identity: type and id, roles for people ---------------------------------------------

test_start_by_a_person_without_a_role if {
	d := decide(with_req(start, {"actor": {"type": "human", "id": "visitor", "roles": ["auditor"]}}), state("INTAKE", {}))
	codes(d) == {"UNAUTHORIZED_SUBJECT", "SECURITY_AUDIT"}
}

test_start_twin_by_a_person_with_a_role if {
	d := decide(with_req(start, {"actor": lead}), state("INTAKE", {}))
	codes(d) == set()
	d.outcome == "allow"
}

test_failure_reported_by_another_agent if {
	d := decide(with_req(failure("evidence_analyst", "invalid_output", "schema"), {"actor": agent("gap_analyst")}), st_evidence)
	codes(d) == {"SOURCE_NOT_AUTHORIZED", "SECURITY_AUDIT"}
}

test_failure_reported_by_a_person if {
	d := decide(with_req(failure("evidence_analyst", "invalid_output", "schema"), {"actor": reviewer}), st_evidence)
	codes(d) == {"UNAUTHORIZED_SUBJECT", "SECURITY_AUDIT"}
}

test_failure_twin_reported_by_the_agent_itself if {
	d := decide(with_req(failure("evidence_analyst", "invalid_output", "schema"), {"actor": agent("evidence_analyst")}), st_evidence)
	codes(d) == set()
	d.outcome == "retry"
}

test_resolution_records_granted_roles_only if {
	r := with_req(resolution(reviewer, conflict_id, null), {"actor": {"type": "human", "id": "ana.souza", "roles": ["assessment_reviewer", "ciso"]}})
	d := decide(r, st_conflict)
	record_content(d, "RESOLUTION_RECORD").roles == ["assessment_reviewer"]
}

# Identity is (type, id): a person carrying an agent's id is refused for the confusion
# (core), never taken for the agent.
test_person_named_like_the_producer if {
	d := decide(approval({"type": "human", "id": "soa_architect", "roles": ["assessment_reviewer"]}, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	codes(d) == {"UNAUTHORIZED_SUBJECT", "SECURITY_AUDIT"}
}

test_producing_agent_may_not_approve if {
	d := decide(approval(agent("soa_architect"), "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	"SELF_APPROVAL" in codes(d)
	d.outcome == "block"
}
