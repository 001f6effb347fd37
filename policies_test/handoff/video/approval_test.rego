# People decide: the client confirms, returns or rejects; the production lead answers an
# escalation by returning work or rejecting it, never by waiving a gate.
package handoff.video_test

st_escalated := with_state(st_script_intake, {"status": "ESCALATED", "counters": {"returns/A6": 3}})

test_client_confirmation_must_be_named if {
	d := decide(approval(client, "APPROVE", [], []), st_awaiting)
	"APPROVAL_INCOMPLETE" in codes(d)
	d.outcome == "block"
}

test_client_confirmation_named_twin if {
	d := decide(approval(client, "APPROVE", [ref("CLIENT_CONFIRMATION", 1)], []), st_awaiting)
	not "APPROVAL_INCOMPLETE" in codes(d)
}

test_client_returns_the_edit_plan if {
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], ["EDIT_PLAN"]), st_awaiting)
	codes(d) == {"REVISION_REQUESTED"}
	d.outcome == "revise"
	d.status_after == "EDITING"
	next_agents(d) == {"editor"}
	status_events(d) == {"CLIENT_CONFIRMATION v1 revision_required"}
	open_defects(d) == {"AWAITING_CLIENT@8/EDIT_PLAN"}
	d.revise == [{"artifact": "EDIT_PLAN", "producer": "editor", "defects": ["AWAITING_CLIENT@8/EDIT_PLAN"]}]
	d.next[0].context.must_know.comment == "Reviewed"
}

test_client_returns_the_script_and_the_chain_reruns if {
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], ["A6", "PROMPT"]), st_awaiting)
	d.status_after == "SCRIPTWRITING"
	open_defects(d) == {"AWAITING_CLIENT@8/A6", "AWAITING_CLIENT@8/PROMPT"}
}

test_client_asks_for_a_new_confirmation_only if {
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], ["CLIENT_CONFIRMATION"]), st_awaiting)
	d.status_after == "CLIENT_REVIEW"
	next_agents(d) == {"client-review-lead"}
	open_defects(d) == set()
}

test_revision_target_invalid_empty if {
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], []), st_awaiting)
	codes(d) == {"REVISION_TARGET_INVALID"}
}

test_revision_target_invalid_not_returnable if {
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], ["REQUIREMENTS"]), st_awaiting)
	codes(d) == {"REVISION_TARGET_INVALID"}
}

test_revision_target_twin if {
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], ["A5"]), st_awaiting)
	not "REVISION_TARGET_INVALID" in codes(d)
	d.status_after == "STORYBOARDING"
}

test_client_rejects if {
	d := decide(approval(client, "REJECT", [ref("CLIENT_CONFIRMATION", 1)], []), st_awaiting)
	codes(d) == {"HUMAN_REJECTED"}
	d.outcome == "fail"
	d.status_after == "REJECTED"
	status_events(d) == {"CLIENT_CONFIRMATION v1 rejected"}
}

test_client_rejects_twin_confirms if {
	d := decide(approval(client, "APPROVE", [ref("CLIENT_CONFIRMATION", 1)], []), st_awaiting)
	not "HUMAN_REJECTED" in codes(d)
}

test_approval_of_another_stage if {
	d := decide(object.union(approval(client, "APPROVE", [ref("CLIENT_CONFIRMATION", 1)], []), {"stage": "ESCALATED"}), st_awaiting)
	"APPROVAL_INVALID" in codes(d)
}

test_approval_stage_twin if {
	d := decide(object.union(approval(client, "APPROVE", [ref("CLIENT_CONFIRMATION", 1)], []), {"stage": "AWAITING_CLIENT"}), st_awaiting)
	not "APPROVAL_INVALID" in codes(d)
	d.status_after == "COMPLETED"
}

test_escalation_is_not_waived if {
	d := decide(object.union(approval(lead, "APPROVE", [], []), {"stage": "ESCALATED"}), st_escalated)
	codes(d) == {"APPROVAL_INVALID"}
	d.outcome == "block"
}

test_production_lead_returns_work if {
	d := decide(object.union(approval(lead, "REQUEST_REVISION", [], ["A6"]), {"stage": "ESCALATED"}), st_escalated)
	codes(d) == {"REVISION_REQUESTED"}
	d.status_after == "SCRIPTWRITING"
	"returns/A6 0" in counter_events(d)
	status_events(d) == {"A6 v1 revision_required"}
}

test_production_lead_rejects if {
	d := decide(object.union(approval(lead, "REJECT", [], []), {"stage": "ESCALATED"}), st_escalated)
	codes(d) == {"HUMAN_REJECTED"}
	d.status_after == "REJECTED"
}

test_client_may_not_decide_an_escalation if {
	d := decide(object.union(approval(client, "REQUEST_REVISION", [], ["A6"]), {"stage": "ESCALATED"}), st_escalated)
	"APPROVAL_REQUIRED" in codes(d)
}

test_revision_requested_twin_invalid_target if {
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], ["REQUIREMENTS"]), st_awaiting)
	not "REVISION_REQUESTED" in codes(d)
	d.outcome == "block"
}
