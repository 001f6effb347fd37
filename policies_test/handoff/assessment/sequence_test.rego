# Sequence: one agent works at a time, people decide in human statuses, only the host or
# a person starts and cancels.
package handoff.assessment_test

test_out_of_sequence_agent_of_another_step if {
	d := decide(mapping_handoff(mapping), st_controls)
	d.outcome == "block"
	"OUT_OF_SEQUENCE" in codes(d)
}

test_out_of_sequence_twin_agent_of_the_current_step if {
	d := decide(mapping_handoff(mapping), st_mapping)
	not "OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "allow"
}

test_out_of_sequence_review_kind if {
	r := object.union(envelope("review", agent("gap_analyst")), {"verdict": "ACCEPT", "artifacts": [ref("EVIDENCE_ASSESSMENT", 1)], "defects": [], "gates": []})
	d := decide(r, st_gaps)
	d.outcome == "block"
	"OUT_OF_SEQUENCE" in codes(d)
}

# The pack has no reviewing agent, and a review that contradicts itself is refused as
# one in every pack (core's rule, with the assessment's table): the reason says so
# beside OUT_OF_SEQUENCE.
test_review_contradicting_itself if {
	d1 := {"id": "D-1", "severity": "S1", "artifact": "EVIDENCE_ASSESSMENT", "description": "an item is not examined"}
	r := object.union(envelope("review", agent("gap_analyst")), {"verdict": "ACCEPT", "artifacts": [ref("EVIDENCE_ASSESSMENT", 1)], "defects": [d1], "gates": []})
	d := decide(r, st_gaps)
	d.outcome == "block"
	"VERDICT_INCONSISTENT" in codes(d)
	rv := object.union(r, {"verdict": "REVISE", "defects": []})
	"VERDICT_INCONSISTENT" in codes(decide(rv, st_gaps))
}

test_review_contradicting_itself_twin if {
	r := object.union(envelope("review", agent("gap_analyst")), {"verdict": "ACCEPT", "artifacts": [ref("EVIDENCE_ASSESSMENT", 1)], "defects": [], "gates": []})
	not "VERDICT_INCONSISTENT" in codes(decide(r, st_gaps))
}

test_out_of_sequence_resolution_without_conflict_review if {
	d := decide(resolution(reviewer, conflict_id, ref("EVIDENCE_ASSESSMENT", 1)), st_gaps)
	"OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
}

test_no_rule_decides_fails_closed if {
	d := decide(approval(reviewer, "MAYBE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	d.outcome == "block"
	codes(d) == {"OUT_OF_SEQUENCE"}
	startswith(d.reasons[0].message, "no rule of the assessment pack decides")
}

test_no_rule_twin_known_decision if {
	d := decide(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	not "OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "allow"
}

test_approval_bypass_handoff_at_a_gate if {
	d := decide(evidence_handoff(evidence), st_soa_approval)
	d.outcome == "block"
	"APPROVAL_BYPASS" in codes(d)
	"ARTIFACT_NOT_APPROVED" in codes(d)
	not "OUT_OF_SEQUENCE" in codes(d)
	some r in d.reasons
	r.code == "APPROVAL_BYPASS"
	r.gate == "GR-APPROVAL"
}

test_approval_bypass_handoff_at_the_validation_step if {
	d := decide(gap_handoff(gaps), st_validation)
	"APPROVAL_BYPASS" in codes(d)
}

test_approval_bypass_twin_after_the_gate if {
	d := decide(evidence_handoff(evidence), st_evidence)
	not "APPROVAL_BYPASS" in codes(d)
	d.outcome == "allow"
}

test_human_review_required_blocks_agent_work if {
	d := decide(evidence_handoff(evidence), st_human_review)
	d.outcome == "block"
	codes(d) == {"HUMAN_REVIEW_REQUIRED"}
}

test_human_review_required_blocks_failures if {
	d := decide(failure("evidence_analyst", "timeout", "tool_transient"), st_human_review)
	d.outcome == "block"
	"HUMAN_REVIEW_REQUIRED" in codes(d)
}

test_human_review_required_twin_work_resumed if {
	d := decide(evidence_handoff(evidence), st_evidence)
	not "HUMAN_REVIEW_REQUIRED" in codes(d)
}

test_start_by_an_agent if {
	d := decide(with_req(start, {"actor": agent("knowledge_steward")}), state("INTAKE", {}))
	d.outcome == "block"
	"UNAUTHORIZED_SUBJECT" in codes(d)
}

test_start_by_a_person if {
	d := decide(with_req(start, {"actor": lead}), state("INTAKE", {}))
	not "UNAUTHORIZED_SUBJECT" in codes(d)
	d.outcome == "allow"
}

test_cancel_by_a_person_without_a_role if {
	d := decide(cancel({"type": "human", "id": "visitor"}), st_gaps)
	d.outcome == "block"
	"UNAUTHORIZED_SUBJECT" in codes(d)
	"SECURITY_AUDIT" in codes(d)
}

test_cancel_twin_reviewer if {
	d := decide(cancel(reviewer), st_gaps)
	not "UNAUTHORIZED_SUBJECT" in codes(d)
	d.status_after == "CANCELLED"
}

test_start_for_another_assessment if {
	d := decide(with_req(start, {"assessment_id": "asm-2025-isms"}), state("INTAKE", {}))
	d.outcome == "block"
	"SCOPE_MISMATCH" in codes(d)
}

test_start_twin_same_assessment if {
	d := decide(start, state("INTAKE", {}))
	not "SCOPE_MISMATCH" in codes(d)
}

test_terminal_workflow_accepts_nothing if {
	d := decide(cancel(lead), with_state(set_status(st_gaps, "REJECTED"), {"terminal": true}))
	codes(d) == {"WORKFLOW_TERMINAL"}
}
