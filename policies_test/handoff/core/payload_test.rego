package handoff.core_test

import data.handoff.core

without_request_field(inp, field) := set_request(inp, object.remove(inp.request, [field]))

test_missing_assumptions if {
	inp := without_request_field(handoff_input, "assumptions")
	codes_for(inp) == {"MISSING_ASSUMPTIONS"}
	contains(message_of(inp, "MISSING_ASSUMPTIONS", "assumptions"), "PLAN v1 from \"strategist\"")
}

test_missing_assumptions_twin_empty_list if {
	clean(with_request(handoff_input, {"assumptions": []}))
}

test_missing_limitations if {
	inp := without_request_field(handoff_input, "limitations")
	codes_for(inp) == {"MISSING_LIMITATIONS", "LIMITATION_DROPPED"}
	has_reason(inp, "MISSING_LIMITATIONS", "limitations")
}

test_missing_limitations_twin_empty_list if {
	inp := with_state(with_request(handoff_input, {"limitations": []}), {"artifacts": {"BRIEF": {"versions": {"1": {"limitations": []}}}}})
	clean(inp)
}

test_missing_confidence if {
	inp := without_request_field(handoff_input, "confidence_score")
	codes_for(inp) == {"MISSING_CONFIDENCE"}
	has_reason(inp, "MISSING_CONFIDENCE", "confidence_score")
}

test_missing_confidence_twin_zero if {
	clean(with_request(handoff_input, {"confidence_score": 0}))
}

# A handoff that only routes work (no output) need not carry them.
test_routing_handoff_needs_no_output_fields if {
	req := object.remove(handoff_request, ["output", "assumptions", "confidence_score"])
	clean(set_request(handoff_input, req))
}

claims_input(claims) := with_request(handoff_input, {"output": {"content": {"claims": claims}}})

test_missing_sources if {
	inp := claims_input([{"text": "Monthly billing lifts conversion"}])
	codes_for(inp) == {"MISSING_SOURCES"}
	contains(message_of(inp, "MISSING_SOURCES", "output.content.claims[0]"), "output.content.claims[0] in PLAN v1 states a conclusion without sources")
}

test_missing_sources_empty_and_string_claims if {
	inp := claims_input([
		{"text": "a", "sources": ["survey"]},
		{"text": "b", "sources": []},
		{"text": "c", "sources": "  "},
		"d",
	])
	{r.path | some r in reasons_for(inp)} == {"output.content.claims[1]", "output.content.claims[2]", "output.content.claims[3]"}
}

test_missing_sources_object_claims_and_conclusions if {
	inp := with_request(handoff_input, {"output": {"content": {
		"claims": {"pricing": {"text": "a"}, "audience": {"text": "b", "evidence": ["crm-export"]}},
		"conclusions": "SMB owners will switch",
	}}})
	{r.path | some r in reasons_for(inp)} == {"output.content.claims.pricing", "output.content.conclusions"}
}

test_missing_sources_twin if {
	clean(claims_input([
		{"text": "a", "sources": ["survey"]},
		{"text": "b", "source_refs": "brief-1#finding-2"},
		{"text": "c", "evidence": ["crm-export"]},
	]))
}

test_missing_sources_pack_claim_fields if {
	pack := object.union(fixture_pack, {"claim_fields": ["findings"]})
	inp := with_request(handoff_input, {"output": {"content": {"findings": [{"text": "x"}]}}})
	some r in reasons_with(inp, pack)
	r.code == "MISSING_SOURCES"
	r.path == "output.content.findings[0]"
	clean(inp)
}

test_unsourced_claims_helper if {
	core.unsourced_claims({"a": [{"sources": ["s"]}, {}], "b": "x", "c": ""}, ["a", "b", "c", "d"]) == {"a[1]", "b"} with data.handoff.core.contract as guardrails
}

test_limitation_dropped if {
	inp := with_request(handoff_input, {"limitations": ["Prices from 2025"]})
	codes_for(inp) == {"LIMITATION_DROPPED"}
	contains(message_of(inp, "LIMITATION_DROPPED", "limitations"), "limitation \"Only EU market data\" of BRIEF v1 is missing")
}

test_limitation_dropped_long_text_shortened if {
	long := "Only EU market data, collected over twelve weeks from two hundred structured interviews in five countries"
	inp := with_state(handoff_input, {"artifacts": {"BRIEF": {"versions": {"1": {"limitations": [long]}}}}})
	m := message_of(inp, "LIMITATION_DROPPED", "limitations")
	contains(m, "two hundred structured ...\" of BRIEF v1")
}

test_limitation_dropped_twin if {
	clean(with_request(handoff_input, {"limitations": ["  only eu market data ", "Prices from 2025"]}))
}
