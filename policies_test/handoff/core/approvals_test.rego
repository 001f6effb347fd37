package handoff.core_test

test_agent_may_not_approve if {
	inp := with_request(approval_input, {"actor": {"type": "agent", "id": "qa", "roles": null}})
	rs := [r | some r in reasons_for(inp); r.code == "UNAUTHORIZED_SUBJECT"]
	count(rs) == 1
	codes_for(inp) == {"UNAUTHORIZED_SUBJECT"}
	rs[0].path == "actor.type"
}

test_host_may_not_approve if {
	inp := set_request(approval_input, object.union(approval_input.request, {"actor": {"type": "system", "id": "orchestrator"}}))
	"UNAUTHORIZED_SUBJECT" in codes_for(inp)
}

test_approval_by_person_twin if {
	clean(approval_input)
}

test_agent_may_not_cancel if {
	inp := set_request(cancel_input, object.union(cancel_input.request, {"actor": {"type": "agent", "id": "qa", "roles": []}}))
	codes_for(inp) == {"UNAUTHORIZED_SUBJECT"}
	contains(message_of(inp, "UNAUTHORIZED_SUBJECT", "actor.type"), "agent \"qa\" may not send a cancel request")
}

test_host_may_cancel_twin if {
	clean(set_request(cancel_input, object.union(cancel_input.request, {"actor": {"type": "system", "id": "orchestrator", "roles": []}})))
}

test_person_without_pack_role if {
	inp := with_request(approval_input, {"actor": {"roles": ["marketing"]}})
	codes_for(inp) == {"UNAUTHORIZED_SUBJECT"}
	has_reason(inp, "UNAUTHORIZED_SUBJECT", "actor.roles")
}

test_person_with_pack_role_twin if {
	clean(with_request(approval_input, {"actor": {"roles": ["marketing", "approver"]}}))
}

test_person_may_not_resolve if {
	inp := with_request(resolution_input, {"actor": {"roles": ["approver"]}})
	codes_for(inp) == {"UNAUTHORIZED_SUBJECT"}
	contains(message_of(inp, "UNAUTHORIZED_SUBJECT", "actor.roles"), "resolves conflicts")
}

test_agent_may_not_resolve if {
	inp := with_request(resolution_input, {"actor": {"type": "agent", "id": "qa", "roles": []}})
	count([r | some r in reasons_for(inp); r.code == "UNAUTHORIZED_SUBJECT"]) == 1
}

test_resolution_twin if {
	clean(with_request(resolution_input, {"actor": {"roles": ["lead"]}}))
}

test_approval_required_for_type if {
	inp := with_request(approval_input, {"actor": {"id": "lee", "roles": ["lead"]}})
	codes_for(inp) == {"APPROVAL_REQUIRED"}
	contains(message_of(inp, "APPROVAL_REQUIRED", "artifacts[0]"), "PLAN needs the approval of a role that approves it; person \"lee\" has [\"lead\"]")
}

test_approval_required_for_stage if {
	inp := with_request(approval_input, {"artifacts": [], "stage": "STRATEGY_APPROVAL"})
	codes_for(inp) == {"APPROVAL_REQUIRED"}
	has_reason(inp, "APPROVAL_REQUIRED", "stage")
}

test_approval_required_twin if {
	clean(with_request(approval_input, {"artifacts": [], "stage": "PLAN_APPROVAL"}))
}

test_approval_invalid_names_nothing if {
	inp := with_request(approval_input, {"artifacts": []})
	codes_for(inp) == {"APPROVAL_INVALID"}
	has_reason(inp, "APPROVAL_INVALID", "artifacts")
}

test_approval_invalid_not_recorded if {
	inp := with_request(approval_input, {"artifacts": [plan_v2_ref]})
	codes_for(inp) == {"APPROVAL_INVALID"}
	has_reason(inp, "APPROVAL_INVALID", "artifacts[0]")
}

test_approval_invalid_id_and_hash if {
	inp := with_request(approval_input, {"artifacts": [object.union(plan_ref, {"id": "plan-9", "hash": hash_brief})]})
	has_reason(inp, "APPROVAL_INVALID", "artifacts[0].id")
	has_reason(inp, "APPROVAL_INVALID", "artifacts[0].hash")
}

test_approval_invalid_not_latest if {
	inp := with_state(approval_input, qa_state_v2)
	codes_for(inp) == {"APPROVAL_INVALID"}
	contains(message_of(inp, "APPROVAL_INVALID", "artifacts[0].version"), "PLAN v1 is not the latest version (v2)")
}

test_approval_latest_twin if {
	clean(with_request(with_state(approval_input, qa_state_v2), {"artifacts": [plan_v2_ref]}))
}

test_self_approval if {
	# The agent that produced the plan approves it (and, an agent, may not approve at all).
	inp := with_request(approval_input, {"actor": {"type": "agent", "id": "strategist", "roles": []}})
	codes_for(inp) == {"SELF_APPROVAL", "UNAUTHORIZED_SUBJECT"}
	contains(message_of(inp, "SELF_APPROVAL", "artifacts[0]"), "agent \"strategist\" produced PLAN v1")
}

test_self_approval_twin if {
	clean(with_request(approval_input, {"actor": {"id": "dana"}}))
	not "SELF_APPROVAL" in codes_for(with_request(approval_input, {"actor": {"type": "agent", "id": "qa", "roles": []}}))
}

# A person is not an agent because they share an id: identities are typed.
test_person_with_an_agents_id if {
	inp := with_request(approval_input, {"actor": {"id": "strategist"}})
	codes_for(inp) == {"UNAUTHORIZED_SUBJECT"}
	contains(message_of(inp, "UNAUTHORIZED_SUBJECT", "actor.id"), "human \"strategist\" carries the id of agent \"strategist\"")
}

test_host_with_an_agents_id if {
	inp := with_request(handoff_input, {"actor": {"type": "system", "id": "strategist"}})
	codes_for(inp) == {"UNAUTHORIZED_SUBJECT"}
}

test_person_with_an_agents_id_twin if {
	clean(with_request(approval_input, {"actor": {"type": "human", "id": "dana", "roles": ["approver"]}}))
	clean(with_request(handoff_input, {"actor": {"type": "system", "id": "orchestrator"}}))
}
