# Strategy: grounded in the approved research, approved by a person, then the single
# source of truth that changes only through a revision path.
package handoff.campaign_test

strategy_with_claims(claims) := object.union(strategy, {"approved_claims": claims})

strategy_handoff_with(n, inputs, content) := handoff("strategy_agent", "campaign_approver", "strategy", inputs, output("STRATEGY_BRIEF", n, content))

test_ungrounded_claim if {
	content := strategy_with_claims([{"id": "AC-9", "statement": "Remote workers drink four coffees a day", "research_claim": "C-9"}])
	d := decide(strategy_handoff_with(1, [ref("RESEARCH_BRIEF", 1)], content), st_strategy)
	codes(d) == {"UNGROUNDED_CLAIM"}
	d.outcome == "block"
	d.reasons[0].path == "output.content.approved_claims[0]"
	d.reasons[0].gate == "HG-2"
}

test_ungrounded_claim_on_unsourced_research if {
	weak := history("RESEARCH_BRIEF", [version("RESEARCH_BRIEF", 1, "approved", "research_agent", with_claim(0, weak_claim), [])])
	st := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": weak}))
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st)
	codes(d) == {"UNGROUNDED_CLAIM"}
}

test_ungrounded_claim_twin_grounded_claims if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st_strategy)
	not "UNGROUNDED_CLAIM" in codes(d)
	d.outcome == "await_human"
}

test_input_missing_research if {
	d := decide(strategy_handoff(1, []), st_strategy)
	codes(d) == {"INPUT_MISSING"}
}

test_input_missing_twin if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st_strategy)
	not "INPUT_MISSING" in codes(d)
}

test_strategy_needs_approved_research if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), state("STRATEGY", {"RESEARCH_BRIEF": brief_v1("under_review")}))
	codes(d) == {"ARTIFACT_NOT_APPROVED"}
}

test_change_of_approved_strategy_refused if {
	d := decide(object.union(strategy_handoff(2, [ref("RESEARCH_BRIEF", 1), ref("QA_REPORT", 1)]), {}), st_copy_in)
	codes(d) == {"ARTIFACT_IMMUTABLE"}
	d.reasons[0].gate == "CTRL-2"
	d.status_after == "PRODUCTION"
	count(d.events) == 0
}

test_change_of_approved_strategy_twin_revision_path if {
	st := state("STRATEGY", st_copy_in.artifacts)
	d := decide(strategy_handoff(2, [ref("RESEARCH_BRIEF", 1), ref("QA_REPORT", 1)]), st)
	not "ARTIFACT_IMMUTABLE" in codes(d)
	d.outcome == "await_human"
	d.status_after == "STRATEGY_APPROVAL"
	recorded(d) == {"STRATEGY_BRIEF v2 under_review"}
	status_events(d) == set()
}

test_version_unlinked_without_supersedes if {
	st := state("STRATEGY", st_copy_in.artifacts)
	req := strategy_handoff(2, [ref("RESEARCH_BRIEF", 1), ref("QA_REPORT", 1)])
	d := decide(json.remove(req, ["output/supersedes"]), st)
	codes(d) == {"VERSION_UNLINKED"}
	d.reasons[0].gate == "CTRL-6"
}

test_version_unlinked_without_justification if {
	st := state("STRATEGY", st_copy_in.artifacts)
	req := strategy_handoff(2, [ref("RESEARCH_BRIEF", 1), ref("QA_REPORT", 1)])
	d := decide(object.union(req, {"output": object.union(req.output, {"justification": " "})}), st)
	codes(d) == {"VERSION_UNLINKED"}
}

test_version_unlinked_twin_first_version_needs_no_link if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st_strategy)
	not "VERSION_UNLINKED" in codes(d)
}

# --- strategy approval -------------------------------------------------------------------

