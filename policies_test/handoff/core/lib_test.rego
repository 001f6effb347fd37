package handoff.core_test

import data.handoff.core

test_path_string if {
	core.path_string(["output", "content", "claims", 2, "text"]) == "output.content.claims[2].text"
	core.path_string(["context"]) == "context"
	core.path_string([]) == ""
}

# _meta stands for the METADATA a rule's rego.metadata.rule() gives.
_meta := {"title": "Something wrong", "description": "d", "custom": {"code": "X", "outcome": "block"}}

test_reason if {
	core.reason(_meta, "m", "a.b") == {"code": "X", "title": "Something wrong", "message": "m", "path": "a.b", "outcome": "block"}
	core.reason(_meta, "m", "") == {"code": "X", "title": "Something wrong", "message": "m", "outcome": "block"}
}

test_reason_outcome_and_gate if {
	core.reason_outcome(_meta, "m", "p", "await_human") == {"code": "X", "title": "Something wrong", "message": "m", "path": "p", "outcome": "await_human"}
	core.gate_reason(_meta, "m", "", "CTRL-3", "revise") == {"code": "X", "title": "Something wrong", "message": "m", "outcome": "revise", "gate": "CTRL-3"}
}

# A reason built without METADATA (a rule without it, or an else branch, gets {}) has a
# null code and title: the engine's check of #Reason then fails the decision closed.
test_reason_without_metadata_fails_closed if {
	core.reason({}, "m", "") == {"code": null, "title": null, "message": "m", "outcome": "block"}
}

# The title a reason carries is the METADATA title of the rule that built it.
test_reason_takes_the_rules_metadata if {
	some r in core.reasons with input as with_errors(handoff_input, [{"code": "UNKNOWN_FIELD", "path": "x", "message": "field not allowed"}])
	r.code == "UNKNOWN_FIELD"
	r.title == "Unknown field"
}

test_short if {
	core.short("abc") == "abc"
	s := concat("", [x | some _ in numbers.range(1, 100); x := "a"])
	r := core.short(s)
	count(r) == 80
	endswith(r, "...")
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
