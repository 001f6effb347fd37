package handoff.core_test

import data.handoff.core

block_reason := {"code": "QUALITY_GATE_FAILED", "gate": "QG-2", "message": "CTA missing", "path": "output.content.cta", "outcome": "block"}

human_reason := {"code": "RETRY_EXHAUSTED", "message": "budget spent", "path": "task", "outcome": "await_human"}

allow_proposal := {
	"outcome": "allow",
	"status_after": "QA",
	"next": [{"agent": "qa", "task": "review", "context": {"must_know": {}, "may_know": {}}}],
}

test_decide_block_wins if {
	d := decide_for(handoff_input, {block_reason, human_reason}, allow_proposal)
	d == {
		"outcome": "block",
		"reasons": [block_reason, human_reason],
		"status_after": "STRATEGY",
		"next": [],
		"revise": [],
		"events": [],
		"requires_human_review": false,
	}
}

test_decide_reason_without_outcome_blocks if {
	d := decide_for(handoff_input, [{"code": "SOURCE_GROUNDING_FAILURE", "message": "claim 2 has no evidence"}], allow_proposal)
	d.outcome == "block"
}

test_decide_proposal_reasons_merged if {
	d := decide_for(handoff_input, set(), object.union(allow_proposal, {"reasons": [block_reason]}))
	d.outcome == "block"
	d.reasons == [block_reason]
}

test_decide_allow_fills_defaults if {
	event := core.handoff_event with input as handoff_input with data.handoff.testpack.contract as fixture_pack
	d := decide_for(handoff_input, set(), object.union(allow_proposal, {"events": [event]}))
	d == {
		"outcome": "allow",
		"reasons": [],
		"status_after": "QA",
		"next": allow_proposal.next,
		"revise": [],
		"events": [event],
		"requires_human_review": false,
	}
}

test_decide_keeps_non_blocking_reasons if {
	d := decide_for(handoff_input, {human_reason}, {"outcome": "await_human", "status_after": "ESCALATED", "requires_human_review": true})
	d.outcome == "await_human"
	d.reasons == [human_reason]
	d.requires_human_review == true
}

test_decide_invalid_transition if {
	d := decide_for(handoff_input, set(), {"outcome": "allow", "status_after": "DONE"})
	d.outcome == "block"
	d.status_after == "STRATEGY"
	d.reasons == [{"code": "INVALID_TRANSITION", "title": "Invalid transition", "message": "pack \"testpack\" has no transition STRATEGY -> DONE", "outcome": "block"}]
}

test_decide_valid_transition_twin if {
	decide_for(handoff_input, set(), {"outcome": "allow", "status_after": "QA"}).outcome == "allow"
	decide_for(handoff_input, {revise_reason}, {"outcome": "revise", "status_after": "STRATEGY"}).outcome == "revise"
}

revise_reason := {"code": "QUALITY_GATE_FAILED", "message": "a defect to fix", "path": "defects[0]", "outcome": "revise"}

fail_reason := {"code": "REJECTED", "message": "rejected for good", "path": "decision", "outcome": "fail"}

# A revise or a fail says why: without a reason the proposal is malformed.
test_decide_revise_or_fail_without_a_reason if {
	every outcome in ["revise", "fail"] {
		d := decide_for(handoff_input, set(), {"outcome": outcome, "status_after": "STRATEGY"})
		d.outcome == "block"
		d.status_after == "STRATEGY"
		d.reasons == [{"code": "POLICY_ERROR", "title": "Malformed proposal", "message": sprintf("the pack proposed %s without any reason: a %s names why", [outcome, outcome]), "outcome": "block"}]
	}
}

test_decide_revise_or_fail_with_a_reason_twin if {
	revise := decide_for(handoff_input, {revise_reason}, {"outcome": "revise", "status_after": "STRATEGY"})
	revise.outcome == "revise"
	revise.reasons == [revise_reason]
	failed := decide_for(handoff_input, {fail_reason}, {"outcome": "fail", "status_after": "STRATEGY"})
	failed.outcome == "fail"
	failed.reasons == [fail_reason]
}

test_decide_sorts_reasons if {
	rs := {
		{"code": "B_CODE", "message": "m", "outcome": "block"},
		{"code": "A_CODE", "message": "z", "path": "b", "outcome": "block"},
		{"code": "A_CODE", "message": "a", "path": "b", "outcome": "block"},
		{"code": "A_CODE", "message": "m", "path": "a", "outcome": "block"},
		{"code": "A_CODE", "message": "m", "outcome": "block"},
	}
	d := decide_for(handoff_input, rs, allow_proposal)
	[[r.code, object.get(r, "path", ""), r.message] | some r in d.reasons] == [
		["A_CODE", "", "m"],
		["A_CODE", "a", "m"],
		["A_CODE", "b", "a"],
		["A_CODE", "b", "z"],
		["B_CODE", "", "m"],
	]
}

test_decide_malformed_proposals if {
	every proposal in [{}, {"outcome": "maybe", "status_after": "QA"}, {"outcome": "allow"}, "allow"] {
		d := decide_for(handoff_input, set(), proposal)
		d.outcome == "block"
		{r.code | some r in d.reasons} == {"POLICY_ERROR"}
	}
}

