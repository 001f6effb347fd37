package handoff.core_test

import data.handoff.core

required_pack_tables := [
	"agents",
	"artifacts",
	"workflow/transitions",
	"workflow/terminal",
	"limits/max_review_cycles",
	"limits/max_handoffs_per_stage",
	"limits/max_edge_visits",
	"limits/loop_window",
	"limits/max_context_bytes",
	"limits/retry",
]

test_contract_missing_for_unknown_pack if {
	inp := object.union(handoff_input, {"pack": "nopack"})
	has_reason(inp, "CONTRACT_MISSING", "")
	contains(message_of(inp, "CONTRACT_MISSING", ""), "data.handoff.nopack.contract")
}

test_contract_missing_for_empty_and_core_pack if {
	every pack in ["", "core"] {
		inp := object.union(handoff_input, {"pack": pack})
		"CONTRACT_MISSING" in codes_for(inp)
	}
}

test_contract_missing_twin if {
	not "CONTRACT_MISSING" in codes_for(handoff_input)
}

test_contract_missing_per_table if {
	every path in required_pack_tables {
		pack := json.remove(fixture_pack, [path])
		some r in reasons_with(handoff_input, pack)
		r.code == "CONTRACT_MISSING"
		contains(r.message, replace(path, "/", "."))
	}
}

test_contract_missing_wrong_type if {
	pack := json.patch(fixture_pack, [{"op": "replace", "path": "/limits/max_edge_visits", "value": "3"}])
	some r in reasons_with(handoff_input, pack)
	r.code == "CONTRACT_MISSING"
	contains(r.message, "number limits.max_edge_visits")
}

test_core_guardrails_missing if {
	rs := core.reasons with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as {}
	count({r | some r in rs; r.code == "CONTRACT_MISSING"}) == 12
	d := core.decide(rs, {"outcome": "allow", "status_after": "QA"}) with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as {}
	d.outcome == "block"
}

test_core_guardrails_twin if {
	rs := core.reasons with input as handoff_input
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
	count(rs) == 0
}

# Fail closed: with no pack tables at all, every deny rule still denies on its own.
test_missing_pack_denies_handoff if {
	inp := object.union(handoff_input, {"pack": "nopack"})
	codes := codes_for(inp)
	"SOURCE_NOT_AUTHORIZED" in codes
	"TARGET_NOT_AUTHORIZED" in codes
	d := decide_for(inp, reasons_for(inp), {"outcome": "allow", "status_after": "QA"})
	d.outcome == "block"
	d.status_after == "STRATEGY"
}

test_missing_registry_denies_every_agent if {
	every kind in ["handoff", "review"] {
		rs := reasons_with(all_inputs[kind], object.remove(fixture_pack, ["agents"]))
		some r in rs
		r.code == "SOURCE_NOT_AUTHORIZED"
	}
	some r in reasons_with(failure_input, object.remove(fixture_pack, ["agents"]))
	r.code == "SOURCE_NOT_AUTHORIZED"
	r.path == "agent"
}

test_missing_roles_denies_people if {
	every kind in ["approval", "resolution"] {
		rs := reasons_with(all_inputs[kind], object.remove(fixture_pack, ["roles"]))
		some r in rs
		r.code == "UNAUTHORIZED_SUBJECT"
	}
}

test_missing_artifact_contracts_deny if {
	pack := object.remove(fixture_pack, ["artifacts"])
	rs := reasons_with(handoff_input, pack)
	some r in rs
	r.code == "SOURCE_NOT_AUTHORIZED"
	r.path == "output.type"
	contains(r.message, "nobody")
}

# A type without a contract requires approval: PLAN v1 under review may not be used.
test_missing_artifact_contract_requires_approval if {
	pack := json.remove(fixture_pack, ["artifacts/PLAN"])
	some r in reasons_with(qa_handoff_input, pack)
	r.code == "ARTIFACT_NOT_APPROVED"
}

test_missing_retry_table_does_not_retry if {
	pack := json.remove(fixture_pack, ["limits/retry"])
	codes := {r.code | some r in reasons_with(failure_input, pack)}
	"NOT_RETRYABLE" in codes
	"CONTRACT_MISSING" in codes
}

test_missing_limits_block if {
	pack := json.remove(fixture_pack, ["limits"])
	inp := with_state(handoff_input, {"edges": {"strategist>qa": 99}, "stage_handoffs": {"STRATEGY": 99}})
	rs := reasons_with(inp, pack)
	d := core.decide(rs, {"outcome": "allow", "status_after": "QA"}) with input as inp
		with data.handoff.testpack.contract as pack
		with data.handoff.core.contract as guardrails
	d.outcome == "block"
	{r.code | some r in d.reasons} == {"CONTRACT_MISSING"}
}

test_missing_transitions_deny_status_change if {
	pack := json.remove(fixture_pack, ["workflow/transitions"])
	d := core.decide(set(), {"outcome": "allow", "status_after": "QA"}) with input as handoff_input
		with data.handoff.testpack.contract as pack
		with data.handoff.core.contract as guardrails
	d.outcome == "block"
	"INVALID_TRANSITION" in {r.code | some r in d.reasons}
}
