package handoff.core

import data.handoff.lib

# _error_code is a validation error's code, null when it has none.
_error_code(e) := c if {
	c := e.code
	is_string(c)
} else := null

# Rules, not calls, guard the shape of input: in Rego, "not f(x)" with x undefined is
# itself undefined, so a negated call on a missing field would never fire.
_request_object if is_object(input.request)

_validation_list if is_array(input.validation.errors)

_validation_errors := e if {
	e := input.validation.errors
	is_array(e)
} else := []

# _validation_codes are the codes the engine may report in input.validation.errors.
_validation_codes := {
	"SCHEMA_INVALID",
	"UNKNOWN_FIELD",
	"DUPLICATE_KEY",
	"INVALID_ENCODING",
	"PAYLOAD_TOO_LARGE",
	"DEPTH_EXCEEDED",
	"TENANT_MISMATCH",
	"WORKFLOW_NOT_FOUND",
	"UNKNOWN_PACK",
	"WORKFLOW_EXISTS",
	"IDEMPOTENCY_KEY_REUSED",
	"IDENTITY_MISMATCH",
}

# _validation_reason turns one validation error into a reason with its path; meta is
# the METADATA of the rule repeating that error's code.
_validation_reason(meta, e) := lib.reason(meta, _validation_message(e.code, e), _validation_path(e))

_validation_message(code, e) := m if {
	m := e.message
	is_string(m)
	m != ""
} else := sprintf("request rejected: %s", [code])

_validation_path(e) := p if {
	p := e.path
	is_string(p)
} else := ""

# METADATA
# title: Schema invalid
# description: >-
#   The request does not match the CUE definition of its kind (a required field missing, a wrong type, a value out of range), as reported by the engine in input.validation.errors.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: SCHEMA_INVALID
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "SCHEMA_INVALID"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Unknown field
# description: >-
#   The request carries a field its definition does not declare; all definitions are closed.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: UNKNOWN_FIELD
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "UNKNOWN_FIELD"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Duplicate key
# description: >-
#   The request JSON repeats an object key, or repeats it in another letter case.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: DUPLICATE_KEY
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "DUPLICATE_KEY"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Invalid encoding
# description: >-
#   The request is not valid UTF-8 or not valid JSON.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: INVALID_ENCODING
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "INVALID_ENCODING"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Payload too large
# description: >-
#   The request exceeds the engine's size limit.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: PAYLOAD_TOO_LARGE
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "PAYLOAD_TOO_LARGE"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Depth exceeded
# description: >-
#   The request nests deeper than the engine's depth limit.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: DEPTH_EXCEEDED
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "DEPTH_EXCEEDED"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Tenant mismatch
# description: >-
#   The engine found the request's tenant_id differs from the tenant of the workflow it names.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: TENANT_MISMATCH
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "TENANT_MISMATCH"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Identity mismatch
# description: >-
#   The host authenticated the request's sender (a service token) and the request names
#   another tenant, another actor, or a role the sender does not hold. Nothing of the
#   tenant it names was read; the request is kept in the sender's tenant's audit stream.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: IDENTITY_MISMATCH
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "IDENTITY_MISMATCH"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Workflow not found
# description: >-
#   The engine found no workflow with the request's workflow_id for its tenant.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: WORKFLOW_NOT_FOUND
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "WORKFLOW_NOT_FOUND"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Unknown pack
# description: >-
#   A start names a pack the bundle does not ship.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: UNKNOWN_PACK
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "UNKNOWN_PACK"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Workflow exists
# description: >-
#   A start names a workflow_id that already exists.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: WORKFLOW_EXISTS
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "WORKFLOW_EXISTS"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Idempotency key reused
# description: >-
#   The request_id was already used by a different request.
#   Repeated from input.validation.errors with its path.
# custom:
#   code: IDEMPOTENCY_KEY_REUSED
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	e.code == "IDEMPOTENCY_KEY_REUSED"
	r := _validation_reason(rego.metadata.rule(), e)
}

# METADATA
# title: Unknown validation error
# description: >-
#   A validation error whose code is not one the core knows still blocks, reported as
#   SCHEMA_INVALID with the original code in the message.
# custom:
#   code: SCHEMA_INVALID
#   outcome: block
reasons contains r if {
	some e in _validation_errors
	not _error_code(e) in _validation_codes
	r := lib.reason(rego.metadata.rule(), sprintf("validation error with unknown code %v: %s", [_error_code(e), _validation_message("SCHEMA_INVALID", e)]), _validation_path(e))
}

# METADATA
# title: No request
# description: >-
#   There is no decoded request object and the engine reported no validation error:
#   nothing can be checked, so nothing is allowed.
# custom:
#   code: SCHEMA_INVALID
#   outcome: block
reasons contains r if {
	count(_validation_errors) == 0
	not _request_object
	r := lib.reason(rego.metadata.rule(), "the request is missing or is not a JSON object", "")
}

_actor_types := {"agent", "human", "system"}