test_strategy_revision_requested if {
	d := decide(approval("REQUEST_REVISION", [ref("STRATEGY_BRIEF", 1)], ["STRATEGY_BRIEF"]), st_strategy_approval)
	d.outcome == "revise"
	d.status_after == "STRATEGY"
	codes(d) == {"REVISION_REQUESTED"}
	d.revise == [{"artifact": "STRATEGY_BRIEF", "producer": "strategy_agent", "defects": []}]
	status_events(d) == {"STRATEGY_BRIEF v1 revision_required"}
	recorded(d) == {"APPROVAL_RECORD v1 approved"}
	next_agents(d) == {"strategy_agent"}
	d.next[0].context.must_know.APPROVAL_RECORD.revise == ["STRATEGY_BRIEF"]
	d.next[0].context.must_know.RESEARCH_BRIEF.claims == research.claims
}

test_strategy_approval_can_return_research if {
	d := decide(approval("REQUEST_REVISION", [ref("STRATEGY_BRIEF", 1)], ["RESEARCH_BRIEF"]), st_strategy_approval)
	d.status_after == "RESEARCH_REVISION"
	next_agents(d) == {"research_agent"}
}

test_strategy_rejected_fails_safe if {
	d := decide(approval("REJECT", [ref("STRATEGY_BRIEF", 1)], []), st_strategy_approval)
	d.outcome == "fail"
	d.status_after == "FAILED_SAFE"
	codes(d) == {"HUMAN_REJECTED"}
	status_events(d) == {"STRATEGY_BRIEF v1 rejected"}
}

test_human_rejected_twin_approve if {
	d := decide(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), st_strategy_approval)
	not "HUMAN_REJECTED" in codes(d)
}

test_strategy_approval_incomplete if {
	d := decide(object.union(approval("APPROVE", [], []), {"stage": "STRATEGY_APPROVAL"}), st_strategy_approval)
	codes(d) == {"APPROVAL_INCOMPLETE"}
}

test_strategy_approval_of_another_stage if {
	d := decide(object.union(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), {"stage": "HUMAN_APPROVAL"}), st_strategy_approval)
	codes(d) == {"APPROVAL_INVALID"}
}

test_strategy_approval_stage_twin if {
	d := decide(object.union(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), {"stage": "STRATEGY_APPROVAL"}), st_strategy_approval)
	count(d.reasons) == 0
	d.outcome == "allow"
}

# A re-approved strategy supersedes the old one and every deliverable made from it.
test_strategy_reapproval_supersedes_old_version_and_deliverables if {
	strategies := history("STRATEGY_BRIEF", [
		version("STRATEGY_BRIEF", 1, "approved", "strategy_agent", strategy, [ref("RESEARCH_BRIEF", 1)]),
		version("STRATEGY_BRIEF", 2, "under_review", "strategy_agent", strategy, [ref("RESEARCH_BRIEF", 1)]),
	])
	st := state("STRATEGY_APPROVAL", object.union(st_qa.artifacts, {"STRATEGY_BRIEF": strategies}))
	d := decide(approval("APPROVE", [ref("STRATEGY_BRIEF", 2)], []), st)
	d.status_after == "PRODUCTION"
	status_events(d) == {"STRATEGY_BRIEF v2 approved", "STRATEGY_BRIEF v1 superseded", "COPY_PACKAGE v1 superseded", "VISUAL_PACKAGE v1 superseded"}
	recorded(d) == {"APPROVAL_RECORD v2 approved"}
}

# --- HG-2: an approved claim is supported by the research claim it cites -----------------

eco := "Customers prefer eco packaging"

# research_with is the fixture research with extra claims and unverified assumptions.
research_with(claims, assumptions) := object.union(research, {
	"claims": array.concat(research.claims, claims),
	"unsupported_assumptions": array.concat(research.unsupported_assumptions, assumptions),
})

st_strategy_on(content) := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": history("RESEARCH_BRIEF", [version("RESEARCH_BRIEF", 1, "approved", "research_agent", content, [])])}))

claim_handoff(claim) := strategy_handoff_with(1, [ref("RESEARCH_BRIEF", 1)], strategy_with_claims([strategy.approved_claims[0], claim]))

