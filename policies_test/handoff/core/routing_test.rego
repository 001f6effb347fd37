package handoff.core_test

import data.handoff.core

plan_content := {
	"objective": "Grow EU sign-ups",
	"audience": "SMB owners",
	"notes": "Launch in Q1",
	"raw_research": "interview transcripts",
	"rejected_options": ["TV"],
}

test_next_for if {
	core.next_for("QA") == [
		{"agent": "qa", "task": "review", "context": {"must_know": {}, "may_know": {}}},
		{"agent": "strategist", "task": "strategy", "context": {"must_know": {}, "may_know": {}}},
	] with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	core.next_for("DONE") == [] with input as handoff_input with data.handoff.testpack.contract as fixture_pack
	core.next_for("QA") == [] with input as object.union(handoff_input, {"pack": "nopack"})
}

test_context_package_never_includes_do_not_need if {
	p := core.context_package("strategist>qa", plan_content) with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	p == {"must_know": {"objective": "Grow EU sign-ups", "audience": "SMB owners"}, "may_know": {"notes": "Launch in Q1"}}
	every part in [p.must_know, p.may_know] {
		every field in ["raw_research", "rejected_options"] {
			not field in object.keys(part)
		}
	}
}

test_context_package_skips_absent_fields if {
	p := core.context_package("strategist>qa", {"objective": "x"}) with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	p == {"must_know": {"objective": "x"}, "may_know": {}}
}

test_context_package_unknown_edge if {
	core.context_package("qa>approver", plan_content) == {"must_know": {}, "may_know": {}} with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
}

test_edge_context_from_output if {
	core.edge_context("strategist>qa").may_know == {"notes": "Launch in Q1"} with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
}

test_edge_context_from_state if {
	# A review carries no output: the package comes from the latest recorded PLAN.
	inp := with_state(review_input, {"artifacts": {"PLAN": {"versions": {"1": {"content": {"objective": "v1 objective"}}}}}})
	core.edge_context("strategist>qa").must_know == {"objective": "v1 objective", "audience": "SMB owners"} with input as inp
		with data.handoff.testpack.contract as fixture_pack

	# An approved version wins over a newer draft.
	approved := with_state(review_input, object.union(qa_state_v2, {"artifacts": {"PLAN": {"approved": 1, "versions": {
		"1": {"status": "approved", "content": {"objective": "approved objective"}},
		"2": {"content": {"objective": "draft objective"}},
	}}}}))
	core.edge_context("strategist>qa").must_know.objective == "approved objective" with input as approved
		with data.handoff.testpack.contract as fixture_pack

	core.edge_context("strategist>qa") == {"must_know": {}, "may_know": {}} with input as start_input
		with data.handoff.testpack.contract as fixture_pack
}

test_next_with_context if {
	n := core.next_with_context("strategist", "QA") with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	n[0].agent == "qa"
	n[0].context.must_know == {"objective": "Grow EU sign-ups", "audience": "SMB owners"}
	n[1].agent == "strategist"
	n[1].context == {"must_know": {}, "may_know": {}}
}

test_routed_now if {
	core.routed_now == ["qa/review", "strategist/strategy"] with input as with_state(handoff_input, {"status": "QA"})
		with data.handoff.testpack.contract as fixture_pack
	core.routed_now == [] with input as with_state(handoff_input, {"status": "DONE"})
		with data.handoff.testpack.contract as fixture_pack
}

# next_with keeps the agents a context is given for, each with its context.
test_next_with if {
	ctx := {"must_know": {"a": 1}, "may_know": {}}
	core.next_with("QA", {"qa": ctx}) == [{"agent": "qa", "task": "review", "context": ctx}] with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
	core.next_with("QA", {}) == [] with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
}

test_keyed if {
	parts := {"PLAN": {"must_know": {"x": 1}, "may_know": {}}, "BRIEF": {"must_know": {"x": 2}, "may_know": {"y": 3}}}
	core.keyed(parts) == {"must_know": {"PLAN": {"x": 1}, "BRIEF": {"x": 2}}, "may_know": {"BRIEF": {"y": 3}}}
	core.empty_context == {"must_know": {}, "may_know": {}}
}