# _envelope_problems are the envelope fields a request cannot do without, with what
# is wrong with them.
_envelope_problems contains ["kind", "is not a known request kind"] if not lib.kind in _all_kinds

_envelope_problems contains [field, "is missing or empty"] if {
	some field in ["request_id", "tenant_id"]
	not _has_text(lib.request, field)
}

_envelope_problems contains ["actor.type", "is not agent, human or system"] if not lib.actor_type in _actor_types

_envelope_problems contains ["actor.id", "is missing or empty"] if not _has_text(lib.actor, "id")

# METADATA
# title: Envelope incomplete
# description: >-
#   A request the engine passed as valid still lacks part of the envelope (a known
#   kind, request_id, tenant_id, an actor with type and id). Every other check keys on
#   these, so the request is blocked rather than judged on nothing.
# custom:
#   code: SCHEMA_INVALID
#   outcome: block
reasons contains r if {
	lib.valid
	some [path, problem] in _envelope_problems
	r := lib.reason(rego.metadata.rule(), sprintf("%s %s", [path, problem]), path)
}

# METADATA
# title: No workflow state
# description: >-
#   A valid request arrived without a workflow snapshot (input.state is null) and the
#   engine reported no error: the workflow cannot be checked, so nothing is allowed.
# custom:
#   code: WORKFLOW_NOT_FOUND
#   outcome: block
reasons contains r if {
	lib.valid
	not _state
	r := lib.reason(rego.metadata.rule(), sprintf("no workflow state for %s request %q", [lib.kind, object.get(lib.request, "request_id", "")]), "")
}

_state_maps := {
	"artifacts": "object",
	"counters": "object",
	"edges": "object",
	"input_hashes": "object",
	"recent_edges": "array",
	"stage_handoffs": "object",
	"conflicts": "object",
	"approvals": "object",
	"defects": "object",
	"effects": "object",
}

# _state_maps_complete says in one step, by literal lookups, that the snapshot has every
# map of _state_maps with its type; only when it does not are the maps listed one by one.
_state_maps_complete if {
	is_object(_state.artifacts)
	is_object(_state.counters)
	is_object(_state.edges)
	is_object(_state.input_hashes)
	is_array(_state.recent_edges)
	is_object(_state.stage_handoffs)
	is_object(_state.conflicts)
	is_object(_state.approvals)
	is_object(_state.defects)
	is_object(_state.effects)
}

# METADATA
# title: Validation list missing
# description: >-
#   The engine handed the policy an input without the list input.validation.errors, so
#   it cannot tell whether the request passed its schema: the request is blocked.
# custom:
#   code: POLICY_ERROR
#   outcome: block
reasons contains r if {
	not _validation_list
	r := lib.reason(rego.metadata.rule(), "input.validation.errors is missing or not a list", "")
}

# METADATA
# title: Malformed state snapshot
# description: >-
#   The workflow snapshot lacks one of the maps the engine promises (artifacts, counters, edges, input_hashes, recent_edges, stage_handoffs, conflicts, approvals, defects, effects).
# custom:
#   code: POLICY_ERROR
#   outcome: block
reasons contains r if {
	lib.valid
	not _state_maps_complete
	some name, want in _state_maps
	type_name(object.get(_state, name, null)) != want
	r := lib.reason(rego.metadata.rule(), sprintf("input.state.%s is missing or not an %s", [name, want]), "")
}

# METADATA
# title: Derived values missing
# description: >-
#   A handoff arrived without the values the engine derives from it: the input hash, the output hash (with an output) and the context size (with a context).
# custom:
#   code: POLICY_ERROR
#   outcome: block
reasons contains r if {
	_handoff
	some field, want in _derived_needed
	not type_name(object.get(input, ["derived", field], null)) == want
	r := lib.reason(rego.metadata.rule(), sprintf("input.derived.%s is missing or not %s", [field, lib.with_article(want)]), "")
}

_derived_needed["input_hash"] := "string"

_derived_needed["output_hash"] := "string" if _output

_derived_needed["context_bytes"] := "number" if is_object(lib.request.context)

# METADATA
# title: Missing trace id
# description: >-
#   Requests of the kinds in the core table trace_required_kinds must carry a non-blank
#   trace_id: an output without trace_id is invalid.
# custom:
#   code: MISSING_TRACE_ID
#   outcome: block
reasons contains r if {
	lib.valid
	lib.kind in _guardrails.trace_required_kinds
	not _has_text(lib.request, "trace_id")
	r := lib.reason(rego.metadata.rule(), sprintf("%s request %q carries no trace_id", [lib.kind, object.get(lib.request, "request_id", "")]), "trace_id")
}

_all_kinds := {"start", "handoff", "review", "approval", "failure", "resolution", "outcome", "cancel"}

# _has_text holds when obj[field] is a string with something other than blanks.
_has_text(obj, field) if {
	s := obj[field]
	is_string(s)
	trim_space(s) != ""
}
