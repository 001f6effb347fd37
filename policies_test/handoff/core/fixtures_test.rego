# Fixtures for the core guardrail tests: a small pack ("testpack") with three agents and
# two human roles, and one valid request of every kind against a realistic workflow
# snapshot. Each test changes one thing and checks the reasons.
package handoff.core_test

import data.handoff.core

hash_brief := "sha256:1111111111111111111111111111111111111111111111111111111111111111"

hash_plan := "sha256:2222222222222222222222222222222222222222222222222222222222222222"

hash_plan_v2 := "sha256:3333333333333333333333333333333333333333333333333333333333333333"

hash_inputs := "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

hash_old_inputs := "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

fixture_pack := {
	"name": "testpack",
	"version": "1",
	"title": "Test pack",
	"agents": {
		"researcher": {
			"name": "Researcher",
			"responsibility": "Produce evidence-backed research",
			"may": ["Collect verified information"],
			"may_not": ["Create strategy"],
			"tasks": ["research"],
			"produces": ["BRIEF"],
			"consumes": [],
			"hands_to": ["strategist"],
			"reviews": [],
		},
		"strategist": {
			"name": "Strategist",
			"responsibility": "Turn approved research into a plan",
			"may": [],
			"may_not": ["Invent facts"],
			"tasks": ["strategy"],
			"produces": ["PLAN"],
			"consumes": ["BRIEF", "QA_REPORT"],
			"hands_to": ["qa", "researcher"],
			"reviews": [],
		},
		"qa": {
			"name": "QA",
			"responsibility": "Check plans against the contract",
			"may": [],
			"may_not": ["Rewrite valid work"],
			"tasks": ["review"],
			"produces": ["QA_REPORT"],
			"consumes": ["PLAN"],
			"hands_to": ["strategist", "approver"],
			"reviews": ["PLAN"],
		},
	},
	"roles": {
		"approver": {"name": "Campaign approver", "approves": ["PLAN", "PLAN_APPROVAL"], "resolves_conflicts": false},
		"lead": {"name": "Team lead", "approves": [], "resolves_conflicts": true},
	},
	"artifacts": {
		"BRIEF": {"title": "Research brief", "producer": "researcher", "consumers": ["strategist"], "fields": {}, "acceptance": [], "requires_approval": true, "gates": []},
		"PLAN": {"title": "Plan", "producer": "strategist", "consumers": ["qa"], "fields": {}, "acceptance": [], "requires_approval": false, "gates": []},
		"QA_REPORT": {"title": "QA report", "producer": "qa", "consumers": ["strategist"], "fields": {}, "acceptance": [], "requires_approval": false, "gates": []},
	},
	"workflow": {
		"initial": "INTAKE",
		"statuses": ["INTAKE", "RESEARCH", "STRATEGY", "QA", "DONE", "ESCALATED", "CANCELLED"],
		"terminal": ["DONE", "ESCALATED", "CANCELLED"],
		"transitions": [
			{"from": "INTAKE", "to": "RESEARCH"},
			{"from": "RESEARCH", "to": "STRATEGY"},
			{"from": "STRATEGY", "to": "QA"},
			{"from": "QA", "to": "STRATEGY"},
			{"from": "QA", "to": "DONE"},
			{"from": "STRATEGY", "to": "ESCALATED"},
		],
		"actors": {
			"STRATEGY": [{"agent": "strategist", "task": "strategy"}],
			"QA": [{"agent": "qa", "task": "review"}, {"agent": "strategist", "task": "strategy"}],
		},
	},
	"verdicts": {"blocking_severities": ["S1", "S2", "S3"], "failed_items": ["defect"], "failed_gates_as_defects": false, "severities": {}},
	"limits": {
		"max_review_cycles": 2,
		"max_handoffs_per_stage": 5,
		"max_edge_visits": 3,
		"loop_window": 8,
		"max_context_bytes": 1000,
		"retry": {
			"timeout": {"retryable": true, "max_attempts": 3, "base_delay_ms": 1000, "max_delay_ms": 5000, "multiplier": 2, "honour_retry_after": false},
			"rate_limit": {"retryable": true, "max_attempts": 5, "base_delay_ms": 500, "max_delay_ms": 3000, "multiplier": 3, "honour_retry_after": true},
			"authorization": {"retryable": false, "max_attempts": 1, "base_delay_ms": 0, "max_delay_ms": 0, "multiplier": 2, "honour_retry_after": false},
		},
	},
	"context": {"strategist>qa": {
		"from": "PLAN",
		"must_know": ["objective", "audience"],
		"may_know": ["notes", "raw_research"],
		"do_not_need": ["raw_research", "rejected_options"],
	}},
	"gates": {},
	"sensitive_fields": [],
}

