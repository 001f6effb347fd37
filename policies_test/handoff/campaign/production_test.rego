# Production: copy and visual prompts from the one approved strategy version, without
# changing it.
package handoff.campaign_test

strategy_ref := [ref("STRATEGY_BRIEF", 1)]

# st_strategy_v2 has strategy v1 superseded and v2 approved.
st_strategy_v2 := state("PRODUCTION", object.union(st_production.artifacts, {"STRATEGY_BRIEF": history("STRATEGY_BRIEF", [
	version("STRATEGY_BRIEF", 1, "superseded", "strategy_agent", strategy, [ref("RESEARCH_BRIEF", 1)]),
	version("STRATEGY_BRIEF", 2, "approved", "strategy_agent", strategy, [ref("RESEARCH_BRIEF", 1)]),
])}))

test_unversioned_dependency if {
	d := decide(copy_handoff(1, [], copy), st_production)
	codes(d) == {"UNVERSIONED_DEPENDENCY"}
	d.reasons[0].gate == "CTRL-6"
}

test_unversioned_dependency_twin if {
	d := decide(copy_handoff(1, strategy_ref, copy), st_production)
	not "UNVERSIONED_DEPENDENCY" in codes(d)
}

test_version_mismatch_not_the_approved_strategy if {
	d := decide(visual_handoff(1, strategy_ref, visual), st_strategy_v2)
	"VERSION_MISMATCH" in codes(d)
	some r in d.reasons
	r.code == "VERSION_MISMATCH"
	r.gate == "CTRL-2"
	d.outcome == "block"
}

test_version_mismatch_twin_approved_strategy if {
	d := decide(visual_handoff(1, [ref("STRATEGY_BRIEF", 2)], visual), st_strategy_v2)
	count(d.reasons) == 0
	d.outcome == "allow"
}

test_version_mismatch_with_the_other_deliverable if {
	odd_copy := version("COPY_PACKAGE", 1, "under_review", "copywriter", copy, [ref("STRATEGY_BRIEF", 2)])
	st := state("PRODUCTION", object.union(st_production.artifacts, {"COPY_PACKAGE": history("COPY_PACKAGE", [odd_copy])}))
	d := decide(visual_handoff(1, strategy_ref, visual), st)
	codes(d) == {"VERSION_MISMATCH"}
	contains(d.reasons[0].message, "must share one approved strategy version")
}

test_strategy_deviation_copy_offer if {
	d := decide(copy_handoff(1, strategy_ref, object.union(copy, {"offer": "Buy one, get one free"})), st_production)
	codes(d) == {"STRATEGY_DEVIATION"}
	d.reasons[0].path == "output.content.offer"
}

test_strategy_deviation_copy_audience if {
	d := decide(copy_handoff(1, strategy_ref, object.union(copy, {"target_audience": "Students in dormitories"})), st_production)
	codes(d) == {"STRATEGY_DEVIATION"}
}

test_strategy_deviation_visual_product if {
	d := decide(visual_handoff(1, strategy_ref, object.union(visual, {"product": "Brightbrew Espresso Pods"})), st_production)
	codes(d) == {"STRATEGY_DEVIATION"}
	d.reasons[0].path == "output.content.product"
}

test_strategy_deviation_visual_proposition if {
	d := decide(visual_handoff(1, strategy_ref, object.union(visual, {"core_proposition": "The cheapest coffee in town"})), st_production)
	codes(d) == {"STRATEGY_DEVIATION"}
}

test_strategy_deviation_twin_case_and_blanks_ignored if {
	d := decide(copy_handoff(1, strategy_ref, object.union(copy, {"offer": "  first box of six bottles at 30% OFF "})), st_production)
	not "STRATEGY_DEVIATION" in codes(d)
}

test_unapproved_claim if {
	content := object.union(copy, {"claims_used": [{"id": "AC-7", "statement": "Cold brew doubles productivity"}]})
	d := decide(copy_handoff(1, strategy_ref, content), st_production)
	codes(d) == {"UNAPPROVED_CLAIM"}
	d.reasons[0].path == "output.content.claims_used[0]"
	d.reasons[0].gate == "unsupported_claims"
}

test_unapproved_claim_altered_statement if {
	content := object.union(copy, {"claims_used": [{"id": "AC-1", "statement": "All remote workers start the day with coffee at home"}]})
	d := decide(copy_handoff(1, strategy_ref, content), st_production)
	codes(d) == {"UNAPPROVED_CLAIM"}
}

