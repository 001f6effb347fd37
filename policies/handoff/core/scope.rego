package handoff.core

# METADATA
# title: Tenant mismatch
# description: >-
#   The request's tenant_id differs from the tenant of the workflow snapshot it was
#   evaluated against. The engine checks this first; the policy checks it again.
# custom:
#   code: TENANT_MISMATCH
#   outcome: block
reasons contains r if {
	_valid
	_request.tenant_id != _state.tenant_id
	r := _reason("TENANT_MISMATCH", sprintf("request tenant %q is not the tenant of workflow %q", [_request.tenant_id, _workflow_id]), "tenant_id")
}

# METADATA
# title: Organization mismatch
# description: >-
#   The workflow belongs to an organization and the request names another one, or none.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_valid
	want := _state.organization_id
	is_string(want)
	object.get(_request, "organization_id", "") != want
	r := _reason("SCOPE_MISMATCH", sprintf("request organization %q is not organization %q of workflow %q", [object.get(_request, "organization_id", ""), want, _workflow_id]), "organization_id")
}

# METADATA
# title: Workflow mismatch
# description: The request names a workflow_id other than the workflow it was evaluated against.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_valid
	_kind != "start"
	got := _request.workflow_id
	got != _state.workflow_id
	r := _reason("SCOPE_MISMATCH", sprintf("request names workflow %q but was evaluated against workflow %q", [got, _workflow_id]), "workflow_id")
}

# METADATA
# title: Pack mismatch
# description: A start names a pack other than the pack whose policy evaluates it.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_valid
	_kind == "start"
	_request.pack != _pack_name
	r := _reason("SCOPE_MISMATCH", sprintf("start names pack %q but is evaluated by pack %q", [_request.pack, _pack_name]), "pack")
}

# METADATA
# title: Foreign scope inside the request
# description: >-
#   A field named in the core table scope_fields (tenant_id, organization_id,
#   subject_id) appears inside the request body (output content, context, report) with
#   a value other than the workflow's: data of another tenant, organization or subject
#   never passes a handoff.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_foreign_scope
	scope_fields := _guardrails.scope_fields
	walk(_request, [path, value])
	count(path) > 1
	field := path[count(path) - 1]
	is_string(field)
	state_field := scope_fields[field]
	is_string(value)
	want := _state[state_field]
	value != want
	p := _path_string(path)
	r := _reason("SCOPE_MISMATCH", sprintf("%s is %q, not the workflow's %s %q", [p, value, state_field, want]), p)
}

# _foreign_scope holds when some object of the request has a scope field whose value
# differs from the workflow's; found without building paths, so a clean request never
# pays for them.
_foreign_scope if {
	_valid
	scope_fields := _guardrails.scope_fields
	walk(_request, [_, o])
	is_object(o)
	some field, value in o
	state_field := scope_fields[field]
	is_string(value)
	value != _state[state_field]
}