# The research lists the statement as an unverified assumption; the strategy presents it
# as a fact and cites an unrelated sourced claim.
test_assumption_as_fact_citing_unrelated_claim if {
	st := st_strategy_on(research_with([], [{"statement": eco, "label": "UNVERIFIED"}]))
	d := decide(claim_handoff({"id": "AC-3", "statement": eco, "research_claim": "C-1"}), st)
	codes(d) == {"ASSUMPTION_AS_FACT", "CLAIM_NOT_SUPPORTED"}
	d.outcome == "block"
	some r in d.reasons
	r.code == "ASSUMPTION_AS_FACT"
	r.path == "output.content.approved_claims[1].statement"
	r.gate == "HG-2"
}

# A statement that contains the assumption, in another case, spacing and punctuation.
test_assumption_as_fact_contained_any_case_and_spacing if {
	st := st_strategy_on(research_with(
		[{"id": "C-4", "statement": "Most customers  prefer ECO-packaging today", "major": true, "sources": ["src-survey"]}],
		[{"statement": eco, "label": "UNVERIFIED"}],
	))
	d := decide(claim_handoff({"id": "AC-3", "statement": "Most customers  prefer ECO-packaging today", "research_claim": "C-4"}), st)
	codes(d) == {"ASSUMPTION_AS_FACT"}
}

# The research claim cited is itself one of the brief's unverified assumptions.
test_assumption_as_fact_cited_claim_is_an_assumption if {
	st := st_strategy_on(research_with(
		[{"id": "C-4", "statement": eco, "major": true, "sources": ["src-survey"]}],
		[{"statement": "customers prefer eco packaging.", "label": "UNVERIFIED"}],
	))
	d := decide(claim_handoff({"id": "AC-3", "statement": eco, "research_claim": "C-4"}), st)
	codes(d) == {"ASSUMPTION_AS_FACT"}
	count(d.reasons) == 2
}

test_assumption_as_fact_strategy_own_assumption if {
	st := st_strategy_on(research_with([{"id": "C-4", "statement": "A 30% discount triggers a first order", "major": true, "sources": ["src-market"]}], []))
	d := decide(claim_handoff({"id": "AC-3", "statement": "A 30% discount triggers a first order", "research_claim": "C-4"}), st)
	codes(d) == {"ASSUMPTION_AS_FACT"}
}

# Twin: a sourced major claim that is no assumption, restated verbatim.
test_assumption_as_fact_twin_sourced_claim if {
	st := st_strategy_on(research_with([{"id": "C-4", "statement": eco, "major": true, "sources": ["src-survey"]}], []))
	d := decide(claim_handoff({"id": "AC-3", "statement": eco, "research_claim": "C-4"}), st)
	count(d.reasons) == 0
	d.outcome == "await_human"
}

# Words, not letters: an assumption about "men" is not contained in a claim about "women".
test_assumption_as_fact_twin_whole_words_only if {
	st := st_strategy_on(research_with(
		[{"id": "C-4", "statement": "Women drink cold brew", "major": true, "sources": ["src-survey"]}],
		[{"statement": "men drink cold brew", "label": "UNVERIFIED"}],
	))
	d := decide(claim_handoff({"id": "AC-3", "statement": "Women drink cold brew", "research_claim": "C-4"}), st)
	not "ASSUMPTION_AS_FACT" in codes(d)
}

test_claim_not_supported_statement_departs if {
	d := decide(claim_handoff({"id": "AC-3", "statement": "All remote workers start the day with coffee at home", "research_claim": "C-1"}), st_strategy)
	codes(d) == {"CLAIM_NOT_SUPPORTED"}
	d.reasons[0].path == "output.content.approved_claims[1].statement"
}

test_claim_not_supported_twin_case_spacing_full_stop if {
	d := decide(claim_handoff({"id": "AC-3", "statement": "most remote  workers start the day with coffee at HOME.", "research_claim": "C-1"}), st_strategy)
	count(d.reasons) == 0
}

test_ungrounded_claim_minor_research_claim if {
	d := decide(claim_handoff({"id": "AC-3", "statement": "Competitors compete on subscription discounts", "research_claim": "C-3"}), st_strategy)
	codes(d) == {"UNGROUNDED_CLAIM"}
	contains(d.reasons[0].message, "minor claim")
}

