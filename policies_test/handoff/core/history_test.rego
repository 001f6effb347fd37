package handoff.core_test

import data.handoff.core

# The title a reason carries is the METADATA title of the rule that built it.
test_reason_takes_the_rules_metadata if {
	some r in core.reasons with input as with_errors(handoff_input, [{"code": "UNKNOWN_FIELD", "path": "x", "message": "field not allowed"}])
	r.code == "UNKNOWN_FIELD"
	r.title == "Unknown field"
}

test_counter if {
	core.counter("returns/PLAN") == 2 with input as with_state(handoff_input, {"counters": {"returns/PLAN": 2}})
	core.counter("none") == 0 with input as handoff_input
}

test_artifact_helpers if {
	inp := qa_handoff_input
	n := core.latest_number("PLAN") with input as inp
	n > 0
	core.latest_number("NOTHING") == 0 with input as inp
	core.history_id("NOTHING", "fallback") == "fallback" with input as inp
	core.history_id("PLAN", "fallback") == inp.state.artifacts.PLAN.id with input as inp
}

test_producer if {
	core.producer("PLAN", "nobody") == fixture_pack.artifacts.PLAN.producer with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	core.producer("NOTHING", "nobody") == "nobody" with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
}

test_content_hash if {
	core.content_hash({"a": 1}) == sprintf("sha256:%s", [crypto.sha256(`{"a":1}`)])
}

test_events if {
	core.status_event("PLAN", 1, "approved") == {"type": "artifact_status", "artifact": "PLAN", "version": 1, "status": "approved"}
	inp := qa_handoff_input
	v := core.latest_version("PLAN") with input as inp
	evs := core.supersede_open("PLAN") with input as inp
	v.status in core.open_statuses
	evs == [core.status_event("PLAN", v.ref.version, "superseded")]
}

test_events_twin_closed_version if {
	inp := qa_handoff_input
	v := core.latest_version("PLAN") with input as inp
	closed := with_state(inp, {"artifacts": {"PLAN": object.union(inp.state.artifacts.PLAN, {"versions": {format_int(v.ref.version, 10): object.union(v, {"status": "approved"})}})}})
	core.supersede_open("PLAN") == [] with input as closed
}
