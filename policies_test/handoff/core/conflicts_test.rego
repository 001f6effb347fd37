package handoff.core_test

test_conflict_open_blocks_approval if {
	inp := with_state(approval_input, conflict_state)
	codes_for(inp) == {"CONFLICT_OPEN"}
	contains(message_of(inp, "CONFLICT_OPEN", ""), "open conflicts [\"c-1\"]")
}

test_conflict_open_blocks_handoff if {
	inp := with_state(handoff_input, {"open_conflicts": 1})
	codes_for(inp) == {"CONFLICT_OPEN"}
}

test_conflict_open_twin if {
	resolved := object.union(conflict_state, {"conflicts": {"c-1": {"status": "resolved", "resolved_by": "lee"}}, "open_conflicts": 0})
	clean(with_state(approval_input, resolved))
}

# Reviews and resolutions go on while a conflict is open.
test_conflict_open_allows_resolution if {
	clean(resolution_input)
	clean(with_state(review_input, conflict_state))
}

test_conflict_not_found if {
	inp := with_request(resolution_input, {"conflict_id": "c-9"})
	codes_for(inp) == {"CONFLICT_NOT_FOUND"}
	message_of(inp, "CONFLICT_NOT_FOUND", "conflict_id") == "workflow \"wf-1\" has no open conflict \"c-9\" (status: unknown)"
}

test_conflict_already_resolved if {
	inp := with_state(resolution_input, {"conflicts": {"c-1": {"status": "resolved"}}, "open_conflicts": 0})
	codes_for(inp) == {"CONFLICT_NOT_FOUND"}
	contains(message_of(inp, "CONFLICT_NOT_FOUND", "conflict_id"), "(status: resolved)")
}

test_conflict_found_twin if {
	clean(with_request(resolution_input, {"conflict_id": "c-1"}))
}

test_outcome_for_an_effect_never_recorded if {
	inp := with_request(outcome_input, {"effect_id": "delivery-9"})
	codes_for(inp) == {"EFFECT_NOT_FOUND"}
	has_reason(inp, "EFFECT_NOT_FOUND", "effect_id")
}

test_delivery_known_effect_twin if {
	clean(with_request(outcome_input, {"effect_id": "delivery-1", "result": "unknown"}))
}

test_handoff_over_unknown_effect if {
	inp := with_state(handoff_input, {"effects": {"delivery-1": "unknown"}})
	codes_for(inp) == {"DELIVERY_UNRECONCILED"}
	contains(message_of(inp, "DELIVERY_UNRECONCILED", ""), "\"delivery-1\" has an unknown outcome")
}

test_handoff_over_settled_effect_twin if {
	clean(with_state(handoff_input, {"effects": {"delivery-1": "acknowledged", "delivery-2": "pending"}}))
}

# The conflict map is checked too, whatever the counter says.
test_conflict_open_by_map if {
	codes_for(with_state(approval_input, object.union(conflict_state, {"open_conflicts": 0}))) == {"CONFLICT_OPEN"}
}
