# QA: contract checks only, S1/S2/S3, affected artifacts only, at most two cycles.
package handoff.campaign_test

test_s2_returns_affected_artifact_only if {
	d := decide(qa(1, "REVISE", [d1]), st_qa)
	d.outcome == "revise"
	d.status_after == "TARGETED_REVISION"
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.revise == [{"artifact": "COPY_PACKAGE", "producer": "copywriter", "defects": ["D-1"]}]
	status_events(d) == {"COPY_PACKAGE v1 revision_required", "QA_REPORT v1 superseded"}
	{"type": "counter", "name": "qa_cycles", "delta": 1} in d.events
	{"type": "defect", "defect": d1, "status": "open"} in d.events
	next_agents(d) == {"copywriter"}
	ctx := d.next[0].context.must_know
	object.keys(ctx) == {"STRATEGY_BRIEF", "QA_REPORT"}
	ctx.QA_REPORT.defects == [d1]
}

test_returned_producer_sees_only_its_defects if {
	d2 := defect("D-2", "S2", "VISUAL_PACKAGE", "product_consistency")
	d := decide(qa(1, "REVISE", [d1, d2]), st_qa)
	next_agents(d) == {"copywriter", "visual_prompt_agent"}
	some n in d.next
	n.agent == "visual_prompt_agent"
	n.context.must_know.QA_REPORT.defects == [d2]
	count(d.revise) == 2
}

test_s1_with_revise_is_targeted_repair if {
	d := decide(qa(1, "REVISE", [defect("D-3", "S1", "VISUAL_PACKAGE", "required_format")]), st_qa)
	d.outcome == "revise"
	d.status_after == "TARGETED_REVISION"
	d.revise == [{"artifact": "VISUAL_PACKAGE", "producer": "visual_prompt_agent", "defects": ["D-3"]}]
}

# A review's verdict agrees with its own gates and defects.
test_accept_with_s1_defect_is_inconsistent if {
	s1 := defect("D-3", "S1", "COPY_PACKAGE", "unsupported_claims")
	d := decide(qa(1, "ACCEPT", [s1]), st_qa)
	codes(d) == {"VERDICT_INCONSISTENT"}
	d.outcome == "block"
	d.reasons[0].path == "defects[0]"
	count(d.events) == 0
}

test_accept_with_s2_defect_is_inconsistent if {
	d := decide(qa(1, "ACCEPT", [d1]), st_qa)
	codes(d) == {"VERDICT_INCONSISTENT"}
	d.status_after == "QA"
}

with_gates(req, gates) := object.union(req, {"gates": gates})

test_accept_with_failed_gate_is_inconsistent if {
	d := decide(with_gates(qa(1, "ACCEPT", []), [{"id": "cta_compliance", "passed": true}, {"id": "unsupported_claims", "passed": false, "reason": "unsupported statistic"}]), st_qa)
	codes(d) == {"VERDICT_INCONSISTENT"}
	d.reasons[0].path == "gates[1]"
	count(d.events) == 0
}

test_accept_twin_every_gate_passed if {
	d := decide(with_gates(qa(1, "ACCEPT", []), [{"id": "cta_compliance", "passed": true}, {"id": "unsupported_claims", "passed": true}]), st_qa)
	count(d.reasons) == 0
	d.status_after == "HUMAN_APPROVAL"
	some e in d.events
	e.type == "artifact_recorded"
	e.content.result == "pass"
}

test_failed_gate_without_defect_is_inconsistent if {
	d := decide(with_gates(qa(1, "REVISE", [d1]), [{"id": "unsupported_claims", "passed": false}, {"id": "brand_restrictions", "passed": false}]), st_qa)
	codes(d) == {"VERDICT_INCONSISTENT"}
	contains(d.reasons[0].message, "brand_restrictions")
}

test_defect_on_passed_gate_is_inconsistent if {
	d := decide(with_gates(qa(1, "REVISE", [d1]), [{"id": "unsupported_claims", "passed": true}]), st_qa)
	codes(d) == {"VERDICT_INCONSISTENT"}
	d.reasons[0].path == "defects[0].check"
}

test_gate_passed_and_failed_is_inconsistent if {
	d := decide(with_gates(qa(1, "REVISE", [d1]), [{"id": "unsupported_claims", "passed": false}, {"id": "unsupported_claims", "passed": true}]), st_qa)
	"VERDICT_INCONSISTENT" in codes(d)
}