brief_ref := {"id": "brief-1", "type": "BRIEF", "version": 1, "hash": hash_brief}

plan_ref := {"id": "plan-1", "type": "PLAN", "version": 1, "hash": hash_plan}

brief_v1 := {
	"ref": brief_ref,
	"status": "approved",
	"producer": "researcher",
	"based_on": [],
	"assumptions": ["Budget is fixed for Q1"],
	"limitations": ["Only EU market data"],
	"content": {
		"objective": "Grow EU sign-ups",
		"claims": [{"text": "SMB owners prefer monthly billing", "sources": ["survey-2026-10"]}],
	},
	"recorded_at": "2026-11-29T20:10:00Z",
}

plan_v1 := {
	"ref": plan_ref,
	"status": "under_review",
	"producer": "strategist",
	"based_on": [brief_ref],
	"assumptions": ["Budget is fixed for Q1"],
	"limitations": ["Only EU market data"],
	"content": {"objective": "Grow EU sign-ups", "audience": "SMB owners", "notes": "Launch in Q1", "raw_research": "interview transcripts"},
	"recorded_at": "2026-11-29T20:40:00Z",
}

# strategy_state is a workflow in STRATEGY: the approved BRIEF v1 is recorded and the
# researcher handed it to the strategist once.
strategy_state := {
	"workflow_id": "wf-1",
	"tenant_id": "tenant-a",
	"organization_id": "org-a",
	"pack": "testpack",
	"subject_id": "project-7",
	"status": "STRATEGY",
	"terminal": false,
	"state_version": 4,
	"created_at": "2026-11-29T20:00:00Z",
	"updated_at": "2026-11-29T20:30:00Z",
	"artifacts": {"BRIEF": {"id": "brief-1", "latest": 1, "approved": 1, "versions": {"1": brief_v1}}},
	"counters": {},
	"edges": {"researcher>strategist": 1},
	"input_hashes": {concat("|", ["researcher>strategist", hash_old_inputs]): true},
	"recent_edges": ["researcher>strategist"],
	"stage_handoffs": {"RESEARCH": 1},
	"conflicts": {},
	"open_conflicts": 0,
	"approvals": {"BRIEF": {"decision": "APPROVE", "by": "dana", "artifacts": [brief_ref]}},
	"defects": {},
	"effects": {},
}

# qa_state is the same workflow in QA with PLAN v1 under review.
qa_state := object.union(strategy_state, {
	"status": "QA",
	"state_version": 5,
	"artifacts": {"PLAN": {"id": "plan-1", "latest": 1, "approved": 0, "versions": {"1": plan_v1}}},
	"edges": {"strategist>qa": 1},
	"input_hashes": {concat("|", ["strategist>qa", hash_inputs]): true},
	"recent_edges": ["researcher>strategist", "strategist>qa"],
	"stage_handoffs": {"STRATEGY": 1},
})

envelope := {
	"tenant_id": "tenant-a",
	"organization_id": "org-a",
	"workflow_id": "wf-1",
	"trace_id": "trace-7f3a",
	"created_at": "2026-11-29T20:59:00Z",
}

# handoff_request: the strategist delivers PLAN v1 to QA.
handoff_request := object.union(envelope, {
	"request_id": "req-handoff-1",
	"kind": "handoff",
	"actor": {"type": "agent", "id": "strategist"},
	"expected_version": 4,
	"handoff_id": "ho-2",
	"source_agent": "strategist",
	"target_agent": "qa",
	"task_type": "strategy",
	"input_artifacts": [brief_ref],
	"output": {
		"id": "plan-1",
		"type": "PLAN",
		"version": 1,
		"content": {
			"objective": "Grow EU sign-ups",
			"audience": "SMB owners",
			"notes": "Launch in Q1",
			"raw_research": "interview transcripts",
			"claims": [{"text": "Monthly billing lifts conversion", "sources": ["brief-1#finding-2"]}],
		},
	},
	"output_summary": "Plan for the EU launch",
	"assumptions": ["Budget is fixed for Q1"],
	"limitations": ["Only EU market data"],
	"confidence_score": 0.8,
	"requires_validation": false,
	"context": {"objective": "Grow EU sign-ups", "audience": "SMB owners"},
})

