# The HandoffPayload: structured output, unique handoff_id, assessment scope and trace
# preserved, handoff types, routing, inputs and versions.
package handoff.assessment_test

import data.handoff.lib

test_output_missing if {
	d := decide(without(knowledge_handoff, ["output"]), st_knowledge)
	d.outcome == "block"
	"OUTPUT_MISSING" in codes(d)
}

test_output_missing_twin if {
	d := decide(knowledge_handoff, st_knowledge)
	not "OUTPUT_MISSING" in codes(d)
}

test_handoff_id_reused if {
	d := decide(with_req(controls_handoff(controls), {"handoff_id": "h-knowledge_package-1"}), st_controls)
	d.outcome == "block"
	codes(d) == {"HANDOFF_ID_REUSED"}
}

test_handoff_id_twin_fresh if {
	d := decide(controls_handoff(controls), st_controls)
	not "HANDOFF_ID_REUSED" in codes(d)
	d.outcome == "allow"
}

test_assessment_mismatch if {
	d := decide(with_req(controls_handoff(controls), {"assessment_id": "asm-2025-isms"}), st_controls)
	d.outcome == "block"
	codes(d) == {"SCOPE_MISMATCH", "SECURITY_AUDIT"}
}

test_assessment_inside_the_output if {
	d := decide(controls_handoff(object.union(controls, {"assessment_id": "asm-2025-isms"})), st_controls)
	d.outcome == "block"
	codes(d) == {"SCOPE_MISMATCH", "SECURITY_AUDIT"}
	some r in d.reasons
	r.path == "output.content.assessment_id"
}

test_assessment_twin_same if {
	d := decide(controls_handoff(controls), st_controls)
	not "SCOPE_MISMATCH" in codes(d)
}

test_framework_outside_the_scope if {
	m := patch_item(mapping, "mappings", "requirement_ref", "A.5.1", {"framework": "PCI-DSS-4"})
	d := decide(mapping_handoff(m), st_mapping)
	"SCOPE_MISMATCH" in codes(d)
	some r in d.reasons
	r.code == "SCOPE_MISMATCH"
	r.path == "output.content.mappings[0].framework"
}

test_control_outside_the_domains if {
	c := patch_item(controls, "controls", "control_id", "BCD-11", {"control_id": "HRS-01", "domain": "HRS"})
	d := decide(controls_handoff(c), st_controls)
	"SCOPE_MISMATCH" in codes(d)
}

test_scope_twin_in_scope if {
	d := decide(mapping_handoff(mapping), st_mapping)
	not "SCOPE_MISMATCH" in codes(d)
}

test_trace_mismatch if {
	d := decide(with_req(controls_handoff(controls), {"trace_id": "trace-other"}), st_controls)
	d.outcome == "block"
	codes(d) == {"TRACE_MISMATCH", "SECURITY_AUDIT"}
}

test_trace_mismatch_without_a_recorded_trace if {
	st := with_state(st_controls, {"artifacts": object.remove(st_controls.artifacts, ["ASSESSMENT_SCOPE"])})
	d := decide(controls_handoff(controls), st)
	"TRACE_MISMATCH" in codes(d)
}

test_trace_twin_the_assessment_trace if {
	d := decide(controls_handoff(controls), st_controls)
	not "TRACE_MISMATCH" in codes(d)
}

test_missing_trace_is_core if {
	d := decide(without(controls_handoff(controls), ["trace_id"]), st_controls)
	codes(d) == {"MISSING_TRACE_ID", "SECURITY_AUDIT"}
}

test_handoff_type_invalid if {
	d := decide(with_req(knowledge_handoff, {"handoff_type": "enrichment"}), st_knowledge)
	d.outcome == "block"
	codes(d) == {"HANDOFF_TYPE_INVALID"}
}

test_handoff_type_twin_sequential if {
	d := decide(knowledge_handoff, st_knowledge)
	not "HANDOFF_TYPE_INVALID" in codes(d)
}

