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