test_revise_twin_failed_gate_with_its_defect if {
	d := decide(with_gates(qa(1, "REVISE", [d1]), [{"id": "unsupported_claims", "passed": false}, {"id": "brand_restrictions", "passed": true}]), st_qa)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.status_after == "TARGETED_REVISION"
}

test_reject_without_s3_is_inconsistent if {
	d := decide(qa(1, "REJECT", [d1]), st_qa)
	codes(d) == {"VERDICT_INCONSISTENT"}
}

test_revise_with_s3_is_inconsistent if {
	d := decide(qa(1, "REVISE", [defect("D-9", "S3", "VISUAL_PACKAGE", "brand_restrictions")]), st_qa)
	codes(d) == {"VERDICT_INCONSISTENT"}
}

test_research_accept_with_defect_is_inconsistent if {
	d := decide(validation("ACCEPT", [defect("R-1", "S1", "RESEARCH_BRIEF", "required_sections")]), st_validation)
	codes(d) == {"VERDICT_INCONSISTENT"}
}

test_research_accept_twin_without_defect if {
	d := decide(validation("ACCEPT", []), st_validation)
	not "VERDICT_INCONSISTENT" in codes(d)
}

test_s3_fails_safe if {
	s3 := defect("D-9", "S3", "VISUAL_PACKAGE", "brand_restrictions")
	d := decide(qa(1, "REJECT", [s3]), st_qa)
	d.outcome == "fail"
	d.status_after == "FAILED_SAFE"
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.reasons[0].outcome == "fail"
	"VISUAL_PACKAGE v1 rejected" in status_events(d)
}

test_upstream_defect_goes_to_strategy if {
	up := object.union(defect("D-5", "S2", "COPY_PACKAGE", "strategy_alignment"), {"origin": "STRATEGY_BRIEF"})
	d := decide(qa(1, "REVISE", [up]), st_qa)
	d.outcome == "revise"
	d.status_after == "STRATEGY"
	d.revise == [{"artifact": "STRATEGY_BRIEF", "producer": "strategy_agent", "defects": ["D-5"]}]
	next_agents(d) == {"strategy_agent"}
	status_events(d) == {"QA_REPORT v1 superseded"}
	{"type": "counter", "name": "qa_cycles", "delta": 1} in d.events
	d.next[0].context.must_know.QA_REPORT.defects == [up]
}

test_upstream_defect_in_research if {
	up := object.union(defect("D-6", "S2", "COPY_PACKAGE", "unsupported_claims"), {"origin": "RESEARCH_BRIEF"})
	d := decide(qa(1, "REVISE", [up]), st_qa)
	d.status_after == "RESEARCH_REVISION"
	next_agents(d) == {"research_agent"}
}

test_same_defect_after_two_cycles_escalates if {
	d := decide(qa(3, "REVISE", [d1]), st_qa_cycle(2))
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	codes(d) == {"QUALITY_GATE_FAILED", "REVIEW_CYCLES_EXHAUSTED"}
	next_agents(d) == {"campaign_approver"}
	d.requires_human_review == true
	not "qa_cycles" in {e.name | some e in d.events; e.type == "counter"}
}

test_review_cycles_twin_second_cycle_allowed if {
	d := decide(qa(2, "REVISE", [d1]), st_qa_cycle(1))
	not "REVIEW_CYCLES_EXHAUSTED" in codes(d)
	d.status_after == "TARGETED_REVISION"
}

test_new_s2_after_two_cycles_escalates if {
	d := decide(qa(3, "REVISE", [defect("D-8", "S2", "VISUAL_PACKAGE", "brand_restrictions")]), st_qa_cycle(2))
	d.status_after == "ESCALATED"
	"REVIEW_CYCLES_EXHAUSTED" in codes(d)
}

test_repeated_defect_turned_s3_escalates if {
	d := decide(qa(3, "REJECT", [object.union(d1, {"severity": "S3"})]), st_qa_cycle(2))
	d.status_after == "ESCALATED"
}

test_new_s3_after_two_cycles_fails_safe if {
	d := decide(qa(3, "REJECT", [defect("D-9", "S3", "VISUAL_PACKAGE", "brand_restrictions")]), st_qa_cycle(2))
	d.status_after == "FAILED_SAFE"
}

