# References: every source an output cites resolves to what this workflow recorded, of
# the kind it declares; a self-declared kind is a fact to check.
package handoff.assessment_test

import data.handoff.assessment

# with_control_source adds a source to the GOV-01 requirement (beside its SCF data).
with_control_source(s) := patch_item(controls, "controls", "control_id", "GOV-01", {"sources": [{"id": "scf-2025.2-GOV-01", "kind": "scf_data"}, s]})

control_source_decision(s) := decide(controls_handoff(with_control_source(s)), st_controls)

globex_soa := {"id": "soa", "type": "STATEMENT_OF_APPLICABILITY", "version": 3, "hash": hash("globex soa v3")}

test_source_ref_to_another_tenants_artifact if {
	d := control_source_decision({"id": "soa@v3", "kind": "approved_artifact", "ref": globex_soa})
	codes(d) == {"ARTIFACT_NOT_FOUND", "SECURITY_AUDIT"}
	some r in d.reasons
	r.path == "output.content.controls[0].sources[1].ref"
}

test_source_ref_twin_recorded_version if {
	d := control_source_decision({"id": "knowledge-package@v1", "kind": "draft_artifact", "ref": ref("KNOWLEDGE_PACKAGE", 1)})
	codes(d) == set()
	d.outcome == "allow"
}

test_source_version_recorded_nowhere if {
	d := control_source_decision({"id": "knowledge-package@v7", "kind": "draft_artifact"})
	codes(d) == {"ARTIFACT_NOT_FOUND", "SECURITY_AUDIT"}
}

test_source_id_naming_nothing if {
	d := control_source_decision({"id": "analyst-notes", "kind": "draft_artifact"})
	codes(d) == {"ARTIFACT_NOT_FOUND", "SECURITY_AUDIT"}
}

test_source_version_twin_recorded_by_id if {
	d := control_source_decision({"id": "knowledge-package@v1", "kind": "draft_artifact"})
	codes(d) == set()
}

test_source_ref_with_another_hash if {
	d := control_source_decision({"id": "knowledge-package@v1", "kind": "draft_artifact", "ref": object.union(ref("KNOWLEDGE_PACKAGE", 1), {"hash": hash("other content")})})
	codes(d) == {"HASH_MISMATCH", "SECURITY_AUDIT"}
}

test_source_ref_with_another_id if {
	d := control_source_decision({"id": "kp-globex", "kind": "draft_artifact", "ref": object.union(ref("KNOWLEDGE_PACKAGE", 1), {"id": "kp-globex"})})
	codes(d) == {"ARTIFACT_NOT_FOUND", "SECURITY_AUDIT"}
}

