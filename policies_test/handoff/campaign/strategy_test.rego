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
