# Who may act when, failures and cancellation, and failing closed: an invalid request, a
# missing snapshot or missing tables never let a request through.
package handoff.video_test

import data.handoff.video

test_out_of_sequence_handoff if {
	d := decide(deliver("A4"), st_script_intake)
	codes(d) == {"OUT_OF_SEQUENCE"}
	d.status_after == "SCRIPT_INTAKE"
	count(d.events) == 0
}

test_out_of_sequence_twin if {
	d := decide(deliver("A4"), st_storyboarding)
	not "OUT_OF_SEQUENCE" in codes(d)
}

test_out_of_sequence_review_by_another_agent if {
	d := decide(review("director", "ACCEPT", [ref("A1", 1), ref("SKILL_ROUTING", 1)], []), st_brief_intake)
	"OUT_OF_SEQUENCE" in codes(d)
	"SOURCE_NOT_AUTHORIZED" in codes(d)
}

test_out_of_sequence_review_outside_a_check if {
	d := decide(script_check("ACCEPT", humanized), st_scriptwriting)
	"OUT_OF_SEQUENCE" in codes(d)
}

test_out_of_sequence_approval if {
	d := decide(approval(client, "APPROVE", [ref("A1", 1)], []), st_scriptwriting)
	"OUT_OF_SEQUENCE" in codes(d)
}

test_out_of_sequence_outcome if {
	req := object.union(envelope("outcome", system), {"effect_id": "e-1", "result": "acknowledged"})
	d := decide(req, st_editing)
	codes(d) == {"EFFECT_NOT_FOUND", "OUT_OF_SEQUENCE"}

	# The root cause comes first: the workflow is not at a step that takes outcomes.
	d.reasons[0].code == "OUT_OF_SEQUENCE"
}

test_start_by_agent if {
	d := decide(object.union(start, {"actor": agent("client-intake")}), state("NEW", {}))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_start_by_person_twin if {
	d := decide(object.union(start, {"actor": lead}), state("NEW", {}))
	count(d.reasons) == 0
	d.status_after == "INTAKE"
}

test_cancel_by_client if {
	d := decide(object.union(envelope("cancel", client), {"reason": "Stop"}), st_editing)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_cancel_twin_by_production_lead if {
	d := decide(object.union(envelope("cancel", lead), {"reason": "Budget cut"}), st_editing)
	count(d.reasons) == 0
	d.status_after == "CANCELLED"
}

test_failure_retried if {
	d := decide(object.union(failure("prompting", "vfx-supervisor", "rate_limit"), {"retry_after_ms": 5000}), st_prompting)
	d.outcome == "retry"
	d.status_after == "PROMPTING"
	d.retry.attempt == 2
	d.retry.delay_ms >= 5000
	"retry/prompting 1" in counter_events(d)
}

test_failure_not_retryable_escalates if {
	d := decide(failure("prompting", "vfx-supervisor", "permanent"), st_prompting)
	codes(d) == {"NOT_RETRYABLE"}
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	next_agents(d) == {"production_lead"}
}

test_nothing_after_terminal if {
	st := with_state(st_editing, {"status": "COMPLETED", "terminal": true})
	d := decide(deliver("EDIT_PLAN"), st)
	codes(d) == {"WORKFLOW_TERMINAL"}
}

test_invalid_request_blocks if {
	inp := object.union(input_of(deliver("A2"), st_scriptwriting), {"validation": {"errors": [{"code": "SCHEMA_INVALID", "path": "output.content.characters", "message": "required field missing"}]}})
	d := video.decision with input as inp
	codes(d) == {"SCHEMA_INVALID"}
	d.outcome == "block"
}

test_missing_state_blocks if {
	inp := object.union(input_of(deliver("A2"), st_scriptwriting), {"state": null})
	d := video.decision with input as inp
	d.outcome == "block"
	"WORKFLOW_NOT_FOUND" in codes(d)
}

test_missing_tables_block if {
	d := decide_with(deliver("A2"), st_scriptwriting, {})
	d.outcome == "block"
	"CONTRACT_MISSING" in codes(d)
}

# Without the registry's consumes lists nothing may be consumed, and without the routing
# table nothing is in sequence.
test_missing_permissions_deny if {
	agents := {id: object.remove(a, ["consumes"]) | some id, a in video_contract.agents}
	contract := object.union(object.remove(video_contract, ["agents"]), {"agents": agents})
	d := decide_with(deliver("A2"), st_scriptwriting, contract)
	"INPUT_NOT_PERMITTED" in codes(d)
	d.outcome == "block"
}

test_missing_routing_denies if {
	contract := object.union(object.remove(video_contract, ["workflow"]), {"workflow": object.remove(video_contract.workflow, ["actors"])})
	d := decide_with(deliver("A2"), st_scriptwriting, contract)
	"OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
}

# A gate the contract lists but the policy does not know fails closed: it still runs
# every gate it knows even when the contract's list is cut short.
test_gates_run_whatever_the_contract_lists if {
	artifacts := object.union(object.remove(video_contract.artifacts, ["A2"]), {"A2": object.union(object.remove(video_contract.artifacts.A2, ["gates"]), {"gates": []})})
	contract := object.union(object.remove(video_contract, ["artifacts"]), {"artifacts": artifacts})
	d := decide_with(deliver_with("A2", patch(a2, "/characters/1/visual_notes", "")), st_scriptwriting, contract)
	"all_characters_have_visual_notes" in gates_of(d, "QUALITY_GATE_FAILED")
}
