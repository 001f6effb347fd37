package handoff.core_test

import data.handoff.core

brief_v2_ref := {"id": "brief-1", "type": "BRIEF", "version": 2, "hash": hash_plan_v2}

# brief_state_v2 has BRIEF v1 superseded by the approved v2.
brief_state_v2 := object.union(strategy_state, {"artifacts": {"BRIEF": {
	"latest": 2,
	"approved": 2,
	"versions": {
		"1": object.union(brief_v1, {"status": "superseded"}),
		"2": object.union(brief_v1, {"ref": brief_v2_ref}),
	},
}}})

test_artifact_helpers if {
	core.artifact("PLAN") == qa_state_v2.artifacts.PLAN with input as with_state(review_input, qa_state_v2)
	core.latest_version("PLAN") == plan_v2 with input as with_state(review_input, qa_state_v2)
	core.artifact_version("PLAN", 1).status == "revision_required" with input as with_state(review_input, qa_state_v2)
	not core.approved_version("PLAN") with input as with_state(review_input, qa_state_v2)
	core.approved_version("BRIEF") == brief_v1 with input as handoff_input
	core.ref_matches(brief_ref) with input as handoff_input
	not core.ref_matches(object.union(brief_ref, {"hash": hash_plan})) with input as handoff_input
	core.is_approved(brief_v1) with input as handoff_input
	not core.is_approved(plan_v1) with input as handoff_input
}

test_artifact_not_found_version if {
	inp := with_request(handoff_input, {"input_artifacts": [object.union(brief_ref, {"version": 2})]})
	codes_for(inp) == {"ARTIFACT_NOT_FOUND"}
	contains(message_of(inp, "ARTIFACT_NOT_FOUND", "input_artifacts[0]"), "BRIEF v2 is not recorded in workflow \"wf-1\" (latest recorded version: 1)")
}

test_artifact_not_found_type if {
	inp := with_request(handoff_input, {"input_artifacts": [brief_ref, plan_ref]})
	codes_for(inp) == {"ARTIFACT_NOT_FOUND"}
	has_reason(inp, "ARTIFACT_NOT_FOUND", "input_artifacts[1]")
}

test_artifact_not_found_id if {
	inp := with_request(handoff_input, {"input_artifacts": [object.union(brief_ref, {"id": "brief-9"})]})
	codes_for(inp) == {"ARTIFACT_NOT_FOUND"}
	has_reason(inp, "ARTIFACT_NOT_FOUND", "input_artifacts[0].id")
}

test_artifact_not_found_review_and_resolution if {
	has_reason(with_request(review_input, {"artifacts": [plan_v2_ref]}), "ARTIFACT_NOT_FOUND", "artifacts[0]")
	has_reason(with_request(resolution_input, {"chosen": plan_v2_ref}), "ARTIFACT_NOT_FOUND", "chosen")
}

test_artifact_found_twin if {
	clean(with_request(handoff_input, {"input_artifacts": [brief_ref]}))
	clean(with_request(resolution_input, {"chosen": plan_ref}))
}

test_hash_mismatch_input if {
	inp := with_request(handoff_input, {"input_artifacts": [object.union(brief_ref, {"hash": hash_plan})]})
	codes_for(inp) == {"HASH_MISMATCH"}
	has_reason(inp, "HASH_MISMATCH", "input_artifacts[0].hash")
}

test_hash_mismatch_output if {
	inp := with_request(handoff_input, {"output": {"hash": hash_brief}})
	codes_for(inp) == {"HASH_MISMATCH"}
	has_reason(inp, "HASH_MISMATCH", "output.hash")
}

test_hash_twin if {
	clean(with_request(handoff_input, {"output": {"hash": hash_plan}}))
}

test_version_mismatch_older_than_approved if {
	inp := set_state(handoff_input, brief_state_v2)
	"VERSION_MISMATCH" in codes_for(inp)
	contains(message_of(inp, "VERSION_MISMATCH", "input_artifacts[0].version"), "BRIEF v1 is older than the approved version 2")
}

test_version_mismatch_approved_twin if {
	clean(with_request(set_state(handoff_input, brief_state_v2), {"input_artifacts": [brief_v2_ref]}))
}

test_version_mismatch_superseded_input if {
	inp := with_state(qa_handoff_input, qa_state_v2)
	codes_for(inp) == {"VERSION_MISMATCH"}
	contains(message_of(inp, "VERSION_MISMATCH", "input_artifacts[0].version"), "PLAN v1 is superseded by version 2")
}

test_version_mismatch_superseded_twin if {
	clean(with_request(with_state(qa_handoff_input, qa_state_v2), {"input_artifacts": [plan_v2_ref]}))
}

