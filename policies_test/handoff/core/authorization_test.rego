package handoff.core_test

test_source_not_in_registry if {
	inp := with_request(handoff_input, {"source_agent": "ghost", "actor": {"id": "ghost"}})
	has_reason(inp, "SOURCE_NOT_AUTHORIZED", "source_agent")
	contains(message_of(inp, "SOURCE_NOT_AUTHORIZED", "source_agent"), "\"ghost\" is not in the agent registry of pack \"testpack\"")
}

test_source_not_in_registry_twin if {
	clean(with_request(handoff_input, {"source_agent": "strategist", "actor": {"id": "strategist"}}))
}

test_actor_is_not_source if {
	inp := with_request(handoff_input, {"actor": {"id": "researcher"}})
	codes_for(inp) == {"SOURCE_NOT_AUTHORIZED"}
	has_reason(inp, "SOURCE_NOT_AUTHORIZED", "actor.id")
}

# The host may relay a handoff on the source agent's behalf.
test_actor_is_not_source_twin if {
	clean(with_request(handoff_input, {"actor": {"type": "system", "id": "orchestrator"}}))
}

test_person_sends_handoff if {
	inp := with_request(handoff_input, {"actor": {"type": "human", "id": "dana", "roles": ["approver"]}})
	codes_for(inp) == {"SOURCE_NOT_AUTHORIZED"}
	has_reason(inp, "SOURCE_NOT_AUTHORIZED", "actor.type")
}

test_task_not_permitted if {
	inp := with_request(handoff_input, {"task_type": "research"})
	codes_for(inp) == {"SOURCE_NOT_AUTHORIZED"}
	contains(message_of(inp, "SOURCE_NOT_AUTHORIZED", "task_type"), "\"strategist\" may not perform task \"research\"")
}

test_task_not_permitted_twin if {
	clean(with_request(handoff_input, {"task_type": "strategy"}))
}

test_output_type_not_permitted if {
	inp := with_request(handoff_input, {"output": {"id": "qa-1", "type": "QA_REPORT"}})
	msgs := {r.message | some r in reasons_for(inp); r.code == "SOURCE_NOT_AUTHORIZED"}
	msgs == {
		"agent \"strategist\" may not produce QA_REPORT",
		"QA_REPORT is produced only by \"qa\" under the contract of pack \"testpack\", not by \"strategist\"",
	}
}

test_output_producer_differs if {
	pack := json.patch(fixture_pack, [{"op": "replace", "path": "/artifacts/PLAN/producer", "value": "researcher"}])
	rs := reasons_with(handoff_input, pack)
	{[r.code, r.path] | some r in rs} == {["SOURCE_NOT_AUTHORIZED", "output.type"]}
}

test_output_type_twin if {
	clean(with_request(handoff_input, {"output": {"type": "PLAN"}}))
}

test_acting_agent_not_in_registry if {
	inp := with_request(review_input, {"actor": {"id": "ghost"}})
	has_reason(inp, "SOURCE_NOT_AUTHORIZED", "actor.id")
}

test_review_not_permitted if {
	inp := with_request(review_input, {"actor": {"id": "strategist"}})
	codes_for(inp) == {"SOURCE_NOT_AUTHORIZED"}
	has_reason(inp, "SOURCE_NOT_AUTHORIZED", "artifacts[0]")
}

test_review_twin if {
	clean(with_request(review_input, {"actor": {"id": "qa"}}))
}

test_failing_agent_not_in_registry if {
	inp := with_request(failure_input, {"agent": "ghost"})
	has_reason(inp, "SOURCE_NOT_AUTHORIZED", "agent")
}

test_failing_agent_twin if {
	clean(with_request(failure_input, {"agent": "strategist"}))
}

test_target_not_in_hands_to if {
	inp := with_request(handoff_input, {"target_agent": "approver"})
	codes_for(inp) == {"TARGET_NOT_AUTHORIZED"}
	contains(message_of(inp, "TARGET_NOT_AUTHORIZED", "target_agent"), "\"strategist\" may not hand work to \"approver\"")
}

test_target_unknown if {
	inp := with_request(handoff_input, {"target_agent": "nobody"})
	msgs := {r.message | some r in reasons_for(inp); r.code == "TARGET_NOT_AUTHORIZED"}
	count(msgs) == 2
}

# A role listed in hands_to is a valid target: QA hands its report to the approver.
test_target_role_twin if {
	clean(qa_handoff_input)
}

# A review is an agent's verdict: a person or the host never sends one, under any id.
test_review_by_a_person if {
	inp := with_request(review_input, {"actor": {"type": "human", "id": "dana", "roles": ["approver"]}})
	codes_for(inp) == {"UNAUTHORIZED_SUBJECT"}
	contains(message_of(inp, "UNAUTHORIZED_SUBJECT", "actor.type"), "human \"dana\" may not send a review request")
}

test_review_by_the_host if {
	codes_for(with_request(review_input, {"actor": {"type": "system", "id": "orchestrator"}})) == {"UNAUTHORIZED_SUBJECT"}
}

test_review_by_an_agent_twin if {
	clean(review_input)
}