# No third automatic loop: an S1-only return after two cycles escalates too, with its
# reason, and the report records escalate, never pass.
test_only_s1_after_two_cycles_escalates if {
	d := decide(qa(3, "REVISE", [defect("D-3", "S1", "COPY_PACKAGE", "unsupported_claims")]), st_qa_cycle(2))
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	codes(d) == {"QUALITY_GATE_FAILED", "REVIEW_CYCLES_EXHAUSTED"}
	some e in d.events
	e.type == "artifact_recorded"
	e.content.verdict == "REVISE"
	e.content.result == "escalate"
}

test_upstream_return_after_two_cycles_escalates if {
	up := object.union(defect("D-5", "S1", "COPY_PACKAGE", "strategy_alignment"), {"origin": "STRATEGY_BRIEF"})
	d := decide(qa(3, "REVISE", [up]), st_qa_cycle(2))
	d.status_after == "ESCALATED"
	"REVIEW_CYCLES_EXHAUSTED" in codes(d)
}

test_only_s1_twin_second_cycle_is_a_targeted_repair if {
	d := decide(qa(2, "REVISE", [defect("D-3", "S1", "COPY_PACKAGE", "unsupported_claims")]), st_qa_cycle(1))
	d.status_after == "TARGETED_REVISION"
	not "REVIEW_CYCLES_EXHAUSTED" in codes(d)
	some e in d.events
	e.type == "artifact_recorded"
	e.content.result == "revise"
}

test_accept_after_two_cycles_goes_to_the_person if {
	d := decide(qa(3, "ACCEPT", []), st_qa_cycle(2))
	d.status_after == "HUMAN_APPROVAL"
	count(d.reasons) == 0
	some e in d.events
	e.type == "artifact_recorded"
	e.content.result == "pass"
}

test_fixed_defect_is_closed if {
	d := decide(qa(2, "ACCEPT", []), st_qa_cycle(1))
	{"type": "defect", "defect": d1, "status": "closed"} in d.events
}

test_qa_escalate_verdict if {
	d := decide(qa(1, "ESCALATE", []), st_qa)
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	object.keys(d.next[0].context.must_know) == {"strategy_summary", "final_copy", "visual_prompts", "qa_result", "outstanding_assumptions"}
}

# --- QA may not rewrite valid work --------------------------------------------------------

test_subjective_defect_without_contract_check if {
	d := decide(qa(1, "REVISE", [defect("D-4", "S2", "COPY_PACKAGE", "tone")]), st_qa)
	codes(d) == {"SUBJECTIVE_DEFECT"}
	d.reasons[0].path == "defects[0].check"
	d.reasons[0].gate == "CTRL-4"
}

test_subjective_defect_check_of_another_artifact if {
	d := decide(qa(1, "REVISE", [defect("D-4", "S2", "COPY_PACKAGE", "product_consistency")]), st_qa)
	codes(d) == {"SUBJECTIVE_DEFECT"}
}

test_subjective_defect_no_check if {
	d := decide(qa(1, "REVISE", [object.remove(d1, ["check"])]), st_qa)
	codes(d) == {"SUBJECTIVE_DEFECT"}
}

test_subjective_defect_on_the_approved_strategy if {
	d := decide(qa(1, "REVISE", [defect("D-4", "S2", "STRATEGY_BRIEF", "strategy_alignment")]), st_qa)
	codes(d) == {"SUBJECTIVE_DEFECT"}
}

# A return without a defect contradicts itself: core's rule, with the campaign's table
# (CTRL-4).
test_return_without_defect_is_inconsistent if {
	every verdict in ["REVISE", "REJECT"] {
		d := decide(qa(1, verdict, []), st_qa)
		codes(d) == {"VERDICT_INCONSISTENT"}
		d.reasons[0].gate == "CTRL-4"
		d.reasons[0].path == "verdict"
		d.reasons[0].title == "Review contradicts itself"
	}
}

test_subjective_defect_twin_contract_check if {
	d := decide(qa(1, "REVISE", [d1]), st_qa)
	not "SUBJECTIVE_DEFECT" in codes(d)
}

test_qa_may_not_produce_copy if {
	req := handoff("qa_agent", "copywriter", "qa_review", strategy_ref, output("COPY_PACKAGE", 2, copy))
	d := decide(req, st_qa)
	codes(d) == {"SOURCE_NOT_AUTHORIZED", "TARGET_NOT_AUTHORIZED"}
}

