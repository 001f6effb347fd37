# The campaign flow step by step, each request against the snapshot the previous steps
# leave: INTAKE → RESEARCH → RESEARCH_VALIDATION → STRATEGY → STRATEGY_APPROVAL →
# PRODUCTION → QA → HUMAN_APPROVAL → DELIVERY → COMPLETED.
package handoff.campaign_test

test_start_routes_research if {
	d := decide(start, state("INTAKE", {}))
	d.outcome == "allow"
	d.status_after == "RESEARCH"
	next_agents(d) == {"research_agent"}
	d.next[0].task == "research"
	d.next[0].context.must_know.product == "Brightbrew Cold Brew"
	count(d.reasons) == 0
}

test_research_handoff_goes_to_validation if {
	d := decide(research_handoff(1, research), st_research)
	d.outcome == "allow"
	d.status_after == "RESEARCH_VALIDATION"
	next_agents(d) == {"qa_agent"}
	d.next[0].task == "research_validation"
	recorded(d) == {"RESEARCH_BRIEF v1 under_review"}
	"handoff_accepted" in event_types(d)
	d.next[0].context.must_know.claims == research.claims
	not d.next[0].context.must_know.research_log
}

test_validation_accepts_grounded_research if {
	d := decide(validation("ACCEPT", []), st_validation)
	d.outcome == "allow"
	d.status_after == "STRATEGY"
	next_agents(d) == {"strategy_agent"}
	status_events(d) == {"RESEARCH_BRIEF v1 approved"}
	recorded(d) == {"QA_REPORT v1 under_review"}
	d.next[0].context.must_know.business_objective == research.business_objective
	not d.next[0].context.must_know.research_log
}

test_strategy_handoff_awaits_approval if {
	d := decide(strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)]), st_strategy)
	d.outcome == "await_human"
	d.status_after == "STRATEGY_APPROVAL"
	next_agents(d) == {"campaign_approver"}
	d.requires_human_review == true
	recorded(d) == {"STRATEGY_BRIEF v1 under_review"}
	count(d.reasons) == 0
}

test_strategy_approval_starts_parallel_production if {
	d := decide(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), st_strategy_approval)
	d.outcome == "allow"
	d.status_after == "PRODUCTION"
	next_agents(d) == {"copywriter", "visual_prompt_agent"}
	status_events(d) == {"STRATEGY_BRIEF v1 approved"}
	recorded(d) == {"APPROVAL_RECORD v1 approved"}
	"approval_recorded" in event_types(d)
}

test_strategy_approval_context_per_edge if {
	d := decide(approval("APPROVE", [ref("STRATEGY_BRIEF", 1)], []), st_strategy_approval)
	some n in d.next
	n.agent == "copywriter"
	must := n.context.must_know
	object.keys(must) == {
		"campaign_objective", "target_audience", "core_proposition", "messaging_hierarchy",
		"approved_claims", "cta", "restrictions", "offer", "product", "required_deliverables",
	}
	n.context.may_know == {"selected_supporting_research": strategy.selected_supporting_research}
	not must.rejected_alternatives
	not n.context.may_know.rejected_alternatives
	some m in d.next
	m.agent == "visual_prompt_agent"
	m.context == n.context
}

test_first_deliverable_keeps_production if {
	d := decide(copy_handoff(1, [ref("STRATEGY_BRIEF", 1)], copy), st_production)
	d.outcome == "allow"
	d.status_after == "PRODUCTION"
	next_agents(d) == {"visual_prompt_agent"}
	recorded(d) == {"COPY_PACKAGE v1 under_review"}
}

test_visual_first_then_copy_pending if {
	d := decide(visual_handoff(1, [ref("STRATEGY_BRIEF", 1)], visual), st_production)
	d.status_after == "PRODUCTION"
	next_agents(d) == {"copywriter"}
}

test_second_deliverable_moves_to_qa if {
	d := decide(visual_handoff(1, [ref("STRATEGY_BRIEF", 1)], visual), st_copy_in)
	d.outcome == "allow"
	d.status_after == "QA"
	next_agents(d) == {"qa_agent"}
	ctx := d.next[0].context.must_know
	object.keys(ctx) == {"STRATEGY_BRIEF", "COPY_PACKAGE", "VISUAL_PACKAGE"}
	ctx.VISUAL_PACKAGE.prompts == visual.prompts
	ctx.COPY_PACKAGE.claims_used == copy.claims_used
}

test_qa_accept_awaits_human_approval if {
	d := decide(qa(1, "ACCEPT", []), st_qa)
	d.outcome == "await_human"
	d.status_after == "HUMAN_APPROVAL"
	next_agents(d) == {"campaign_approver"}
	d.requires_human_review == true
	recorded(d) == {"QA_REPORT v2 under_review"}
	status_events(d) == {"QA_REPORT v1 superseded"}
}

test_human_approval_summary if {
	d := decide(qa(1, "ACCEPT", []), st_qa)
	summary := d.next[0].context.must_know
	object.keys(summary) == {"strategy_summary", "final_copy", "visual_prompts", "qa_result", "outstanding_assumptions"}
	summary.strategy_summary.core_proposition == strategy.core_proposition
	summary.final_copy == copy
	summary.visual_prompts == visual.prompts
	summary.qa_result.result == "pass"
	"A 30% discount triggers a first order" in summary.outstanding_assumptions
	"Remote workers prefer home delivery" in summary.outstanding_assumptions
}

test_final_approval_goes_to_delivery if {
	d := decide(approval("APPROVE", final_refs, []), st_human)
	d.outcome == "allow"
	d.status_after == "DELIVERY"
	next_agents(d) == {"delivery_agent"}
	status_events(d) == {"COPY_PACKAGE v1 approved", "VISUAL_PACKAGE v1 approved", "QA_REPORT v2 approved"}
	recorded(d) == {"APPROVAL_RECORD v2 approved"}
	d.next[0].context.must_know.approved_artifacts == final_refs
	d.next[0].context.must_know.final_copy == copy.deliverables
}

test_delivery_records_pending_effect if {
	d := decide(delivery_handoff(delivery_inputs, client_package), st_delivery)
	d.outcome == "allow"
	d.status_after == "DELIVERY"
	count(d.next) == 0
	recorded(d) == {"CLIENT_PACKAGE v1 approved"}
	{"type": "effect", "id": "client-package@v1", "status": "pending"} in d.events
}

test_acknowledged_completes_and_finalizes if {
	d := decide(outcome("client-package@v1", "acknowledged"), st_delivering("pending"))
	d.outcome == "allow"
	d.status_after == "COMPLETED"
	status_events(d) == {
		"RESEARCH_BRIEF v1 final", "STRATEGY_BRIEF v1 final", "COPY_PACKAGE v1 final", "VISUAL_PACKAGE v1 final",
		"QA_REPORT v2 final", "APPROVAL_RECORD v1 final", "APPROVAL_RECORD v2 final", "CLIENT_PACKAGE v1 final",
	}
	{"type": "effect", "id": "client-package@v1", "status": "acknowledged"} in d.events
}

test_cancel_from_any_status if {
	every st in [st_research, st_qa, st_human, st_delivery] {
		d := decide(object.union(envelope("cancel", approver), {"reason": "Brand team paused the campaign"}), st)
		d.outcome == "allow"
		d.status_after == "CANCELLED"
	}
}
