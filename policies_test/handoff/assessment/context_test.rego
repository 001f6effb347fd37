# Context transfer: permitted context only, by reference, consistent with the state,
# without duplication; no context may claim an approval a person did not give.
package handoff.assessment_test

with_context(r, st, extra) := with_req(r, {"context": object.union(context_for(st, r.input_artifacts), extra)})

test_context_forbidden_key if {
	d := decide(with_context(gap_handoff(gaps), st_gaps, {"client_memory": {"summary": "Acme always passes"}}), st_gaps)
	d.outcome == "block"
	"CONTEXT_FORBIDDEN" in codes(d)
	"SECURITY_AUDIT" in codes(d)
}

test_context_forbidden_even_when_the_schema_refused_it if {
	r := with_context(gap_handoff(gaps), st_gaps, {"tool_allowlist": ["web_browser"]})
	d := decide_invalid(r, st_gaps, [{"code": "UNKNOWN_FIELD", "path": "context.tool_allowlist", "message": "field not allowed"}])
	codes(d) == {"CONTEXT_FORBIDDEN", "UNKNOWN_FIELD", "SECURITY_AUDIT"}
}

test_context_forbidden_twin_permitted_keys if {
	extra := {
		"scf_controls": ["GOV-01", "MON-01"],
		"kb_evidence_candidates": ["kb-cand-04"],
		"conflict_flags": [],
		"validation_status": "passed",
		"approval_status": {"STATEMENT_OF_APPLICABILITY": "approved"},
	}
	d := decide(with_context(gap_handoff(gaps), st_gaps, extra), st_gaps)
	not "CONTEXT_FORBIDDEN" in codes(d)
	d.outcome == "await_human"
}

test_approval_bypass_claimed_in_context_artifacts if {
	r := gap_handoff(gaps)
	ctx := {"artifacts": [{"ref": ref("STATEMENT_OF_APPLICABILITY", 1), "status": "approved"}, {"ref": ref("EVIDENCE_ASSESSMENT", 1), "status": "approved"}], "workflow_state": "GAPS"}
	d := decide(with_req(r, {"context": ctx}), st_gaps)
	codes(d) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
	some x in d.reasons
	x.path == "context.artifacts[1].status"
}

test_approval_bypass_claimed_in_approval_status if {
	d := decide(with_context(gap_handoff(gaps), st_gaps, {"approval_status": {"EVIDENCE_ASSESSMENT": "approved"}}), st_gaps)
	codes(d) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
}

test_approval_bypass_twin_true_statuses if {
	d := decide(with_context(gap_handoff(gaps), st_gaps, {"approval_status": {"STATEMENT_OF_APPLICABILITY": "approved", "EVIDENCE_ASSESSMENT": "draft"}}), st_gaps)
	not "APPROVAL_BYPASS" in codes(d)
	d.outcome == "await_human"
}

mismatch(extra) := decide(with_context(gap_handoff(gaps), st_gaps, extra), st_gaps)

test_context_mismatch_input_without_status if {
	d := decide(with_req(gap_handoff(gaps), {"context": {"workflow_state": "GAPS"}}), st_gaps)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
	count([x | some x in d.reasons; x.code == "CONTEXT_MISMATCH"]) == 2
}