test_source_id_and_ref_disagree if {
	d := control_source_decision({"id": "assessment-scope@v1", "kind": "draft_artifact", "ref": ref("KNOWLEDGE_PACKAGE", 1)})
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

# A source that calls a draft approved claims an approval nobody gave.
test_source_claims_approved_artifact if {
	m := patch_item(maturity, "scores", "control_id", "IAC-06", {"sources": [{"id": "gap-analysis@v1", "kind": "approved_artifact"}, {"id": "evidence-assessment@v1", "kind": "approved_artifact"}]})
	d := decide(maturity_handoff(m), st_maturity)
	codes(d) == {"APPROVAL_BYPASS", "SECURITY_AUDIT"}
	some r in d.reasons
	r.path == "output.content.scores[1].sources[1].kind"
}

test_source_claims_approved_twin_draft if {
	d := decide(maturity_handoff(maturity), st_maturity)
	codes(d) == set()
	d.outcome == "allow"
}

# Understating what a version is never raises its trust: an approved version cited as a
# draft is accepted.
test_source_understates_an_approved_version if {
	m := patch_item(maturity, "scores", "control_id", "GOV-01", {"sources": [{"id": "gap-analysis@v1", "kind": "draft_artifact"}]})
	d := decide(maturity_handoff(m), st_maturity)
	codes(d) == set()
}

# with_soa_source replaces the sources of the GOV-01 SoA entry (not normative content:
# any kind of the trust hierarchy may support it).
with_soa_source(s) := patch_item(soa, "entries", "control_id", "GOV-01", {"sources": [s]})

soa_source_decision(s, st) := decide(with_req(soa_handoff(with_soa_source(s)), {"context": context_for(st, soa_handoff(soa).input_artifacts)}), st)

test_source_agent_output_names_an_orchestrator_record if {
	d := soa_source_decision({"id": "assessment-scope@v1", "kind": "agent_output"}, st_soa)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_source_agent_output_twin_agents_version if {
	d := soa_source_decision({"id": "control-analysis@v1", "kind": "agent_output"}, st_soa)
	codes(d) == set()
	d.outcome == "await_human"
}

test_source_orchestrator_record_twin_approved_artifact if {
	d := soa_source_decision({"id": "assessment-scope@v1", "kind": "approved_artifact"}, st_soa)
	codes(d) == set()
}

st_soa_rejected_package := add(st_soa, [version("KNOWLEDGE_PACKAGE", 1, "draft"), version("KNOWLEDGE_PACKAGE", 2, "rejected")])

test_source_rejected_version_as_draft if {
	d := soa_source_decision({"id": "knowledge-package@v2", "kind": "draft_artifact"}, st_soa_rejected_package)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_source_rejected_version_twin_agent_output if {
	d := soa_source_decision({"id": "knowledge-package@v2", "kind": "agent_output"}, st_soa_rejected_package)
	codes(d) == set()
}

test_source_unknown_kb_candidate if {
	e := patch_item(evidence, "assessments", "control_id", "MON-01", {"sources": [{"id": "kb-cand-99", "kind": "kb_evidence_candidate"}]})
	d := decide(evidence_handoff(e), st_evidence)
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
}

test_source_kb_candidate_twin_listed if {
	d := decide(evidence_handoff(evidence), st_evidence)
	codes(d) == set()
}

test_source_kb_candidate_with_the_package_ref if {
	e := patch_item(evidence, "assessments", "control_id", "MON-01", {"sources": [{"id": "kb-cand-04", "kind": "kb_evidence_candidate", "ref": ref("KNOWLEDGE_PACKAGE", 1)}]})
	d := decide(evidence_handoff(e), st_evidence)
	codes(d) == set()
}

test_source_kb_candidate_with_another_ref if {
	e := patch_item(evidence, "assessments", "control_id", "MON-01", {"sources": [{"id": "kb-cand-04", "kind": "kb_evidence_candidate", "ref": ref("STATEMENT_OF_APPLICABILITY", 1)}]})
	d := decide(evidence_handoff(e), st_evidence)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_source_scf_data_naming_an_artifact if {
	d := control_source_decision({"id": "knowledge-package@v1", "kind": "scf_data"})
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_source_scf_data_naming_a_kb_candidate if {
	d := control_source_decision({"id": "kb-cand-01", "kind": "scf_data"})
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_source_scf_data_with_a_ref if {
	d := control_source_decision({"id": "scf-2025.2-GOV-01", "kind": "scf_data", "ref": ref("KNOWLEDGE_PACKAGE", 1)})
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_source_scf_data_twin_catalogue_id if {
	d := control_source_decision({"id": "scf-2025.2-IAC-06", "kind": "scf_data"})
	codes(d) == set()
}

# A flag cannot outrank the version it contradicts by calling an agent's output SCF data.
test_source_laundered_into_the_trust_hierarchy if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	f := flag("contradicts_approved_artifact", "IAC-06", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "evidence-assessment@v1", "kind": "scf_data"}])
	d := decide(flagged(gap_handoff(g), [f]), st_gaps)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_source_kind_without_resolution_fails_closed if {
	d := decide(controls_handoff(with_control_source({"id": "knowledge-package@v1", "kind": "draft_artifact"})), st_controls) with data.handoff.assessment.config as json.patch(config, [{"op": "replace", "path": "/source_kinds", "value": {"scf_data": {"resolves": "catalogue"}}}])
	"REFERENCE_MISMATCH" in codes(d)
	d.outcome == "block"
}

test_source_kinds_table_missing_blocks if {
	d := decide_without_config(controls_handoff(controls), st_controls, "source_kinds")
	"CONTRACT_MISSING" in codes(d)
}

# --- references between outputs ------------------------------------------------------------

test_evidence_item_examines_an_unknown_candidate if {
	e := patch_item(evidence, "assessments", "control_id", "MON-01", {"items": [{"candidate_id": "kb-cand-77", "examined": true, "supports": false, "evidence_kind": "design"}]})
	d := decide(evidence_handoff(e), st_evidence)
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
	some r in d.reasons
	r.path == "output.content.assessments[3].items[0].candidate_id"
}

test_evidence_item_twin_listed_candidate if {
	e := patch_item(evidence, "assessments", "control_id", "MON-01", {"items": [{"candidate_id": "kb-cand-01", "examined": true, "supports": false, "evidence_kind": "design"}]})
	d := decide(evidence_handoff(e), st_evidence)
	codes(d) == set()
}

test_poam_item_plans_an_unknown_finding if {
	d := decide(poam_handoff(patch_item(poam, "items", "item_id", "P-02", {"finding_id": "F-99"})), st_poam)
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
}

test_poam_item_plans_a_finding_for_another_control if {
	d := decide(poam_handoff(patch_item(poam, "items", "item_id", "P-02", {"control_id": "IAC-06"})), st_poam)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_poam_twin_approved_findings if {
	d := decide(poam_handoff(poam), st_poam)
	codes(d) == set()
	d.outcome == "allow"
}

test_report_poam_summary_names_an_unknown_item if {
	r := object.union(report, {"poam_summary": array.concat(report.poam_summary, [{"item_id": "P-09", "finding_id": "F-02", "priority": "low"}])})
	d := decide(report_handoff(r), st_reporting)
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
}

test_report_poam_summary_changes_a_priority if {
	d := decide(report_handoff(patch_item(report, "poam_summary", "item_id", "P-02", {"priority": "low"})), st_reporting)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_report_maturity_summary_changes_a_score if {
	d := decide(report_handoff(patch_item(report, "maturity_summary", "control_id", "MON-01", {"score": 3})), st_reporting)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_report_twin_restates_its_inputs if {
	d := decide(report_handoff(report), st_reporting)
	codes(d) == set()
	d.outcome == "await_human"
}

test_findings_with_a_duplicated_id if {
	g := object.union(gaps, {"findings": array.concat(gaps.findings, [object.union(gaps.findings[0], {"control_id": "IAC-06"})])})
	d := decide(gap_handoff(g), st_gaps)
	"REFERENCE_MISMATCH" in codes(d)
	d.outcome == "block"
}

test_findings_with_two_statuses_for_a_control if {
	g := object.union(gaps, {"findings": array.concat(gaps.findings, [object.union(gaps.findings[1], {"finding_id": "F-05", "status": "not_implemented"})])})
	d := decide(gap_handoff(g), st_gaps)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

# An approved GAP_ANALYSIS recorded before ids were checked never makes the report's
# comparison fail: a duplicated id names no finding.
test_report_against_findings_with_a_duplicated_id_decides if {
	dup := object.union(gaps, {"findings": array.concat(gaps.findings, [object.union(gaps.findings[0], {"rationale": "other"})])})
	st := add(st_reporting, [version_with("GAP_ANALYSIS", 1, "approved", dup, {})])
	d := decide(report_handoff(report), st)
	"APPROVED_FINDING_ALTERED" in codes(d)
}

test_output_id_of_another_artifact if {
	r := controls_handoff(controls)
	d := decide(with_req(r, {"output": object.union(r.output, {"id": "knowledge-package"})}), st_controls)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_candidate_document_with_another_hash if {
	k := patch_item(knowledge, "evidence_candidates", "candidate_id", "kb-cand-02", {"document": {"id": "doc-idp-mfa-2026-10", "hash": hash("other export")}})
	d := decide(with_req(knowledge_handoff, {"output": object.union(knowledge_handoff.output, {"content": k})}), st_knowledge)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_candidate_document_twin_indexed_hash if {
	d := decide(knowledge_handoff, st_knowledge)
	codes(d) == set()
}

test_unique_keys_table_missing_blocks if {
	d := decide_without_config(gap_handoff(gaps), st_gaps, "unique_keys")
	"CONTRACT_MISSING" in codes(d)
}

test_output_restates_another_scf_release if {
	d := decide(controls_handoff(object.union(controls, {"scf_version": "2024.1"})), st_controls)
	codes(d) == {"REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_knowledge_scope_outside_the_assessment if {
	k := object.union(knowledge, {"scope": {"frameworks": ["ISO-27001-2022", "SOC2"], "control_domains": ["GOV", "HRS"]}})
	d := decide(with_req(knowledge_handoff, {"output": object.union(knowledge_handoff.output, {"content": k})}), st_knowledge)
	codes(d) == {"SCOPE_MISMATCH", "SECURITY_AUDIT"}
	{r.path | some r in d.reasons; r.code == "SCOPE_MISMATCH"} == {"output.content.scope.frameworks[1]", "output.content.scope.control_domains[1]"}
}

test_knowledge_scope_twin_part_of_the_assessment if {
	k := object.union(knowledge, {"scope": {"frameworks": ["LGPD"], "control_domains": ["GOV", "MON"]}})
	d := decide(with_req(knowledge_handoff, {"output": object.union(knowledge_handoff.output, {"content": k})}), st_knowledge)
	codes(d) == set()
}

test_evidence_for_a_control_outside_the_soa if {
	st := add(st_soa, [version_with("STATEMENT_OF_APPLICABILITY", 1, "approved", object.union(soa, {"entries": array.slice(soa.entries, 0, 3)}), {})])
	d := decide(evidence_handoff(evidence), set_status(st, "EVIDENCE"))
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
	some r in d.reasons
	r.path == "output.content.assessments[3].control_id"
}

test_score_for_a_control_without_a_finding if {
	m := object.union(maturity, {"scores": array.concat(maturity.scores, [{"control_id": "GOV-02", "score": 1, "rationale": "Not assessed", "sources": [{"id": "gap-analysis@v1", "kind": "approved_artifact"}]}])})
	d := decide(maturity_handoff(m), st_maturity)
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
}

# --- every citing field resolves ------------------------------------------------------------

# paths_of are the paths of the reasons of a code.
reference_paths(d, code) := {r.path | some r in d.reasons; r.code == code}

# A conflict flag whose only source is an SCF data id naming nothing is refused: an SCF
# data source names an entry of the assessment's SCF release or of the STRM of a
# framework in its scope, for a control of the assessment.
test_conflict_flag_source_naming_no_scf_data if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	f := flag("contradicts_approved_artifact", "IAC-06", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "scf_data", "kind": "scf_data"}])
	d := decide(flagged(gap_handoff(g), [f]), st_gaps)
	d.outcome == "block"
	"REFERENCE_NOT_FOUND" in codes(d)
	reference_paths(d, "REFERENCE_NOT_FOUND") == {"output.content.conflict_flags[0].sources[0].id"}
}

test_conflict_flag_source_twin_scf_data_of_the_assessment if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	f := flag("contradicts_approved_artifact", "IAC-06", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "scf-2025.2-IAC-06", "kind": "scf_data"}])
	d := decide(flagged(gap_handoff(g), [f]), st_gaps)
	codes(d) == {"CONFLICT_DETECTED"}
}

test_scf_data_source_of_another_release_framework_or_control if {
	every id in ["scf-2024.1-GOV-01", "scf-2025.2-GOV-02", "scf-2025.2-PRI-01", "scf-strm-nist-800-53-gov-01", "scf-strm-lgpd-gov-02", "gov-01", "scf-GOV-01"] {
		s := {"id": id, "kind": "scf_data"}
		d := decide(controls_handoff(patch_item(controls, "controls", "control_id", "GOV-01", {"sources": [s]})), st_controls)
		"REFERENCE_NOT_FOUND" in codes(d)
		reference_paths(d, "REFERENCE_NOT_FOUND") == {"output.content.controls[0].sources[0].id"}
	}
}

test_scf_data_source_twin_catalogue_and_strm if {
	every id in ["scf-2025.2-GOV-01", "scf-strm-lgpd-gov-01", "scf-strm-iso-27001-2022-gov-01"] {
		s := {"id": id, "kind": "scf_data"}
		d := decide(controls_handoff(patch_item(controls, "controls", "control_id", "GOV-01", {"sources": [s]})), st_controls)
		not "REFERENCE_NOT_FOUND" in codes(d)
	}
}

# Without the catalogue table, no SCF data id resolves (fail closed).
test_scf_data_source_without_the_catalogue_table if {
	cfg := object.remove(data.handoff.assessment.config, ["scf_catalogue"])
	d := assessment.decision with input as input_of(controls_handoff(controls), st_controls)
		with data.handoff.assessment.config as cfg
	"REFERENCE_NOT_FOUND" in codes(d)
	"CONTRACT_MISSING" in codes(d)
}

# A KB evidence candidate points at a document the package indexes (kb_documents).
test_candidate_document_not_indexed if {
	k := json.patch(knowledge, [{"op": "replace", "path": "/evidence_candidates/0/document/id", "value": "doc-nowhere"}])
	d := decide(with_req(knowledge_handoff, {"output": object.union(knowledge_handoff.output, {"content": k})}), st_knowledge)
	"REFERENCE_NOT_FOUND" in codes(d)
	reference_paths(d, "REFERENCE_NOT_FOUND") == {"output.content.evidence_candidates[0].document.id"}
}

test_candidate_document_twin_indexed if {
	d := decide(knowledge_handoff, st_knowledge)
	not "REFERENCE_NOT_FOUND" in codes(d)
}

# A candidate's own KB sources name candidates the package lists.
test_knowledge_package_kb_source_naming_no_candidate if {
	k := json.patch(knowledge, [{"op": "replace", "path": "/evidence_candidates/0/sources/0/id", "value": "kb-cand-77"}])
	d := decide(with_req(knowledge_handoff, {"output": object.union(knowledge_handoff.output, {"content": k})}), st_knowledge)
	"REFERENCE_NOT_FOUND" in codes(d)
	reference_paths(d, "REFERENCE_NOT_FOUND") == {"output.content.evidence_candidates[0].sources[0].id"}
}

# Operational evidence is cited by every score, high or low: each id names evidence of
# the EVIDENCE_ASSESSMENT for the control.
test_operational_evidence_of_a_low_score_naming_nothing if {
	m := patch_item(maturity, "scores", "control_id", "GOV-01", {"operational_evidence": ["kb-cand-99"]})
	d := decide(maturity_handoff(m), st_maturity)
	codes(d) == {"REFERENCE_NOT_FOUND", "SECURITY_AUDIT"}
	reference_paths(d, "REFERENCE_NOT_FOUND") == {"output.content.scores[0].operational_evidence[0]"}
}

test_operational_evidence_twin_recorded if {
	d := decide(maturity_handoff(maturity), st_maturity)
	not "REFERENCE_NOT_FOUND" in codes(d)
}

# The SoA and the framework mapping are about the controls of the control analysis they
# are made from.
test_soa_entry_for_a_control_not_analysed if {
	s := patch_item(soa, "entries", "control_id", "GOV-01", {"control_id": "GOV-02"})
	d := decide(soa_handoff(s), st_soa)
	"REFERENCE_NOT_FOUND" in codes(d)
	"output.content.entries[0].control_id" in reference_paths(d, "REFERENCE_NOT_FOUND")
}

test_mapping_for_a_control_not_analysed if {
	m := patch_item(mapping, "mappings", "control_id", "GOV-01", {"control_id": "GOV-02"})
	d := decide(mapping_handoff(m), st_mapping)
	"REFERENCE_NOT_FOUND" in codes(d)
}

test_soa_and_mapping_twin_analysed_controls if {
	not "REFERENCE_NOT_FOUND" in codes(decide(soa_handoff(soa), st_soa))
	not "REFERENCE_NOT_FOUND" in codes(decide(mapping_handoff(mapping), st_mapping))
}

# A conflict flag is about a control the output or the version it conflicts with holds.
test_conflict_flag_control_naming_nothing if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	right := flag("contradicts_approved_artifact", "IAC-06", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "scf-2025.2-IAC-06", "kind": "scf_data"}])
	stray := flag("contradicts_approved_artifact", "MON-02", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "scf-2025.2-MON-01", "kind": "scf_data"}])
	d := decide(flagged(gap_handoff(g), [right, stray]), st_gaps)
	"REFERENCE_NOT_FOUND" in codes(d)
	reference_paths(d, "REFERENCE_NOT_FOUND") == {"output.content.conflict_flags[1].control_id"}
}
