package handoff.core_test

test_tenant_mismatch if {
	inp := with_request(handoff_input, {"tenant_id": "tenant-b"})
	has_reason(inp, "TENANT_MISMATCH", "tenant_id")
	contains(message_of(inp, "TENANT_MISMATCH", "tenant_id"), "tenant-b")
}

test_tenant_mismatch_twin if {
	clean(with_request(handoff_input, {"tenant_id": "tenant-a"}))
}

test_scope_mismatch_organization if {
	inp := with_request(handoff_input, {"organization_id": "org-b"})
	codes_for(inp) == {"SCOPE_MISMATCH"}
	has_reason(inp, "SCOPE_MISMATCH", "organization_id")
}

test_scope_mismatch_organization_absent if {
	inp := set_request(handoff_input, object.remove(handoff_request, ["organization_id"]))
	has_reason(inp, "SCOPE_MISMATCH", "organization_id")
}

# A workflow without an organization accepts requests without one.
test_scope_mismatch_organization_twin if {
	inp := set_request(
		set_state(handoff_input, object.remove(strategy_state, ["organization_id"])),
		object.remove(handoff_request, ["organization_id"]),
	)
	clean(inp)
}

test_scope_mismatch_workflow if {
	inp := with_request(review_input, {"workflow_id": "wf-2"})
	codes_for(inp) == {"SCOPE_MISMATCH"}
	has_reason(inp, "SCOPE_MISMATCH", "workflow_id")
}

test_scope_mismatch_start_pack if {
	inp := with_request(start_input, {"pack": "otherpack"})
	codes_for(inp) == {"SCOPE_MISMATCH"}
	has_reason(inp, "SCOPE_MISMATCH", "pack")
}

test_scope_mismatch_start_twin if {
	clean(with_request(start_input, {"pack": "testpack", "workflow_id": "wf-1"}))
}

test_scope_mismatch_inside_output if {
	inp := with_request(handoff_input, {"output": {"content": {"customer": {"tenant_id": "tenant-b"}}}})
	codes_for(inp) == {"SCOPE_MISMATCH"}
	has_reason(inp, "SCOPE_MISMATCH", "output.content.customer.tenant_id")
}

test_scope_mismatch_inside_context_and_report if {
	has_reason(with_request(handoff_input, {"context": {"organization_id": "org-b"}}), "SCOPE_MISMATCH", "context.organization_id")
	has_reason(with_request(review_input, {"report": {"rows": [{"subject_id": "project-9"}]}}), "SCOPE_MISMATCH", "report.rows[0].subject_id")
}

test_scope_inside_twin if {
	clean(with_request(handoff_input, {"output": {"content": {"customer": {"tenant_id": "tenant-a", "subject_id": "project-7"}}}}))
}

# The engine lists the scope fields inside the request as input.derived.scopes; the
# policy compares those with the state and does not walk the request again.
with_scopes(inp, scopes) := object.union(inp, {"derived": object.union(inp.derived, {"scopes": scopes})})

test_scope_mismatch_from_derived_scopes if {
	inp := with_scopes(
		with_request(handoff_input, {"output": {"content": {"customer": {"tenant_id": "tenant-b"}}}}),
		[{"path": "output.content.customer.tenant_id", "field": "tenant_id", "value": "tenant-b"}],
	)
	codes_for(inp) == {"SCOPE_MISMATCH"}
	message_of(inp, "SCOPE_MISMATCH", "output.content.customer.tenant_id") == `output.content.customer.tenant_id is "tenant-b", not the workflow's tenant_id "tenant-a"`
}

test_scope_from_derived_scopes_twin if {
	clean(with_scopes(
		with_request(handoff_input, {"output": {"content": {"customer": {"tenant_id": "tenant-a"}}}}),
		[{"path": "output.content.customer.tenant_id", "field": "tenant_id", "value": "tenant-a"}],
	))
}

test_derived_scopes_outside_the_table_ignored if {
	clean(with_scopes(handoff_input, [{"path": "output.content.region", "field": "region", "value": "eu"}]))
}

# The walk and the engine's list agree: both find the same field with the same path.
test_scope_walk_matches_derived_scopes if {
	inp := with_request(review_input, {"report": {"rows": [{"subject_id": "project-9"}]}})
	walked := reasons_for(inp)
	listed := reasons_for(with_scopes(inp, [{"path": "report.rows[0].subject_id", "field": "subject_id", "value": "project-9"}]))
	walked == listed
	count(walked) > 0
}