handoff_input := {
	"pack": "testpack",
	"request": handoff_request,
	"validation": {"errors": []},
	"state": strategy_state,
	"derived": {"output_hash": hash_plan, "input_hash": hash_inputs, "context_bytes": 64, "payload_bytes": 900},
	"now": "2026-11-29T21:00:00Z",
}

# review_input: QA accepts PLAN v1.
review_input := set_request(object.union(handoff_input, {"state": qa_state}), object.union(envelope, {
	"request_id": "req-review-1",
	"kind": "review",
	"actor": {"type": "agent", "id": "qa"},
	"verdict": "ACCEPT",
	"artifacts": [plan_ref],
	"defects": [],
	"gates": [{"id": "QG-1", "passed": true}],
	"summary": "Plan matches the brief",
}))

# approval_input: a campaign approver approves PLAN v1.
approval_input := set_request(review_input, object.union(envelope, {
	"request_id": "req-approval-1",
	"kind": "approval",
	"actor": {"type": "human", "id": "dana", "roles": ["approver"]},
	"decision": "APPROVE",
	"artifacts": [plan_ref],
	"revise": [],
	"comment": "Go ahead",
}))

# failure_input: the host reports that the strategist's task timed out once.
failure_input := set_request(handoff_input, object.union(envelope, {
	"request_id": "req-failure-1",
	"kind": "failure",
	"actor": {"type": "system", "id": "orchestrator"},
	"task": "strategy",
	"agent": "strategist",
	"class": "timeout",
	"detail": "no answer within 30 s",
}))

conflict_state := object.union(qa_state, {
	"conflicts": {"c-1": {
		"id": "c-1",
		"conflict_type": "contradicting_evidence",
		"status": "open",
		"artifacts": [brief_ref, plan_ref],
		"description": "Plan contradicts the brief on pricing",
		"raised_by": "qa",
	}},
	"open_conflicts": 1,
})

# resolution_input: the team lead resolves the open conflict c-1.
resolution_input := set_request(object.union(review_input, {"state": conflict_state}), object.union(envelope, {
	"request_id": "req-resolution-1",
	"kind": "resolution",
	"actor": {"type": "human", "id": "lee", "roles": ["lead"]},
	"conflict_id": "c-1",
	"chosen": brief_ref,
	"rationale": "The brief's pricing evidence is newer",
}))

# outcome_input: the host reports the delivery was acknowledged.
outcome_input := set_request(with_state(review_input, {"effects": {"delivery-1": "pending"}}), object.union(envelope, {
	"request_id": "req-outcome-1",
	"kind": "outcome",
	"actor": {"type": "system", "id": "orchestrator"},
	"effect_id": "delivery-1",
	"result": "acknowledged",
}))

# cancel_input: a person cancels the workflow.
cancel_input := set_request(review_input, object.union(envelope, {
	"request_id": "req-cancel-1",
	"kind": "cancel",
	"actor": {"type": "human", "id": "dana", "roles": ["approver"]},
	"reason": "The client withdrew the brief",
}))

# start_input: the host starts a workflow; the engine hands in a fresh state.
start_input := {
	"pack": "testpack",
	"request": {
		"request_id": "req-start-1",
		"kind": "start",
		"tenant_id": "tenant-a",
		"organization_id": "org-a",
		"workflow_id": "wf-1",
		"trace_id": "trace-7f3a",
		"actor": {"type": "system", "id": "orchestrator"},
		"pack": "testpack",
		"subject_id": "project-7",
		"brief": {"goal": "EU launch"},
	},
	"validation": {"errors": []},
	"state": {
		"workflow_id": "wf-1",
		"tenant_id": "tenant-a",
		"organization_id": "org-a",
		"pack": "testpack",
		"subject_id": "project-7",
		"status": "INTAKE",
		"terminal": false,
		"state_version": 0,
		"created_at": "2026-11-29T21:00:00Z",
		"updated_at": "2026-11-29T21:00:00Z",
		"artifacts": {},
		"counters": {},
		"edges": {},
		"input_hashes": {},
		"recent_edges": [],
		"stage_handoffs": {},
		"conflicts": {},
		"open_conflicts": 0,
		"approvals": {},
		"defects": {},
		"effects": {},
	},
	"derived": {"output_hash": "", "input_hash": "", "context_bytes": 0, "payload_bytes": 300},
	"now": "2026-11-29T21:00:00Z",
}

