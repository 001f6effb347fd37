package handoff.core_test

import data.handoff.core
import data.handoff.lib

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

test_latest_status_and_content if {
	core.latest_status("BRIEF") == "approved" with input as handoff_input
	core.latest_status("PLAN") == "missing" with input as handoff_input
	core.latest_content("BRIEF") == brief_v1.content with input as handoff_input
	core.latest_content("PLAN") == {} with input as handoff_input
}

# The last approved version is the highest one approved or final, whatever the state's
# approved number says; a type with no such version has none.
test_last_approved if {
	core.last_approved_number("BRIEF") == 1 with input as handoff_input
	core.last_approved("BRIEF") == brief_v1 with input as handoff_input
	inp := with_state(handoff_input, {"artifacts": {"BRIEF": {"id": "brief-1", "latest": 1, "approved": 1, "versions": {"1": object.union(brief_v1, {"status": "superseded"})}}}})
	not core.last_approved_number("BRIEF") with input as inp
	not core.last_approved("BRIEF") with input as inp
	not core.last_approved_number("PLAN") with input as qa_handoff_input
}

test_routing_tables if {
	core.actors("QA") == fixture_pack.workflow.actors.QA with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	core.actors("DONE") == [] with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	core.routed("strategist", "strategy") with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	not core.routed("qa", "review") with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
}

test_contract_lookups if {
	core.requires_approval("BRIEF") with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	not core.requires_approval("PLAN") with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	core.requires_approval("UNKNOWN") with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	core.limit("max_review_cycles") == 2 with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	not core.limit("no_such_limit") with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
}

# A valid request on a live workflow is ready; one on a terminal workflow, or without a
# workflow, or invalid, is not.
test_ready if {
	core.ready with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	not core.terminal with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
}

test_ready_twin_terminal_or_invalid if {
	done := with_state(handoff_input, {"status": "DONE"})
	core.terminal with input as done
		with data.handoff.testpack.contract as fixture_pack
	not core.ready with input as done
		with data.handoff.testpack.contract as fixture_pack
	flagged := with_state(handoff_input, {"terminal": true})
	not core.ready with input as flagged
		with data.handoff.testpack.contract as fixture_pack
	not core.ready with input as object.remove(handoff_input, ["state"])
		with data.handoff.testpack.contract as fixture_pack
	not core.ready with input as with_errors(handoff_input, [{"code": "UNKNOWN_FIELD", "path": "x", "message": "m"}])
		with data.handoff.testpack.contract as fixture_pack
}

# supersede_approved supersedes the approved versions of a type but the one kept.
test_supersede_approved if {
	core.supersede_approved("BRIEF", 2) == [core.status_event("BRIEF", 1, "superseded")] with input as handoff_input
	core.supersede_approved("BRIEF", 1) == [] with input as handoff_input
	core.supersede_approved("PLAN", 0) == [] with input as qa_handoff_input
}

# next_ref names the version after the latest, under the workflow's id for the type (the
# default before the first version).
test_next_ref if {
	core.next_ref("BRIEF", "x", {"a": 1}) == {"id": "brief-1", "type": "BRIEF", "version": 2, "hash": core.content_hash({"a": 1})} with input as handoff_input
	core.next_ref("PLAN", "plan-new", {}) == {"id": "plan-new", "type": "PLAN", "version": 1, "hash": core.content_hash({})} with input as handoff_input
}

# The reason and text helpers are lib's under their core names too.
test_core_names_of_lib_helpers if {
	meta := {"title": "T", "custom": {"code": "X"}}
	core.reason(meta, "m", "p") == lib.reason(meta, "m", "p")
	core.reason_outcome(meta, "m", "", "revise") == lib.reason_outcome(meta, "m", "", "revise")
	core.gate_reason(meta, "m", "", "G", "block") == lib.gate_reason(meta, "m", "", "G", "block")
	core.path_string(["a", 1]) == "a[1]"
	core.short("abc") == "abc"
	core.with_article("item") == "an item"
}
