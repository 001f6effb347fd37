# Research validation: the evidence gate before Strategy (HG-2 and the acceptance
# criteria), computed by the policy whatever QA says.
package handoff.campaign_test

st_validation_with(content) := state("RESEARCH_VALIDATION", {"RESEARCH_BRIEF": history("RESEARCH_BRIEF", [version("RESEARCH_BRIEF", 1, "under_review", "research_agent", content, [])])})

weak_claim := {"id": "C-1", "statement": "Most remote workers start the day with coffee at home", "major": true, "sources": ["src-panel"]}

# --- HG-2 -------------------------------------------------------------------------------

test_hg2_returns_brief_whatever_qa_says if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_claim(0, weak_claim)))
	d.outcome == "revise"
	d.status_after == "RESEARCH_REVISION"
	codes(d) == {"SOURCE_GROUNDING_FAILURE"}
	some r in d.reasons
	r.gate == "HG-2"
	r.path == "artifacts.RESEARCH_BRIEF.v1.content.claims[0]"
	d.revise == [{"artifact": "RESEARCH_BRIEF", "producer": "research_agent", "defects": []}]
	status_events(d) == {"RESEARCH_BRIEF v1 revision_required"}
	{"type": "counter", "name": "research_cycles", "delta": 1} in d.events
	next_agents(d) == {"research_agent"}
}

test_hg2_claim_without_any_source if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_claim(1, object.union(research.claims[1], {"sources": []}))))
	codes(d) == {"SOURCE_GROUNDING_FAILURE"}
	d.status_after == "RESEARCH_REVISION"
}

test_hg2_findings_reach_the_report_and_the_research_agent if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_claim(0, weak_claim)))
	some e in d.events
	e.type == "artifact_recorded"
	e.ref.type == "QA_REPORT"
	e.content.result == "revise"
	[f.code | some f in e.content.policy_findings] == ["SOURCE_GROUNDING_FAILURE"]
	d.next[0].context.must_know.QA_REPORT.policy_findings[0].gate == "HG-2"
}

test_hg2_twin_grounded_major_claims_pass if {
	d := decide(validation("ACCEPT", []), st_validation_with(research))
	not "SOURCE_GROUNDING_FAILURE" in codes(d)
	d.outcome == "allow"
	d.status_after == "STRATEGY"
}

# --- acceptance criteria ----------------------------------------------------------------

test_research_incomplete_empty_section if {
	d := decide(validation("ACCEPT", []), st_validation_with(object.union(research, {"market_findings": []})))
	codes(d) == {"RESEARCH_INCOMPLETE"}
	d.outcome == "revise"
	d.reasons[0].path == "artifacts.RESEARCH_BRIEF.v1.content.market_findings"
}

test_research_incomplete_blank_objective if {
	d := decide(validation("ACCEPT", []), st_validation_with(object.union(research, {"business_objective": "  "})))
	codes(d) == {"RESEARCH_INCOMPLETE"}
}

test_research_incomplete_missing_declared_list if {
	d := decide(validation("ACCEPT", []), st_validation_with(object.remove(research, ["known_unknowns"])))
	codes(d) == {"RESEARCH_INCOMPLETE"}
}

test_research_incomplete_twin_declared_empty_lists_pass if {
	d := decide(validation("ACCEPT", []), st_validation_with(object.union(research, {"known_unknowns": [], "unsupported_assumptions": []})))
	not "RESEARCH_INCOMPLETE" in codes(d)
	d.status_after == "STRATEGY"
}

test_contradictions_missing if {
	d := decide(validation("ACCEPT", []), st_validation_with(object.remove(research, ["contradictions"])))
	codes(d) == {"CONTRADICTIONS_MISSING"}
	d.outcome == "revise"
}

test_contradictions_twin_none_found_declared if {
	d := decide(validation("ACCEPT", []), st_validation_with(object.union(research, {"contradictions": []})))
	not "CONTRADICTIONS_MISSING" in codes(d)
	d.outcome == "allow"
}

test_assumption_unlabeled_minor_claim if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_claim(2, object.union(research.claims[2], {"sources": ["src-hunch"]}))))
	codes(d) == {"ASSUMPTION_UNLABELED"}
	d.reasons[0].gate == "assumptions_labeled"
}

test_assumption_unlabeled_finding if {
	content := object.union(research, {"market_findings": [{"finding": "Cold brew is trendy", "sources": []}]})
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	codes(d) == {"ASSUMPTION_UNLABELED"}
}

test_assumption_unlabeled_assumption_without_label if {
	content := object.union(research, {"unsupported_assumptions": [{"statement": "Delivery is preferred"}]})
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	codes(d) == {"ASSUMPTION_UNLABELED"}
}

test_assumption_twin_labeled_assumptions_pass if {
	d := decide(validation("ACCEPT", []), st_validation_with(research))
	not "ASSUMPTION_UNLABELED" in codes(d)
}

# --- QA's verdict in research validation -------------------------------------------------

test_validation_qa_revise_returns_brief if {
	d := decide(validation("REVISE", [defect("R-1", "S2", "RESEARCH_BRIEF", "contradictions_identified")]), st_validation)
	d.outcome == "revise"
	d.status_after == "RESEARCH_REVISION"
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.revise == [{"artifact": "RESEARCH_BRIEF", "producer": "research_agent", "defects": ["R-1"]}]
}