test_target_routed_elsewhere if {
	d := decide(with_req(controls_handoff(controls), {"target_agent": "soa_architect"}), st_controls)
	d.outcome == "block"
	codes(d) == {"TARGET_NOT_AUTHORIZED", "SECURITY_AUDIT"}
}

test_target_twin_next_step if {
	d := decide(controls_handoff(controls), st_controls)
	not "TARGET_NOT_AUTHORIZED" in codes(d)
}

test_input_missing if {
	r := with_req(controls_handoff(controls), {"input_artifacts": [], "context": {"workflow_state": "CONTROLS"}})
	d := decide(r, st_controls)
	d.outcome == "block"
	codes(d) == {"INPUT_MISSING"}
}

test_input_missing_rework_order if {
	st := with_state(add(add(st_gaps, [version("GAP_ANALYSIS", 1, "revision_required")]), [rework_order("gap_analyst", "GAPS", "GAP_ANALYSIS")]), {"counters": {"rework_pending/gap_analyst": 1}})
	r := with_req(gap_handoff(gaps), {"output": output("GAP_ANALYSIS", 2, patch_item(gaps, "findings", "finding_id", "F-01", {"severity": "medium"}))})
	d := decide(with_req(r, {"context": context_for(st, r.input_artifacts)}), st)
	codes(d) == {"INPUT_MISSING"}
}

test_input_twin_all_named if {
	d := decide(controls_handoff(controls), st_controls)
	not "INPUT_MISSING" in codes(d)
}

test_input_not_permitted if {
	inputs := array.concat(gap_handoff(gaps).input_artifacts, [ref("KNOWLEDGE_PACKAGE", 1)])
	d := decide(with_req(gap_handoff(gaps), {"input_artifacts": inputs, "context": context_for(st_gaps, inputs)}), st_gaps)
	d.outcome == "block"
	codes(d) == {"INPUT_NOT_PERMITTED", "SECURITY_AUDIT"}
}

test_input_twin_consumed if {
	d := decide(gap_handoff(gaps), st_gaps)
	not "INPUT_NOT_PERMITTED" in codes(d)
}

correction(patch) := r if {
	base := controls_handoff(controls)
	st := add(st_controls, [version("CONTROL_ANALYSIS", 1, "revision_required")])
	r := [with_req(base, {"output": object.union(output("CONTROL_ANALYSIS", 2, object.union(controls, {"notes": ["BCD-11 covers the PACS archive"]})), patch)}), st]
}

test_version_unlinked_no_supersedes if {
	[r, st] := correction({})
	d := decide(with_req(r, {"output": object.remove(r.output, ["supersedes"])}), st)
	codes(d) == {"VERSION_UNLINKED"}
}

test_version_unlinked_no_justification if {
	[r, st] := correction({})
	d := decide(with_req(r, {"output": object.remove(r.output, ["justification"])}), st)
	codes(d) == {"VERSION_UNLINKED"}
}

test_version_twin_linked if {
	[r, st] := correction({})
	d := decide(r, st)
	not "VERSION_UNLINKED" in codes(d)
	d.outcome == "allow"
}

test_output_repeated if {
	v := object.union(version("CONTROL_ANALYSIS", 1, "revision_required"), {"ref": object.union(ref("CONTROL_ANALYSIS", 1), {"hash": hash(json.marshal(controls))})})
	st := add(st_controls, [v])
	r := with_req(controls_handoff(controls), {"output": output("CONTROL_ANALYSIS", 2, controls)})
	d := decide(r, st)
	codes(d) == {"OUTPUT_REPEATED"}
}

test_output_repeated_twin_progress if {
	v := object.union(version("CONTROL_ANALYSIS", 1, "revision_required"), {"ref": object.union(ref("CONTROL_ANALYSIS", 1), {"hash": hash(json.marshal(controls))})})
	st := add(st_controls, [v])
	r := with_req(controls_handoff(controls), {"output": output("CONTROL_ANALYSIS", 2, object.union(controls, {"notes": ["Corrected"]}))})
	d := decide(r, st)
	not "OUTPUT_REPEATED" in codes(d)
	d.outcome == "allow"
}