test_context_mismatch_wrong_status if {
	ctx := {"artifacts": [{"ref": ref("STATEMENT_OF_APPLICABILITY", 1), "status": "approved"}, {"ref": ref("EVIDENCE_ASSESSMENT", 1), "status": "under_review"}]}
	d := decide(with_req(gap_handoff(gaps), {"context": ctx}), st_gaps)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_mismatch_wrong_hash if {
	bad := object.union(ref("EVIDENCE_ASSESSMENT", 1), {"hash": hash("other")})
	ctx := {"artifacts": [{"ref": ref("STATEMENT_OF_APPLICABILITY", 1), "status": "approved"}, {"ref": ref("EVIDENCE_ASSESSMENT", 1), "status": "draft"}, {"ref": bad, "status": "draft"}]}
	d := decide(with_req(gap_handoff(gaps), {"context": ctx}), st_gaps)
	"CONTEXT_MISMATCH" in codes(d)
}

test_context_mismatch_unrecorded_version if {
	ctx := {"artifacts": [{"ref": ref("STATEMENT_OF_APPLICABILITY", 1), "status": "approved"}, {"ref": ref("EVIDENCE_ASSESSMENT", 1), "status": "draft"}, {"ref": ref("EVIDENCE_ASSESSMENT", 2), "status": "draft"}]}
	d := decide(with_req(gap_handoff(gaps), {"context": ctx}), st_gaps)
	"CONTEXT_MISMATCH" in codes(d)
}

test_context_mismatch_workflow_state if {
	codes(mismatch({"workflow_state": "EVIDENCE"})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_mismatch_unknown_candidate if {
	codes(mismatch({"kb_evidence_candidates": ["kb-cand-99"]})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_mismatch_unknown_previous_output if {
	codes(mismatch({"previous_output": {"ref": ref("EVIDENCE_ASSESSMENT", 2)}})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_mismatch_unknown_conflict if {
	codes(mismatch({"conflict_flags": [{"conflict_id": "c-99", "conflict_type": "divergent_status"}]})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_mismatch_twin_consistent if {
	d := mismatch({"previous_output": {"ref": ref("EVIDENCE_ASSESSMENT", 1), "output_summary": "Evidence v1"}, "kb_evidence_candidates": ["kb-cand-04"]})
	not "CONTEXT_MISMATCH" in codes(d)
	d.outcome == "await_human"
}

test_context_official_mapping_inferred if {
	d := decide(with_context(soa_handoff(soa), st_soa, {"official_mappings": [{"control_id": "IAC-06", "framework": "LGPD", "requirement_ref": "Art. 46"}]}), st_soa)
	codes(d) == {"OFFICIAL_MAPPING_INFERRED", "SECURITY_AUDIT"}
}

test_context_official_mapping_twin_official if {
	d := decide(with_context(soa_handoff(soa), st_soa, {"official_mappings": [{"control_id": "IAC-06", "framework": "ISO-27001-2022", "requirement_ref": "A.8.5"}]}), st_soa)
	not "OFFICIAL_MAPPING_INFERRED" in codes(d)
}

test_context_duplicated_inputs if {
	inputs := array.concat(gap_handoff(gaps).input_artifacts, [ref("EVIDENCE_ASSESSMENT", 1)])
	d := decide(with_req(gap_handoff(gaps), {"input_artifacts": inputs, "context": context_for(st_gaps, inputs)}), st_gaps)
	"CONTEXT_DUPLICATED" in codes(d)
	d.outcome == "block"
}

test_context_duplicated_controls if {
	codes(mismatch({"scf_controls": ["MON-01", "MON-01"]})) == {"CONTEXT_DUPLICATED"}
}

test_context_duplicated_twin_once if {
	d := mismatch({"scf_controls": ["MON-01"]})
	not "CONTEXT_DUPLICATED" in codes(d)
}

test_context_too_large_is_core if {
	d := mismatch({"previous_output": {"ref": ref("EVIDENCE_ASSESSMENT", 1), "output_summary": concat("", ["Evidence v1 " | some _ in numbers.range(1, 1500)])}})
	codes(d) == {"CONTEXT_TOO_LARGE"}
}

# No request claims a status the state does not hold, including for a type without a
# recorded version.
test_approval_bypass_claimed_for_an_unrecorded_type if {
	d := decide(with_context(evidence_handoff(evidence), st_evidence, {"approval_status": {"GAP_ANALYSIS": "approved"}}), st_evidence)
	codes(d) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
	some r in d.reasons
	r.path == "context.approval_status.GAP_ANALYSIS"
}

test_approval_bypass_claimed_for_a_stage if {
	d := decide(with_context(evidence_handoff(evidence), st_evidence, {"approval_status": {"FINDINGS_APPROVAL": "final"}}), st_evidence)
	codes(d) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
}

test_context_mismatch_status_of_an_unrecorded_type if {
	d := decide(with_context(evidence_handoff(evidence), st_evidence, {"approval_status": {"GAP_ANALYSIS": "draft"}}), st_evidence)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_approval_status_twin_recorded_types_only if {
	d := decide(with_context(evidence_handoff(evidence), st_evidence, {"approval_status": {"STATEMENT_OF_APPLICABILITY": "approved"}}), st_evidence)
	codes(d) == set()
	d.outcome == "allow"
}

# A type whose latest version was sent back has no version in force: the claim is
# checked against that latest version.
st_gaps_sent_back := add(st_gaps, [version("GAP_ANALYSIS", 1, "revision_required")])

gap_v2(extra) := with_context(handoff(st_gaps_sent_back, "gap_analyst", "maturity_assessor", [ref("STATEMENT_OF_APPLICABILITY", 1), ref("EVIDENCE_ASSESSMENT", 1)], "GAP_ANALYSIS", 2, gaps), st_gaps_sent_back, extra)

test_approval_bypass_claimed_for_a_version_sent_back if {
	d := decide(gap_v2({"approval_status": {"GAP_ANALYSIS": "approved"}}), st_gaps_sent_back)
	codes(d) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
}

test_approval_status_twin_version_sent_back if {
	d := decide(gap_v2({"approval_status": {"GAP_ANALYSIS": "revision_required"}}), st_gaps_sent_back)
	codes(d) == set()
	d.outcome == "await_human"
}

# --- every context claim is a fact of the recorded state --------------------------------

# st_after_conflict: conflict h-gap-1-c1 on MON-01 was resolved; the Gap Analyst redoes.
st_after_conflict := with_state(add(st_gaps, [object.union(conflict_record, {"producer": "orchestrator"})]), {
	"conflicts": {conflict_id: object.union(st_conflict.conflicts[conflict_id], {"status": "resolved"})},
	"open_conflicts": 0,
})

flag_claim(patch) := decide(with_context(gap_handoff(gaps), st_after_conflict, {"conflict_flags": [object.union({"conflict_id": conflict_id, "conflict_type": "divergent_status", "control_id": "MON-01", "status": "resolved"}, patch)]}), st_after_conflict)

test_context_conflict_flag_twin_as_recorded if {
	d := flag_claim({})
	codes(d) == set()
	d.outcome == "await_human"
}

test_context_conflict_flag_claims_another_status if {
	codes(flag_claim({"status": "open"})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_conflict_flag_claims_another_type if {
	codes(flag_claim({"conflict_type": "missing_source"})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_conflict_flag_claims_another_control if {
	codes(flag_claim({"control_id": "GOV-01"})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_conflict_flag_without_id if {
	d := decide(with_context(gap_handoff(gaps), st_after_conflict, {"conflict_flags": [{"conflict_type": "divergent_status", "control_id": "MON-01"}]}), st_after_conflict)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

# st_evidence_approved records the reviewer's approval of the SoA.
st_evidence_approved := with_state(st_evidence, {"approvals": {"SOA_APPROVAL": {"decision": "APPROVE", "by": "ana.souza", "artifacts": [ref("STATEMENT_OF_APPLICABILITY", 1)]}}})

approval_claim(claim) := decide(with_context(evidence_handoff(evidence), st_evidence_approved, {"approval_decision": claim}), st_evidence_approved)

test_context_approval_decision_twin_as_recorded if {
	d := approval_claim({"decision": "APPROVE", "by": "ana.souza", "stage": "SOA_APPROVAL"})
	codes(d) == set()
	d.outcome == "allow"
}

test_context_approval_decision_by_another_person if {
	codes(approval_claim({"decision": "APPROVE", "by": "carlos.lima", "stage": "SOA_APPROVAL"})) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
}

test_context_approval_decision_at_a_stage_never_decided if {
	codes(approval_claim({"decision": "APPROVE", "by": "ana.souza", "stage": "FINDINGS_APPROVAL"})) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
}

test_context_approval_decision_another_decision if {
	codes(approval_claim({"decision": "REQUEST_REVISION", "by": "ana.souza", "stage": "SOA_APPROVAL"})) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

# st_retry_pending: the Evidence Analyst's missing-context retry is pending.
retry_record_content := {"task": "evidence_analysis", "agent": "evidence_analyst", "restricted": false, "retry_type": "missing_context", "retry_reason": "The SoA v1 was not in the context", "exhausted": false, "trace_id": trace}

st_retry_pending := with_state(
	add(st_evidence, [object.union(version_with("RETRY_RECORD", 1, "approved", retry_record_content, {}), {"producer": "orchestrator"})]),
	{"counters": {"retry/evidence_analysis": 1, "retry_pending/evidence_analysis": 1}},
)

retried(claim) := r if {
	inputs := array.concat(evidence_handoff(evidence).input_artifacts, [ref("RETRY_RECORD", 1)])
	r := with_req(evidence_handoff(evidence), {
		"handoff_type": "retry", "retry": {"count": 1, "type": "missing_context", "reason": "context completed"},
		"input_artifacts": inputs, "context": object.union(context_for(st_retry_pending, inputs), {"retry": claim}),
	})
}

test_context_retry_twin_as_granted if {
	d := decide(retried({"count": 1, "type": "missing_context", "reason": "The SoA v1 was not in the context"}), st_retry_pending)
	codes(d) == set()
	d.outcome == "allow"
}

test_context_retry_claims_another_count if {
	d := decide(retried({"count": 0, "type": "missing_context", "reason": "The SoA v1 was not in the context"}), st_retry_pending)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_retry_claimed_without_a_pending_retry if {
	d := decide(with_context(evidence_handoff(evidence), st_evidence, {"retry": {"count": 1, "type": "schema", "reason": "x"}}), st_evidence)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

validation_claim(v) := decide(with_context(evidence_handoff(evidence), st_evidence, {"validation_status": v}), st_evidence)

test_context_validation_status_twins_that_hold if {
	codes(validation_claim("validated")) == set()
	codes(validation_claim("passed")) == set()
}

test_context_validation_claimed_without_an_approved_artifact if {
	d := decide(with_context(controls_handoff(controls), st_controls, {"validation_status": "validated"}), st_controls)
	codes(d) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
}

test_context_validation_twin_passed_for_drafts if {
	d := decide(with_context(controls_handoff(controls), st_controls, {"validation_status": "passed"}), st_controls)
	codes(d) == set()
}

test_context_validation_status_that_does_not_hold if {
	codes(validation_claim("pending_human_validation")) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
	codes(validation_claim("conflict_pending")) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_scf_controls_out_of_the_analysis if {
	st := add(st_gaps, [version_with("CONTROL_ANALYSIS", 1, "draft", patch_item(controls, "controls", "control_id", "MON-01", {"in_scope": false}), {})])
	d := decide(with_context(gap_handoff(gaps), st, {"scf_controls": ["GOV-01", "MON-01"]}), st)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_scf_controls_twin_in_scope if {
	d := mismatch({"scf_controls": ["GOV-01", "MON-01"]})
	codes(d) == set()
}

test_context_previous_output_restates_other_limitations if {
	d := mismatch({"previous_output": {"ref": ref("EVIDENCE_ASSESSMENT", 1), "limitations": []}})
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_previous_output_claims_a_confidence if {
	d := mismatch({"previous_output": {"ref": ref("EVIDENCE_ASSESSMENT", 1), "confidence_score": 0.99}})
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
}

test_context_previous_output_twin_as_recorded if {
	d := mismatch({"previous_output": {"ref": ref("EVIDENCE_ASSESSMENT", 1), "limitations": [limitation], "assumptions": []}})
	codes(d) == set()
}

test_context_mismatch_artifact_with_another_id if {
	other := object.union(ref("EVIDENCE_ASSESSMENT", 1), {"id": "evidence-globex"})
	ctx := {"artifacts": [{"ref": ref("STATEMENT_OF_APPLICABILITY", 1), "status": "approved"}, {"ref": other, "status": "draft"}]}
	d := decide(with_req(gap_handoff(gaps), {"context": ctx}), st_gaps)
	codes(d) == {"CONTEXT_MISMATCH", "SECURITY_AUDIT"}
	some r in d.reasons
	r.path == "context.artifacts[1].ref.id"
}