all_inputs := {
	"start": start_input,
	"handoff": handoff_input,
	"review": review_input,
	"approval": approval_input,
	"failure": failure_input,
	"resolution": resolution_input,
	"outcome": outcome_input,
	"cancel": cancel_input,
}

# guardrails is the shipped core guardrail table (contracts/core/guardrails.cue). Run
# from the tree root (opa test policies policies_test) it loads at
# data.handoff.core.contract; run on policies/handoff/core alone, the loader roots it at
# data.contract. The tests use it from either place, so they check the real patterns.
guardrails := data.handoff.core.contract if is_object(data.handoff.core.contract)

else := data.contract

# reasons_for evaluates the core reasons for an input against the test pack.
reasons_for(inp) := rs if {
	rs := core.reasons with input as inp
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
}

codes_for(inp) := {r.code | some r in reasons_for(inp)}

# reasons_with evaluates with a replaced pack contract.
reasons_with(inp, pack) := rs if {
	rs := core.reasons with input as inp
		with data.handoff.testpack.contract as pack
		with data.handoff.core.contract as guardrails
}

# with_request merges a patch into the request (objects merge, other values replace).
with_request(inp, patch) := object.union(inp, {"request": patch})

# set_request replaces the whole request.
set_request(inp, req) := object.union(object.remove(inp, ["request"]), {"request": req})

# set_state replaces the whole state.
set_state(inp, state) := object.union(object.remove(inp, ["state"]), {"state": state})

# with_state merges a patch into the state.
with_state(inp, patch) := object.union(inp, {"state": patch})

# reason_with_code is the one reason of a code (fails when there are none or several).
reason_with_code(inp, code) := r if {
	matches := [x | some x in reasons_for(inp); x.code == code]
	count(matches) == 1
	r := matches[0]
}

test_every_base_request_is_clean if {
	every kind, inp in all_inputs {
		inp.request.kind == kind
		count(reasons_for(inp)) == 0
	}
}

# has_reason holds when the input yields a reason with the code at the path.
has_reason(inp, code, path) if {
	some r in reasons_for(inp)
	r.code == code
	object.get(r, "path", "") == path
}

# message_of is the message of the reason with the code at the path.
message_of(inp, code, path) := m if {
	some r in reasons_for(inp)
	r.code == code
	object.get(r, "path", "") == path
	m := r.message
}

clean(inp) if count(reasons_for(inp)) == 0

# decide_for evaluates core.decide against an input and the test pack.
decide_for(inp, rs, proposal) := d if {
	d := core.decide(rs, proposal) with input as inp
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
}

# plan_v2 is a second PLAN version, made after a QA round.
plan_v2_ref := {"id": "plan-1", "type": "PLAN", "version": 2, "hash": hash_plan_v2}

plan_v2 := object.union(plan_v1, {"ref": plan_v2_ref, "status": "under_review", "recorded_at": "2026-11-29T20:50:00Z"})

# qa_state_v2 has PLAN v1 (revision_required) and v2 (under review).
qa_state_v2 := object.union(qa_state, {"artifacts": {"PLAN": {
	"latest": 2,
	"versions": {"1": object.union(plan_v1, {"status": "revision_required"}), "2": plan_v2},
}}})

# qa_handoff_input: QA hands its report on PLAN v1 to the approver role.
qa_handoff_input := object.union(
	set_request(handoff_input, object.union(envelope, {
		"request_id": "req-handoff-qa",
		"kind": "handoff",
		"actor": {"type": "agent", "id": "qa"},
		"source_agent": "qa",
		"target_agent": "approver",
		"task_type": "review",
		"input_artifacts": [plan_ref],
		"output": {"id": "qa-1", "type": "QA_REPORT", "version": 1, "content": {"verdict": "ACCEPT", "defects": []}},
		"assumptions": [],
		"limitations": ["Only EU market data"],
		"confidence_score": 0.9,
	})),
	{"state": qa_state},
)