test_ungrounded_claim_unresolved_source if {
	st := st_strategy_on(with_claim(1, object.union(research.claims[1], {"sources": ["src-market", "src-ghost"]})))
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st)
	codes(d) == {"UNGROUNDED_CLAIM"}
	contains(d.reasons[0].message, "src-ghost")
}

# The cited claim is in an earlier research version, not in the approved one named.
test_ungrounded_claim_only_in_another_research_version if {
	v1 := version("RESEARCH_BRIEF", 1, "superseded", "research_agent", research_with([{"id": "C-7", "statement": eco, "major": true, "sources": ["src-survey"]}], []), [])
	v2 := object.union(version("RESEARCH_BRIEF", 2, "approved", "research_agent", research, []), {"ref": ref("RESEARCH_BRIEF", 2)})
	st := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": history("RESEARCH_BRIEF", [v1, v2])}))
	d := decide(strategy_handoff_with(1, [ref("RESEARCH_BRIEF", 2)], strategy_with_claims([{"id": "AC-3", "statement": eco, "research_claim": "C-7"}])), st)
	codes(d) == {"UNGROUNDED_CLAIM"}
	contains(d.reasons[0].message, "RESEARCH_BRIEF v2 does not have")
}

test_ungrounded_claim_twin_in_the_named_version if {
	v1 := version("RESEARCH_BRIEF", 1, "superseded", "research_agent", research, [])
	v2 := object.union(version("RESEARCH_BRIEF", 2, "approved", "research_agent", research_with([{"id": "C-7", "statement": eco, "major": true, "sources": ["src-survey"]}], []), []), {"ref": ref("RESEARCH_BRIEF", 2)})
	st := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": history("RESEARCH_BRIEF", [v1, v2])}))
	d := decide(strategy_handoff_with(1, [ref("RESEARCH_BRIEF", 2)], strategy_with_claims([{"id": "AC-3", "statement": eco, "research_claim": "C-7"}])), st)
	count(d.reasons) == 0
}

test_strategy_names_several_research_versions if {
	v1 := version("RESEARCH_BRIEF", 1, "approved", "research_agent", research, [])
	v2 := object.union(version("RESEARCH_BRIEF", 2, "approved", "research_agent", research, []), {"ref": ref("RESEARCH_BRIEF", 2)})
	st := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": history("RESEARCH_BRIEF", [v1, v2])}))
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1), ref("RESEARCH_BRIEF", 2)]), st)
	"UNVERSIONED_DEPENDENCY" in codes(d)
	d.outcome == "block"
}

test_strategy_names_several_research_versions_twin if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st_strategy)
	not "UNVERSIONED_DEPENDENCY" in codes(d)
}

# --- DO NOT NEED holds for copies: no raw research conversation, no rejected alternative --

strategy_patched(patch) := strategy_handoff_with(1, [ref("RESEARCH_BRIEF", 1)], json.patch(strategy, patch))

test_context_pollution_research_log_line_in_selected_research if {
	d := decide(strategy_patched([{"op": "add", "path": "/selected_supporting_research/-", "value": "Reviewed 14 sources; 3 retained"}]), st_strategy)
	codes(d) == {"CONTEXT_POLLUTION"}
	d.outcome == "block"
	d.reasons[0].path == "output.content.selected_supporting_research[1]"
}

test_context_pollution_log_line_inside_a_must_know_field if {
	d := decide(strategy_patched([{"op": "add", "path": "/messaging_hierarchy/-", "value": "Note to copy: REVIEWED 14 sources, 3 retained!"}]), st_strategy)
	codes(d) == {"CONTEXT_POLLUTION"}
	d.reasons[0].path == "output.content.messaging_hierarchy[3]"
}

