package handoff.core_test

test_ping_pong_loop if {
	inp := with_state(handoff_input, {"recent_edges": ["researcher>strategist", "qa>strategist", "strategist>qa", "qa>strategist"]})
	codes_for(inp) == {"LOOP_DETECTED"}
	contains(message_of(inp, "LOOP_DETECTED", "target_agent"), "handoff strategist>qa would make the last 4 handoffs alternate between \"strategist\" and \"qa\"")
}

test_ping_pong_twin if {
	clean(with_state(handoff_input, {"recent_edges": ["researcher>strategist", "strategist>qa", "qa>strategist"]}))
}

test_edge_visits_exhausted if {
	inp := with_state(handoff_input, {"edges": {"strategist>qa": 3}})
	codes_for(inp) == {"LOOP_DETECTED"}
	contains(message_of(inp, "LOOP_DETECTED", "target_agent"), "edge strategist>qa was already taken 3 times; pack \"testpack\" allows 3")
}

test_edge_visits_twin if {
	clean(with_state(handoff_input, {"edges": {"strategist>qa": 2}}))
}

test_stage_handoffs_exhausted if {
	inp := with_state(handoff_input, {"stage_handoffs": {"STRATEGY": 5}})
	codes_for(inp) == {"LOOP_DETECTED"}
	contains(message_of(inp, "LOOP_DETECTED", ""), "status STRATEGY already accepted 5 handoffs")
}

test_stage_handoffs_twin if {
	clean(with_state(handoff_input, {"stage_handoffs": {"STRATEGY": 4, "RESEARCH": 9}}))
}

test_repeated_handoff if {
	inp := with_state(handoff_input, {"input_hashes": {concat("|", ["strategist>qa", hash_inputs]): true}})
	codes_for(inp) == {"REPEATED_HANDOFF"}
	has_reason(inp, "REPEATED_HANDOFF", "input_artifacts")
}

# The same inputs over another edge, or other inputs over the same edge, are no repetition.
test_repeated_handoff_twin if {
	clean(with_state(handoff_input, {"input_hashes": {
		concat("|", ["strategist>researcher", hash_inputs]): true,
		concat("|", ["strategist>qa", hash_old_inputs]): true,
	}}))
}