test_unapproved_claim_twin_verbatim_claims if {
	d := decide(copy_handoff(1, strategy_ref, copy), st_production)
	not "UNAPPROVED_CLAIM" in codes(d)
}

test_quality_gate_required_channel_missing if {
	content := object.union(copy, {"deliverables": [copy.deliverables[0]]})
	d := decide(copy_handoff(1, strategy_ref, content), st_production)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.reasons[0].gate == "required_deliverables"
}

test_quality_gate_cta if {
	d := decide(copy_handoff(1, strategy_ref, object.union(copy, {"cta": "Buy now"})), st_production)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.reasons[0].gate == "cta_compliance"
}

test_quality_gate_required_format_missing if {
	content := object.union(visual, {"prompts": [visual.prompts[0]]})
	d := decide(visual_handoff(1, strategy_ref, content), st_production)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.reasons[0].gate == "required_format"
}

test_quality_gate_twin_complete_deliverables if {
	d := decide(visual_handoff(1, strategy_ref, visual), st_production)
	not "QUALITY_GATE_FAILED" in codes(d)
}

test_revision_not_requested_in_production if {
	d := decide(copy_handoff(2, strategy_ref, copy), st_copy_in)
	codes(d) == {"REVISION_NOT_REQUESTED"}
}

test_revision_not_requested_in_targeted_revision if {
	st := state("TARGETED_REVISION", object.union(st_qa.artifacts, {"COPY_PACKAGE": history("COPY_PACKAGE", [copy_v(1, "revision_required")])}))
	d := decide(visual_handoff(2, strategy_ref, visual), st)
	codes(d) == {"REVISION_NOT_REQUESTED"}
}

test_revision_not_requested_twin_returned_artifact if {
	st := state("TARGETED_REVISION", object.union(st_qa.artifacts, {"COPY_PACKAGE": history("COPY_PACKAGE", [copy_v(1, "revision_required")])}))
	d := decide(copy_handoff(2, strategy_ref, copy), st)
	count(d.reasons) == 0
	d.status_after == "QA"
	status_events(d) == {"COPY_PACKAGE v1 superseded"}
	recorded(d) == {"COPY_PACKAGE v2 under_review"}
}

test_targeted_revision_waits_for_every_return if {
	st := state("TARGETED_REVISION", object.union(st_qa.artifacts, {
		"COPY_PACKAGE": history("COPY_PACKAGE", [copy_v(1, "revision_required")]),
		"VISUAL_PACKAGE": history("VISUAL_PACKAGE", [visual_v(1, "revision_required")]),
	}))
	d := decide(copy_handoff(2, strategy_ref, copy), st)
	d.outcome == "allow"
	d.status_after == "TARGETED_REVISION"
	next_agents(d) == {"visual_prompt_agent"}
}

test_production_out_of_turn_agent if {
	d := decide(copy_handoff(1, strategy_ref, copy), st_strategy)
	"OUT_OF_SEQUENCE" in codes(d)
}

test_input_not_permitted_other_draft if {
	d := decide(visual_handoff(1, [ref("STRATEGY_BRIEF", 1), ref("COPY_PACKAGE", 1)], visual), st_copy_in)
	codes(d) == {"ARTIFACT_NOT_APPROVED", "INPUT_NOT_PERMITTED"}
	some r in d.reasons
	r.code == "INPUT_NOT_PERMITTED"
	r.path == "input_artifacts[1]"
}

test_input_not_permitted_twin if {
	d := decide(visual_handoff(1, [ref("STRATEGY_BRIEF", 1)], visual), st_copy_in)
	not "INPUT_NOT_PERMITTED" in codes(d)
}

test_input_not_permitted_without_registry if {
	d := decide_with(visual_handoff(1, [ref("STRATEGY_BRIEF", 1)], visual), st_copy_in, json.remove(campaign_contract, ["agents/visual_prompt_agent/consumes"]))
	"INPUT_NOT_PERMITTED" in codes(d)
}

test_quality_gate_cta_of_a_piece if {
	d := decide(copy_handoff(1, strategy_ref, json.patch(copy, [{"op": "replace", "path": "/deliverables/1/cta", "value": "Buy now"}])), st_production)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.reasons[0].gate == "cta_compliance"
	d.reasons[0].path == "output.content.deliverables[1].cta"
}

test_quality_gate_cta_of_a_piece_twin_case_and_spacing if {
	d := decide(copy_handoff(1, strategy_ref, json.patch(copy, [{"op": "replace", "path": "/deliverables/1/cta", "value": " start your TRIAL box "}])), st_production)
	not "QUALITY_GATE_FAILED" in codes(d)
}