test_context_pollution_log_line_of_an_earlier_research_version if {
	v1 := version("RESEARCH_BRIEF", 1, "superseded", "research_agent", object.union(research, {"research_log": ["Interviewed the founder: margins are thin this year"]}), [])
	v2 := version("RESEARCH_BRIEF", 2, "approved", "research_agent", research, [])
	st := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": history("RESEARCH_BRIEF", [v1, v2])}))
	req := strategy_handoff_with(1, [ref("RESEARCH_BRIEF", 2)], json.patch(strategy, [{"op": "add", "path": "/restrictions/-", "value": "Interviewed the founder: margins are thin this year"}]))
	d := decide(req, st)
	codes(d) == {"CONTEXT_POLLUTION"}
}

test_context_pollution_rejected_alternative if {
	d := decide(strategy_patched([{"op": "add", "path": "/selected_supporting_research/-", "value": "Office delivery partnership"}]), st_strategy)
	codes(d) == {"CONTEXT_POLLUTION"}
	contains(d.reasons[0].message, "rejected strategic alternative")
}

test_context_pollution_twin_approver_sees_alternatives if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st_strategy)
	not "CONTEXT_POLLUTION" in codes(d)
	d.next[0].context.may_know.rejected_alternatives == ["Office delivery partnership"]
}

test_context_pollution_twin_short_log_line_inside_text if {
	st := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": brief_v1_with(object.union(research, {"research_log": ["Trial box"]}))}))
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st)
	not "CONTEXT_POLLUTION" in codes(d)
}

test_context_pollution_short_log_line_equal if {
	st := state("STRATEGY", object.union(st_strategy.artifacts, {"RESEARCH_BRIEF": brief_v1_with(object.union(research, {"research_log": ["Trial box"]}))}))
	d := decide(strategy_patched([{"op": "add", "path": "/messaging_hierarchy/-", "value": "trial box."}]), st)
	codes(d) == {"CONTEXT_POLLUTION"}
}

brief_v1_with(content) := history("RESEARCH_BRIEF", [version("RESEARCH_BRIEF", 1, "approved", "research_agent", content, [])])

test_approved_claim_id_used_twice if {
	claims := [strategy.approved_claims[0], object.union(strategy.approved_claims[1], {"id": "AC-1"})]
	d := decide(strategy_handoff_with(1, [ref("RESEARCH_BRIEF", 1)], strategy_with_claims(claims)), st_strategy)
	codes(d) == {"ID_NOT_UNIQUE"}
	d.outcome == "block"
}

test_approved_claim_ids_twin_unique if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st_strategy)
	not "ID_NOT_UNIQUE" in codes(d)
}

# --- selected supporting research is selected from the research --------------------------

test_supporting_research_is_an_assumption if {
	d := decide(strategy_patched([{"op": "add", "path": "/selected_supporting_research/-", "value": "Remote workers prefer home delivery"}]), st_strategy)
	codes(d) == {"UNGROUNDED_CLAIM"}
	d.reasons[0].path == "output.content.selected_supporting_research[1]"
}

test_supporting_research_invented if {
	d := decide(strategy_patched([{"op": "replace", "path": "/selected_supporting_research/0", "value": "81% of remote workers buy cold brew weekly"}]), st_strategy)
	codes(d) == {"UNGROUNDED_CLAIM"}
}

test_supporting_research_twin_claim_restated if {
	d := decide(strategy_patched([{"op": "add", "path": "/selected_supporting_research/-", "value": "cold brew is the fastest-growing coffee format."}]), st_strategy)
	count(d.reasons) == 0
}

# Without the context packages of the Copy and Visual edges, every field is checked: the
# strategy's own assumptions (not passed to Copy and Visual otherwise) among them.
alternative_as_assumption := strategy_patched([{"op": "add", "path": "/rejected_alternatives/-", "value": "A 30% discount triggers a first order"}])

test_context_pollution_without_context_table if {
	d := decide_with(alternative_as_assumption, st_strategy, json.remove(campaign_contract, ["context/strategy_agent>copywriter", "context/strategy_agent>visual_prompt_agent"]))
	"CONTEXT_POLLUTION" in codes(d)
}

test_context_pollution_twin_field_not_passed_on if {
	d := decide(alternative_as_assumption, st_strategy)
	not "CONTEXT_POLLUTION" in codes(d)
}