# Seed section 7: an inherited limitation is never removed without justification. The
# knowledge package v1 records `limitation`; the control analysis inherits it.
dropped_entry := {"limitation": limitation, "justification": "The SCF control analysis does not rest on examined evidence"}

drop_limitation(r, drops, validation) := with_req(r, {"limitations": [], "limitations_dropped": drops, "requires_validation": validation})

test_limitation_dropped_silently if {
	d := decide(with_req(controls_handoff(controls), {"limitations": []}), st_controls)
	codes(d) == {"LIMITATION_DROPPED"}
	count([r | some r in d.reasons; r.code == "LIMITATION_DROPPED"]) == 1
}

test_limitation_dropped_with_output_justification_only if {
	r := with_req(controls_handoff(controls), {"limitations": [], "requires_validation": true})
	d := decide(with_req(r, {"output": object.union(r.output, {"justification": "The limitation no longer applies"})}), st_controls)
	codes(d) == {"LIMITATION_DROPPED"}
}

test_limitation_dropped_with_a_blank_justification if {
	d := decide(drop_limitation(controls_handoff(controls), [{"limitation": limitation, "justification": "   "}], true), st_controls)
	codes(d) == {"LIMITATION_DROPPED"}
}

test_limitation_dropped_without_validation if {
	d := decide(drop_limitation(controls_handoff(controls), [dropped_entry], false), st_controls)
	codes(d) == {"LIMITATION_DROPPED"}
}

test_limitation_dropped_twin_justified_and_validated if {
	d := decide(drop_limitation(controls_handoff(controls), [object.union(dropped_entry, {"limitation": upper(limitation)})], true), st_controls)
	codes(d) == set()
	d.outcome == "await_human"
	d.status_after == "VALIDATION"
	some e in d.events
	e.type == "artifact_recorded"
	e.meta.limitations_dropped == [object.union(dropped_entry, {"limitation": upper(limitation)})]
}

test_limitation_drop_names_no_inherited_limitation if {
	d := decide(drop_limitation(controls_handoff(controls), [dropped_entry, {"limitation": "On-site visit skipped", "justification": "Not applicable"}], true), st_controls)
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
}

test_limitation_drop_of_a_carried_limitation if {
	r := with_req(controls_handoff(controls), {"limitations_dropped": [dropped_entry], "requires_validation": true})
	d := decide(r, st_controls)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

# Core decides the drop: the pack's schema has limitations_dropped, and a named,
# justified drop a person validates is no LIMITATION_DROPPED.
test_limitation_dropped_is_decided_by_core if {
	r := drop_limitation(controls_handoff(controls), [dropped_entry], true)
	core_reasons := data.handoff.core.reasons with input as input_of(r, st_controls)
	every c in core_reasons {
		c.code != "LIMITATION_DROPPED"
	}
	codes(decide(r, st_controls)) == set()
}

# Messages read as English: "an enrichment handoff", "an approval request".
test_message_articles if {
	lib.with_article("enrichment") == "an enrichment"
	lib.with_article("approval") == "an approval"
	lib.with_article("outcome") == "an outcome"
	lib.with_article("handoff") == "a handoff"
	lib.with_article("sequential") == "a sequential"
}

test_message_handoff_type_article if {
	d := decide(enrichment(object.union(controls, {"notes": ["MON-01 covers the SOC contract"]})), st_soa)
	some r in d.reasons
	r.code == "HANDOFF_TYPE_INVALID"
	contains(r.message, "is an enrichment handoff, not a sequential")
}

test_message_configuration_table if {
	d := decide_without_config(controls_handoff(controls), st_controls, "pipeline")
	some r in d.reasons
	r.code == "CONTRACT_MISSING"
	r.message == "the assessment configuration has no table pipeline (an array)"
}
