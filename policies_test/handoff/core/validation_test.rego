package handoff.core_test

validation_codes := [
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
]

with_errors(inp, errors) := object.union(inp, {"validation": {"errors": errors}})

test_validation_error_repeated_with_path if {
	every code in validation_codes {
		inp := with_errors(handoff_input, [{"code": code, "path": "output.content.claims[2]", "message": "bad claim"}])
		reasons_for(inp) == {{"code": code, "title": validation_titles[code], "message": "bad claim", "path": "output.content.claims[2]", "outcome": "block"}}
	}
}

# validation_titles are the titles of the rules repeating each validation code.
validation_titles := {
	"SCHEMA_INVALID": "Schema invalid",
	"UNKNOWN_FIELD": "Unknown field",
	"DUPLICATE_KEY": "Duplicate key",
	"INVALID_ENCODING": "Invalid encoding",
	"PAYLOAD_TOO_LARGE": "Payload too large",
	"DEPTH_EXCEEDED": "Depth exceeded",
	"TENANT_MISMATCH": "Tenant mismatch",
	"WORKFLOW_NOT_FOUND": "Workflow not found",
	"UNKNOWN_PACK": "Unknown pack",
	"WORKFLOW_EXISTS": "Workflow exists",
	"IDEMPOTENCY_KEY_REUSED": "Idempotency key reused",
	"IDENTITY_MISMATCH": "Identity mismatch",
}

# The same request with no validation error is clean (the allowed twin of every
# validation code).
test_validation_twin_without_errors if {
	clean(with_errors(handoff_input, []))
}

test_validation_error_without_message_or_path if {
	inp := with_errors(handoff_input, [{"code": "UNKNOWN_FIELD"}])
	reasons_for(inp) == {{"code": "UNKNOWN_FIELD", "title": "Unknown field", "message": "request rejected: UNKNOWN_FIELD", "outcome": "block"}}
}

test_validation_errors_suppress_semantic_checks if {
	inp := with_errors(with_request(handoff_input, {"source_agent": "ghost"}), [{"code": "SCHEMA_INVALID", "path": "output", "message": "output.content: field required"}])
	codes_for(inp) == {"SCHEMA_INVALID"}
}

test_unknown_validation_code_is_schema_invalid if {
	inp := with_errors(handoff_input, [{"code": "SOMETHING_NEW", "path": "kind", "message": "odd"}])
	r := reason_with_code(inp, "SCHEMA_INVALID")
	r.path == "kind"
	contains(r.message, "SOMETHING_NEW")
}

test_undecodable_request_reports_engine_errors_only if {
	inp := with_errors(object.union(handoff_input, {"request": null, "state": null}), [{"code": "INVALID_ENCODING", "message": "invalid UTF-8 at byte 12"}])
	codes_for(inp) == {"INVALID_ENCODING"}
}

test_missing_request_without_errors_is_schema_invalid if {
	inp := object.union(handoff_input, {"request": null})
	codes_for(inp) == {"SCHEMA_INVALID"}
	contains(reason_with_code(inp, "SCHEMA_INVALID").message, "missing")
}

test_missing_state_is_workflow_not_found if {
	inp := object.union(handoff_input, {"state": null})
	"WORKFLOW_NOT_FOUND" in codes_for(inp)
	contains(reason_with_code(inp, "WORKFLOW_NOT_FOUND").message, "req-handoff-1")
}

test_missing_state_twin if {
	clean(handoff_input)
}

test_policy_error_without_validation_list if {
	inp := object.remove(handoff_input, ["validation"])
	codes_for(inp) == {"POLICY_ERROR"}
}

test_policy_error_state_map_missing if {
	inp := set_state_field(handoff_input, "input_hashes", null)
	"POLICY_ERROR" in codes_for(inp)
	contains(reason_with_code(inp, "POLICY_ERROR").message, "input.state.input_hashes")
}

# Each map the snapshot must hold, missing or of another type, is named on its own.
test_policy_error_every_state_map if {
	every name in ["artifacts", "counters", "edges", "input_hashes", "recent_edges", "stage_handoffs", "conflicts", "approvals", "defects", "effects"] {
		inp := set_state_field(handoff_input, name, "not a map")
		messages := {r.message | some r in reasons_for(inp); r.code == "POLICY_ERROR"}
		some m in messages
		startswith(m, sprintf("input.state.%s is missing", [name]))
	}
}

test_policy_error_derived_missing if {
	every field in ["input_hash", "output_hash", "context_bytes"] {
		inp := object.union(handoff_input, {"derived": {field: null}})
		r := reason_with_code(inp, "POLICY_ERROR")
		contains(r.message, sprintf("input.derived.%s", [field]))
	}
}

# Without output and context, a handoff needs only the input hash.
test_policy_error_derived_twin if {
	req := object.remove(handoff_request, ["output", "context", "assumptions", "confidence_score"])
	inp := set_request(object.union(handoff_input, {"derived": {"output_hash": null, "context_bytes": null}}), req)
	clean(inp)
}

set_state_field(inp, field, value) := object.union(inp, {"state": object.union(object.remove(inp.state, [field]), {field: value})})

test_missing_trace_id if {
	every kind, inp in all_inputs {
		without := set_request(inp, object.remove(inp.request, ["trace_id"]))
		has_reason(without, "MISSING_TRACE_ID", "trace_id")
		contains(message_of(without, "MISSING_TRACE_ID", "trace_id"), kind)
	}
}

test_blank_trace_id if {
	inp := with_request(handoff_input, {"trace_id": "   "})
	codes_for(inp) == {"MISSING_TRACE_ID"}
}

test_trace_id_twin if {
	clean(with_request(handoff_input, {"trace_id": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}))
}

test_validation_error_without_code if {
	inp := with_errors(handoff_input, [{"message": "odd"}])
	codes_for(inp) == {"SCHEMA_INVALID"}
	contains(reason_with_code(inp, "SCHEMA_INVALID").message, "unknown code null")
}

# Defence in depth: an envelope the engine should have refused still blocks.
test_envelope_incomplete if {
	inp := set_request(handoff_input, {"output_summary": "no envelope at all"})
	{r.path | some r in reasons_for(inp); r.code == "SCHEMA_INVALID"} == {"kind", "request_id", "tenant_id", "actor.type", "actor.id"}
	d := decide_for(inp, reasons_for(inp), {"outcome": "allow", "status_after": "STRATEGY"})
	d.outcome == "block"
}

test_envelope_incomplete_twin if {
	every inp in all_inputs {
		not "SCHEMA_INVALID" in codes_for(inp)
	}
}

test_pack_absent_from_input if {
	"CONTRACT_MISSING" in codes_for(object.remove(handoff_input, ["pack"]))
}