test_validation_s3_fails_safe if {
	d := decide(validation("REJECT", [defect("R-2", "S3", "RESEARCH_BRIEF", "HG-2")]), st_validation)
	d.outcome == "fail"
	d.status_after == "FAILED_SAFE"
	codes(d) == {"QUALITY_GATE_FAILED"}
	status_events(d) == {"RESEARCH_BRIEF v1 rejected"}
}

test_validation_escalate_keeps_brief_under_review if {
	d := decide(validation("ESCALATE", []), st_validation)
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	next_agents(d) == {"campaign_approver"}
	status_events(d) == set()
}

test_research_cycles_exhausted_escalates if {
	st := with_state(st_validation_with(with_claim(0, weak_claim)), {"counters": {"research_cycles": 2}})
	d := decide(validation("ACCEPT", []), st)
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	codes(d) == {"SOURCE_GROUNDING_FAILURE", "REVIEW_CYCLES_EXHAUSTED"}
	some r in d.reasons
	r.code == "REVIEW_CYCLES_EXHAUSTED"
	r.outcome == "await_human"
}

test_research_cycles_twin_one_cycle_left if {
	st := with_state(st_validation_with(with_claim(0, weak_claim)), {"counters": {"research_cycles": 1}})
	d := decide(validation("ACCEPT", []), st)
	not "REVIEW_CYCLES_EXHAUSTED" in codes(d)
	d.status_after == "RESEARCH_REVISION"
}

# --- research revision -------------------------------------------------------------------

test_revised_brief_returns_to_validation if {
	returned := history("RESEARCH_BRIEF", [version("RESEARCH_BRIEF", 1, "revision_required", "research_agent", research, [])])
	st := state("RESEARCH_REVISION", {"RESEARCH_BRIEF": returned, "QA_REPORT": history("QA_REPORT", [report_v1])})
	d := decide(object.union(research_handoff(2, research), {"input_artifacts": [ref("QA_REPORT", 1)]}), st)
	d.outcome == "allow"
	d.status_after == "RESEARCH_VALIDATION"
	recorded(d) == {"RESEARCH_BRIEF v2 under_review"}
	status_events(d) == {"RESEARCH_BRIEF v1 superseded"}
}

test_output_missing if {
	d := decide(object.remove(research_handoff(1, research), ["output"]), st_research)
	codes(d) == {"OUTPUT_MISSING"}
	d.outcome == "block"
}

test_output_missing_twin if {
	d := decide(research_handoff(1, research), st_research)
	not "OUTPUT_MISSING" in codes(d)
}

# --- every citation resolves inside the brief; ids are unique -------------------------------

test_unresolved_source_beside_a_good_one if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_claim(0, object.union(research.claims[0], {"sources": ["src-survey", "src-ghost"]}))))
	codes(d) == {"UNRESOLVED_REFERENCE"}
	d.outcome == "revise"
	d.status_after == "RESEARCH_REVISION"
	d.reasons[0].path == "artifacts.RESEARCH_BRIEF.v1.content.claims[0].sources[1]"
}

test_unresolved_source_of_a_finding if {
	content := json.patch(research, [{"op": "add", "path": "/market_findings/0/sources/-", "value": "src-blog"}])
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	codes(d) == {"UNRESOLVED_REFERENCE"}
}

test_unresolved_claim_of_a_contradiction if {
	content := json.patch(research, [{"op": "replace", "path": "/contradictions/0/claims", "value": ["C-1", "C-9"]}])
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	codes(d) == {"UNRESOLVED_REFERENCE"}
	d.reasons[0].path == "artifacts.RESEARCH_BRIEF.v1.content.contradictions[0].claims[1]"
}

test_unresolved_source_of_a_contradiction if {
	content := json.patch(research, [{"op": "add", "path": "/contradictions/0/sources", "value": ["src-summer-panel"]}])
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	codes(d) == {"UNRESOLVED_REFERENCE"}
}

test_unresolved_twin_every_citation_resolves if {
	content := json.patch(research, [{"op": "add", "path": "/contradictions/0/sources", "value": ["src-market"]}])
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	count(d.reasons) == 0
	d.status_after == "STRATEGY"
}

test_claim_id_used_twice if {
	content := json.patch(research, [{"op": "add", "path": "/claims/-", "value": {"id": "C-1", "statement": "Remote workers skip breakfast", "major": false, "sources": ["src-survey"]}}])
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	codes(d) == {"ID_NOT_UNIQUE"}
	d.outcome == "revise"
}

test_source_id_used_twice if {
	content := json.patch(research, [{"op": "add", "path": "/source_references/-", "value": {"id": "src-market", "title": "Another report"}}])
	d := decide(validation("ACCEPT", []), st_validation_with(content))
	codes(d) == {"ID_NOT_UNIQUE"}
}

# --- a time the brief states is checked against the engine's clock ------------------------

with_accessed_at(t) := json.patch(research, [{"op": "add", "path": "/source_references/1/accessed_at", "value": t}])

test_source_accessed_after_the_brief_was_recorded if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_accessed_at("2026-04-01T12:00:00Z")))
	codes(d) == {"TIME_IN_FUTURE"}
	d.outcome == "revise"
	d.reasons[0].path == "artifacts.RESEARCH_BRIEF.v1.content.source_references[1].accessed_at"
}

test_source_accessed_twin_within_clock_skew if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_accessed_at("2026-04-01T10:00:30Z")))
	count(d.reasons) == 0
	d.status_after == "STRATEGY"
}

test_source_accessed_twin_before if {
	d := decide(validation("ACCEPT", []), st_validation_with(with_accessed_at("2026-03-02T09:00:00+01:00")))
	count(d.reasons) == 0
}
