# What a handoff is made from and who may send it: required inputs, permitted inputs,
# inputs the receiving agent accepted, linked corrections, and the rule that the next
# agent never fills a gap itself.
package handoff.video_test

test_input_missing if {
	d := decide(handoff("A2", 1, a2, [ref("A1", 1)]), st_scriptwriting)
	codes(d) == {"INPUT_MISSING"}
	d.outcome == "block"
	count(d.events) == 0
}

test_input_missing_twin if {
	d := decide(deliver("A2"), st_scriptwriting)
	not "INPUT_MISSING" in codes(d)
}

# The seed orders nothing between the character cards and the outline: the screenwriter
# may deliver A3 first, from the brief alone; A6 still needs both.
test_outline_before_the_character_cards if {
	d := decide(handoff("A3", 1, a3, [ref("A1", 1)]), st_scriptwriting)
	count(d.reasons) == 0
	d.outcome == "allow"
	d.status_after == "SCRIPTWRITING"
	d.next[0].context.must_know.remaining == ["A2", "A6"]
}

test_outline_without_the_brief if {
	d := decide(handoff("A3", 1, a3, []), st_scriptwriting)
	codes(d) == {"INPUT_MISSING"}
}

# A returned artifact's new version names the record that returned it.
st_script_returned := with_version(
	with_version(with_state(st_script_intake, {"status": "SCRIPTWRITING"}), "A6", [version("A6", 1, "revision_required")]),
	"SCRIPT_CHECK",
	[record("SCRIPT_CHECK", 1, "pass", []), record("SCRIPT_CHECK", 2, "return", [ref("A6", 1)])],
)

test_resubmission_names_the_record_that_returned_it if {
	d := decide(handoff("A6", 2, a6, inputs.A6), st_script_returned)
	codes(d) == {"INPUT_MISSING"}
	some r in d.reasons
	contains(r.message, "returned by SCRIPT_CHECK v2")
}

test_resubmission_twin_names_it if {
	d := decide(handoff("A6", 2, a6, array.concat(inputs.A6, [ref("SCRIPT_CHECK", 2)])), st_script_returned)
	count(d.reasons) == 0
	d.status_after == "SCRIPT_INTAKE"
	"A6 v1 superseded" in status_events(d)
}

test_resubmission_after_a_client_return if {
	st := with_state(with_version(with_version(st_awaiting, "CLIENT_CONFIRMATION", [version("CLIENT_CONFIRMATION", 1, "revision_required")]), "EDIT_PLAN", [version("EDIT_PLAN", 1, "approved")]), {
		"status": "EDITING",
		"approvals": {"CLIENT_CONFIRMATION": {"decision": "REQUEST_REVISION", "by": "chen.mei", "artifacts": [ref("CLIENT_CONFIRMATION", 1)]}},
		"defects": {"AWAITING_CLIENT@8/EDIT_PLAN": {"status": "open", "defect": {"id": "AWAITING_CLIENT@8/EDIT_PLAN", "severity": "S2", "artifact": "EDIT_PLAN", "check": "client_review", "description": "字幕改白色"}}},
	})
	d := decide(handoff("EDIT_PLAN", 2, edit_plan, inputs.EDIT_PLAN), st)
	codes(d) == {"INPUT_MISSING"}
	d2 := decide(handoff("EDIT_PLAN", 2, edit_plan, array.concat(inputs.EDIT_PLAN, [ref("CLIENT_CONFIRMATION", 1)])), st)
	count(d2.reasons) == 0
	d2.status_after == "INTERNAL_REVIEW"
	some e in d2.events
	e.type == "defect"
	e.status == "closed"
}

test_input_not_permitted if {
	d := decide(handoff("A2", 1, a2, array.concat(inputs.A2, [ref("REQUIREMENTS", 1)])), st_scriptwriting)
	codes(d) == {"INPUT_NOT_PERMITTED"}
	paths_of(d, "INPUT_NOT_PERMITTED") == {"input_artifacts[2]"}
}

test_input_not_permitted_twin if {
	d := decide(deliver("A3"), st_script_a2)
	not "INPUT_NOT_PERMITTED" in codes(d)
}

test_input_from_another_producer_not_accepted if {
	st := with_version(st_scriptwriting, "A1", [version("A1", 1, "under_review")])
	d := decide(deliver("A2"), st)
	codes(d) == {"ARTIFACT_NOT_APPROVED"}
	paths_of(d, "ARTIFACT_NOT_APPROVED") == {"input_artifacts[0]"}
}

test_own_returned_input if {
	st := with_version(st_script_a2, "A2", [version("A2", 1, "revision_required")])
	d := decide(deliver("A3"), st)
	codes(d) == {"ARTIFACT_NOT_APPROVED"}
}

test_own_draft_input_twin if {
	d := decide(deliver("A3"), st_script_a2)
	not "ARTIFACT_NOT_APPROVED" in codes(d)
	d.outcome == "allow"
}

test_version_unlinked if {
	req := object.union(object.remove(handoff("A2", 2, a2, inputs.A2), ["output"]), {"output": {"id": ids.A2, "type": "A2", "version": 2, "content": a2}})
	d := decide(req, st_script_a2)
	codes(d) == {"VERSION_UNLINKED"}
	paths_of(d, "VERSION_UNLINKED") == {"output.supersedes", "output.justification"}
}

test_version_unlinked_twin if {
	d := decide(handoff("A2", 2, a2, inputs.A2), st_script_a2)
	count(d.reasons) == 0
	"A2 v1 superseded" in status_events(d)
}

# 不擅自填补空白: the screenwriter may not deliver its own A1.
test_gap_filling_forbidden if {
	req := object.union(handoff("A1", 2, patch(a1, "/target_audience", "25岁上班族"), [ref("A1", 1)]), {
		"actor": agent("screenwriter"), "source_agent": "screenwriter", "target_agent": "director", "task_type": "brief_check",
	})
	d := decide(req, st_brief_intake)
	"GAP_FILLING_FORBIDDEN" in codes(d)
	not "OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
}

test_gap_filling_twin_producer if {
	d := decide(deliver("A1"), st_creative)
	not "GAP_FILLING_FORBIDDEN" in codes(d)
}

test_output_missing if {
	req := object.remove(deliver("A2"), ["output"])
	d := decide(req, st_scriptwriting)
	"OUTPUT_MISSING" in codes(d)
	not "OUT_OF_SEQUENCE" in codes(d)
}

test_output_missing_twin if {
	d := decide(deliver("A2"), st_scriptwriting)
	not "OUTPUT_MISSING" in codes(d)
}

# Content of a handoff that is out of sequence is not judged: only its sequence is.
test_out_of_sequence_content_not_judged if {
	d := decide(deliver_with("A4", patch(a4, "/scenes/0/location", "")), st_script_intake)
	codes(d) == {"OUT_OF_SEQUENCE"}
}