test_verdict_not_supported if {
	d := decide(qa(1, "REASSIGN", [d1]), st_qa)
	"VERDICT_NOT_SUPPORTED" in codes(d)
	d.outcome == "block"
}

test_verdict_not_supported_twin if {
	d := decide(qa(1, "ACCEPT", []), st_qa)
	not "VERDICT_NOT_SUPPORTED" in codes(d)
}

test_review_scope_invalid_copy_alone if {
	d := decide(review([ref("COPY_PACKAGE", 1)], "ACCEPT", []), st_qa)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_review_scope_invalid_research_in_qa if {
	d := decide(review([ref("RESEARCH_BRIEF", 1), ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1)], "ACCEPT", []), st_qa)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_review_scope_twin if {
	d := decide(qa(1, "ACCEPT", []), st_qa)
	not "REVIEW_SCOPE_INVALID" in codes(d)
}

test_review_outside_review_status if {
	d := decide(qa(1, "ACCEPT", []), state("HUMAN_APPROVAL", st_qa.artifacts))
	codes(d) == {"OUT_OF_SEQUENCE"}
}

test_report_records_what_qa_sent if {
	d := decide(qa(1, "ACCEPT", []), st_qa)
	some e in d.events
	e.type == "artifact_recorded"
	e.ref.type == "QA_REPORT"
	e.ref.id == "qa-report"
	e.producer == "qa_agent"
	e.content.scope == "production"
	e.content.notes == ["checked"]
	e.ref.hash == sprintf("sha256:%s", [crypto.sha256(json.marshal(e.content))])
}

# --- a defect's origin is upstream of its artifact and an approved artifact of the workflow

with_origin(d, o) := object.union(d, {"origin": o})

test_defect_origin_beside_the_artifact if {
	d := decide(qa(1, "REVISE", [with_origin(d1, "VISUAL_PACKAGE")]), st_qa)
	codes(d) == {"DEFECT_ORIGIN_INVALID"}
	d.outcome == "block"
	d.reasons[0].path == "defects[0].origin"
	count(d.events) == 0
}

test_defect_origin_downstream if {
	d := decide(qa(1, "REVISE", [with_origin(d1, "CLIENT_PACKAGE")]), st_qa)
	codes(d) == {"DEFECT_ORIGIN_INVALID"}
}

test_defect_origin_outside_the_chain if {
	d := decide(qa(1, "REVISE", [with_origin(d1, "MEDIA_PLAN")]), st_qa)
	codes(d) == {"DEFECT_ORIGIN_INVALID"}
}

test_defect_origin_not_in_the_workflow if {
	st := state("QA", object.remove(st_qa.artifacts, ["RESEARCH_BRIEF"]))
	d := decide(qa(1, "REVISE", [with_origin(d1, "RESEARCH_BRIEF")]), st)
	codes(d) == {"DEFECT_ORIGIN_INVALID"}
	contains(d.reasons[0].message, "no approved RESEARCH_BRIEF")
}

test_defect_origin_of_research_at_validation if {
	d := decide(validation("REVISE", [with_origin(defect("R-1", "S2", "RESEARCH_BRIEF", "HG-2"), "STRATEGY_BRIEF")]), st_validation)
	codes(d) == {"DEFECT_ORIGIN_INVALID"}
}

test_defect_origin_twin_upstream_strategy if {
	d := decide(qa(1, "REVISE", [with_origin(d1, "STRATEGY_BRIEF")]), st_qa)
	not "DEFECT_ORIGIN_INVALID" in codes(d)
	d.status_after == "STRATEGY"
}

test_defect_origin_twin_the_artifact_itself if {
	d := decide(qa(1, "REVISE", [with_origin(d1, "COPY_PACKAGE")]), st_qa)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.status_after == "TARGETED_REVISION"
}

# --- a defect may not contradict what the policy proved --------------------------------------

test_defect_contradicts_verified_cta if {
	d := decide(qa(1, "REVISE", [defect("D-6", "S2", "COPY_PACKAGE", "cta_compliance")]), st_qa)
	codes(d) == {"DEFECT_CONTRADICTS_ENGINE"}
	d.outcome == "block"
	d.reasons[0].path == "defects[0]"
	count(d.events) == 0
}

test_defect_contradicts_verified_channels if {
	d := decide(qa(1, "REVISE", [d1, defect("D-6", "S1", "COPY_PACKAGE", "required_deliverables")]), st_qa)
	codes(d) == {"DEFECT_CONTRADICTS_ENGINE"}
	d.reasons[0].path == "defects[1]"
}

test_defect_contradicts_twin_escalated_to_a_person if {
	d := decide(qa(1, "ESCALATE", [defect("D-6", "S2", "COPY_PACKAGE", "cta_compliance")]), st_qa)
	not "DEFECT_CONTRADICTS_ENGINE" in codes(d)
	d.status_after == "ESCALATED"
}

# The recorded version really misses the CTA (recorded before the piece check existed):
# the defect stands.
test_defect_contradicts_twin_version_not_compliant if {
	off := json.patch(copy, [{"op": "replace", "path": "/deliverables/1/cta", "value": "Buy now"}])
	st := state("QA", object.union(st_qa.artifacts, {"COPY_PACKAGE": history("COPY_PACKAGE", [version("COPY_PACKAGE", 1, "under_review", "copywriter", off, [ref("STRATEGY_BRIEF", 1)])])}))
	d := decide(qa(1, "REVISE", [defect("D-6", "S2", "COPY_PACKAGE", "cta_compliance")]), st)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.status_after == "TARGETED_REVISION"
}

# required_format is more than the coverage the policy checks: not refused.
test_defect_contradicts_twin_visual_format if {
	d := decide(qa(1, "REVISE", [defect("D-2", "S1", "VISUAL_PACKAGE", "required_format")]), st_qa)
	codes(d) == {"QUALITY_GATE_FAILED"}
}

# --- a defect id names one defect ---------------------------------------------------------

test_defect_id_twice_in_one_review if {
	d := decide(qa(1, "REVISE", [d1, defect("D-1", "S2", "VISUAL_PACKAGE", "product_consistency")]), st_qa)
	codes(d) == {"ID_NOT_UNIQUE"}
	d.outcome == "block"
}

# D-1 is recorded for the copy: a visual defect may not take its id (it would count as the
# copy defect remaining after two cycles).
test_defect_id_of_another_artifact if {
	d := decide(qa(2, "REVISE", [defect("D-1", "S2", "VISUAL_PACKAGE", "product_consistency")]), st_qa_cycle(1))
	codes(d) == {"ID_NOT_UNIQUE"}
	d.reasons[0].path == "defects[0].id"
}

test_defect_id_twin_same_defect_remains if {
	d := decide(qa(2, "REVISE", [d1]), st_qa_cycle(1))
	not "ID_NOT_UNIQUE" in codes(d)
	d.status_after == "TARGETED_REVISION"
}

test_gate_result_of_no_reviewed_artifact if {
	d := decide(with_gates(qa(1, "ACCEPT", []), [{"id": "HG-2", "passed": true}]), st_qa)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
	d.reasons[0].path == "gates[0].id"
}

test_gate_result_of_an_unknown_gate if {
	d := decide(with_gates(qa(1, "REVISE", [d1]), [{"id": "unsupported_claims", "passed": false}, {"id": "tone", "passed": false}]), st_qa)
	"REVIEW_SCOPE_INVALID" in codes(d)
	not "QUALITY_GATE_FAILED" in codes(d)
}

test_gate_result_twin_research_gate_at_validation if {
	d := decide(with_gates(validation("ACCEPT", []), [{"id": "HG-2", "passed": true}]), st_validation)
	not "REVIEW_SCOPE_INVALID" in codes(d)
}

# The checks a report lists as performed are checks of what the review judges.
test_check_performed_on_no_reviewed_artifact if {
	r := object.union(qa(1, "ACCEPT", []), {"report": {"checks_performed": ["HG-2", "strategy_alignment"], "notes": ["checked"]}})
	d := decide(r, st_qa)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
	d.reasons[0].path == "report.checks_performed[0]"
	d.reasons[0].title == "Check performed on no reviewed artifact"
}

test_check_performed_twin_checks_of_the_reviewed if {
	r := object.union(qa(1, "ACCEPT", []), {"report": {"checks_performed": ["strategy_alignment", "cta_compliance", "required_format"], "notes": ["checked"]}})
	not "REVIEW_SCOPE_INVALID" in codes(decide(r, st_qa))
}