test_decide_proposed_block if {
	empty := decide_for(handoff_input, set(), {"outcome": "block"})
	empty.outcome == "block"
	[r.message | some r in empty.reasons] == ["the pack proposed a block without any reason"]
	with_reason := decide_for(handoff_input, {human_reason}, {"outcome": "block", "status_after": "DONE"})
	with_reason.outcome == "block"
	with_reason.status_after == "STRATEGY"
	with_reason.reasons == [human_reason]
}

test_core_decision_always_blocks if {
	d := core.decision with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
	d.outcome == "block"
	[r.code | some r in d.reasons] == ["POLICY_ERROR"]
	d.events == []
}

test_core_decision_unroutable if {
	inp := {
		"pack": "",
		"request": handoff_request,
		"validation": {"errors": [{"code": "TENANT_MISMATCH", "path": "tenant_id", "message": "workflow wf-1 belongs to another tenant"}]},
		"state": null,
		"derived": {"output_hash": hash_plan, "input_hash": hash_inputs, "context_bytes": 64, "payload_bytes": 900},
		"now": "2026-11-29T21:00:00Z",
	}
	d := core.decision with input as inp with data.handoff.core.contract as guardrails
	d == {
		"outcome": "block",
		"reasons": [{"code": "TENANT_MISMATCH", "title": "Tenant mismatch", "message": "workflow wf-1 belongs to another tenant", "path": "tenant_id", "outcome": "block"}],
		"status_after": "NONE",
		"next": [],
		"revise": [],
		"events": [],
		"requires_human_review": false,
	}
}

test_blocked if {
	core.blocked with input as with_request(handoff_input, {"trace_id": " "})
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
	not core.blocked with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
}

test_handoff_event if {
	core.handoff_event == {
		"type": "handoff_accepted",
		"source": "strategist",
		"target": "qa",
		"input_hash": hash_inputs,
		"stage": "STRATEGY",
	} with input as handoff_input
	not core.handoff_event with input as review_input
}

test_artifact_event if {
	e := core.artifact_event("under_review") with input as handoff_input
	e.type == "artifact_recorded"
	e.ref == {"id": "plan-1", "type": "PLAN", "version": 1, "hash": hash_plan}
	e.status == "under_review"
	e.producer == "strategist"
	e.based_on == [brief_ref]
	e.limitations == ["Only EU market data"]
	e.content == handoff_request.output.content
}

# Reasons come root cause first: the codes of guardrails.root_causes in their order, then
# the pack's root_causes, then every other code alphabetically.
test_root_cause_first if {
	rs := [
		{"code": "APPROVAL_REQUIRED", "message": "m", "outcome": "block"},
		{"code": "OUT_OF_SEQUENCE", "message": "m", "outcome": "block"},
		{"code": "ARTIFACT_NOT_APPROVED", "message": "m", "outcome": "block"},
		{"code": "SOURCE_NOT_AUTHORIZED", "message": "m", "outcome": "block"},
	]
	d := core.decide(rs, {}) with input as handoff_input
	[r.code | some r in d.reasons] == ["SOURCE_NOT_AUTHORIZED", "OUT_OF_SEQUENCE", "APPROVAL_REQUIRED", "ARTIFACT_NOT_APPROVED"]
}

test_root_cause_of_the_pack if {
	rs := [
		{"code": "APPROVAL_REQUIRED", "message": "m", "outcome": "block"},
		{"code": "WRONG_STAGE", "message": "m", "outcome": "block"},
	]
	inp := handoff_input
	d := core.decide(rs, {}) with input as inp with data.handoff.testpack.contract.root_causes as ["WRONG_STAGE"]
	[r.code | some r in d.reasons] == ["WRONG_STAGE", "APPROVAL_REQUIRED"]
}

# The twin: without root causes, reasons are sorted by code.
test_root_cause_twin if {
	rs := [
		{"code": "WRONG_STAGE", "message": "m", "outcome": "block"},
		{"code": "APPROVAL_REQUIRED", "message": "m", "outcome": "block"},
	]
	d := core.decide(rs, {}) with input as handoff_input
	[r.code | some r in d.reasons] == ["APPROVAL_REQUIRED", "WRONG_STAGE"]
}

# A pack's answer is its proposal; without one the request is blocked in its status, with
# the pack's reasons for leaving it unanswered (none when the pack does not expect it).
test_proposal_takes_the_answer if {
	answer := {"outcome": "allow", "status_after": "RESEARCH"}
	core.proposal({answer}, [{"code": "OUT_OF_SEQUENCE"}]) == answer
}

test_proposal_blocks_without_an_answer if {
	r := {"code": "OUT_OF_SEQUENCE", "message": "m"}
	core.proposal(set(), [r]) == {"outcome": "block", "status_after": "QA", "reasons": [r]} with input as {"state": {"status": "QA"}}
	core.proposal(set(), []) == {"outcome": "block", "status_after": "NONE", "reasons": []} with input as {}
}