test_version_mismatch_review if {
	inp := with_state(review_input, qa_state_v2)
	codes_for(inp) == {"VERSION_MISMATCH"}
	has_reason(inp, "VERSION_MISMATCH", "artifacts[0].version")
}

test_version_mismatch_review_twin if {
	clean(with_request(with_state(review_input, qa_state_v2), {"artifacts": [plan_v2_ref]}))
}

test_version_mismatch_supersedes if {
	inp := with_request(handoff_input, {"output": {"supersedes": 1}})
	codes_for(inp) == {"VERSION_MISMATCH"}
	has_reason(inp, "VERSION_MISMATCH", "output.supersedes")
}

hash_revision_inputs := "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

# plan_revision_input: after QA, the strategist sends PLAN v2 correcting v1.
plan_revision_input := object.union(
	with_request(handoff_input, {"output": {"version": 2, "supersedes": 1, "justification": "QA found an unsupported claim"}, "input_artifacts": [brief_ref, plan_ref]}),
	{"state": qa_state, "derived": {"output_hash": hash_plan_v2, "input_hash": hash_revision_inputs}, "request": {"expected_version": 5}},
)

test_version_mismatch_supersedes_twin if {
	clean(plan_revision_input)
}

test_artifact_not_approved if {
	inp := with_state(handoff_input, {"artifacts": {"BRIEF": {"approved": 0, "versions": {"1": {"status": "draft"}}}}})
	codes_for(inp) == {"ARTIFACT_NOT_APPROVED"}
	contains(message_of(inp, "ARTIFACT_NOT_APPROVED", "input_artifacts[0]"), "BRIEF v1 is draft")
}

test_artifact_not_approved_twin if {
	clean(with_state(handoff_input, {"artifacts": {"BRIEF": {"versions": {"1": {"status": "final"}}}}}))
}

test_artifact_immutable_overwrite if {
	inp := with_request(plan_revision_input, {"output": {"version": 1, "supersedes": null}})
	inp2 := set_request(inp, object.union(object.remove(inp.request, ["output"]), {"output": object.remove(inp.request.output, ["supersedes"])}))
	codes_for(inp2) == {"ARTIFACT_IMMUTABLE"}
	contains(message_of(inp2, "ARTIFACT_IMMUTABLE", "output.version"), "would overwrite")
}

test_artifact_immutable_skip if {
	inp := with_request(handoff_input, {"output": {"version": 3}})
	codes_for(inp) == {"ARTIFACT_IMMUTABLE"}
	contains(message_of(inp, "ARTIFACT_IMMUTABLE", "output.version"), "PLAN v3 skips versions: the next version is v1")
}

test_artifact_immutable_id if {
	inp := with_request(plan_revision_input, {"output": {"id": "plan-9"}})
	codes_for(inp) == {"ARTIFACT_IMMUTABLE"}
	has_reason(inp, "ARTIFACT_IMMUTABLE", "output.id")
}

test_artifact_immutable_twin if {
	clean(plan_revision_input)
	clean(handoff_input)
}

# An artifact reference anywhere else in the request (found by the engine, in
# input.derived.refs) must resolve to a recorded version of this workflow.
with_refs(inp, refs) := object.union(inp, {"derived": object.union(inp.derived, {"refs": refs})})

test_embedded_reference_not_recorded if {
	inp := with_refs(handoff_input, [object.union(brief_ref, {"version": 7, "path": "context.sources[0]"})])
	codes_for(inp) == {"ARTIFACT_NOT_FOUND"}
	has_reason(inp, "ARTIFACT_NOT_FOUND", "context.sources[0]")
}

test_embedded_reference_of_another_id if {
	inp := with_refs(handoff_input, [object.union(brief_ref, {"id": "other-tenant-brief", "path": "context.sources[0]"})])
	codes_for(inp) == {"ARTIFACT_NOT_FOUND"}
	has_reason(inp, "ARTIFACT_NOT_FOUND", "context.sources[0].id")
}

test_embedded_reference_hash_differs if {
	inp := with_refs(handoff_input, [object.union(brief_ref, {"hash": "sha256:0000", "path": "output.content.claims[0].source"})])
	codes_for(inp) == {"HASH_MISMATCH"}
	has_reason(inp, "HASH_MISMATCH", "output.content.claims[0].source.hash")
}

test_embedded_reference_twin if {
	clean(with_refs(handoff_input, [object.union(brief_ref, {"path": "context.sources[0]"})]))

	# The inputs, the output and the reviewed versions have rules of their own.
	clean(with_refs(handoff_input, [object.union(plan_ref, {"version": 7, "path": "output"})]))
}
