package handoff.core

import data.handoff.lib

# METADATA
# title: Tenant mismatch
# description: >-
#   The request's tenant_id differs from the tenant of the workflow snapshot it was
#   evaluated against. The engine checks this first; the policy checks it again.
# custom:
#   code: TENANT_MISMATCH
#   outcome: block
reasons contains r if {
	lib.valid
	lib.request.tenant_id != _state.tenant_id
	r := lib.reason(rego.metadata.rule(), sprintf("request tenant %q is not the tenant of workflow %q", [lib.request.tenant_id, _workflow_id]), "tenant_id")
}

# METADATA
# title: Organization mismatch
# description: >-
#   The workflow belongs to an organization and the request names another one, or none.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	lib.valid
	want := _state.organization_id
	is_string(want)
	object.get(lib.request, "organization_id", "") != want
	r := lib.reason(rego.metadata.rule(), sprintf("request organization %q is not organization %q of workflow %q", [object.get(lib.request, "organization_id", ""), want, _workflow_id]), "organization_id")
}

# METADATA
# title: Workflow mismatch
# description: The request names a workflow_id other than the workflow it was evaluated against.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	lib.valid
	lib.kind != "start"
	got := lib.request.workflow_id
	got != _state.workflow_id
	r := lib.reason(rego.metadata.rule(), sprintf("request names workflow %q but was evaluated against workflow %q", [got, _workflow_id]), "workflow_id")
}

# METADATA
# title: Pack mismatch
# description: A start names a pack other than the pack whose policy evaluates it.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	lib.valid
	input.request.kind == "start"
	lib.request.pack != lib.pack
	r := lib.reason(rego.metadata.rule(), sprintf("start names pack %q but is evaluated by pack %q", [lib.request.pack, lib.pack]), "pack")
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
	lib.valid
	some s in _scopes
	state_field := _guardrails.scope_fields[s.field]
	want := _state[state_field]
	s.value != want
	r := lib.reason(rego.metadata.rule(), sprintf("%s is %q, not the workflow's %s %q", [s.path, s.value, state_field, want]), s.path)
}

# _scopes are the scope fields inside the request body: every key named in the core
# table scope_fields below the top level of the request, with a string value, as
# {path, field, value}. The engine finds them once, in Go, and hands them over as
# input.derived.scopes; an input without that list (one built by hand) is walked here.
_scopes := s if {
	s := input.derived.scopes
	is_array(s)
} else := [{"path": lib.path_string(path), "field": field, "value": value} |
	walk(lib.request, [path, value])
	count(path) > 1
	field := path[count(path) - 1]
	is_string(field)
	_guardrails.scope_fields[field]
	is_string(value)
]
