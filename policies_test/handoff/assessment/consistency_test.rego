# Consistency between agents: the trust hierarchy, SCF data as the only normative source,
# evidence candidates never conclusions, not_evidenced never silently reclassified, no
# silent contradiction of an earlier output, approved findings never altered, enrichment
# never changing a decision.
package handoff.assessment_test

test_kb_used_as_normative_control if {
	c := patch_item(controls, "controls", "control_id", "BCD-11", {"sources": [{"id": "scf-2025.2-BCD-11", "kind": "scf_data"}, {"id": "kb-cand-03", "kind": "kb_evidence_candidate"}]})
	d := decide(controls_handoff(c), st_controls)
	codes(d) == {"KB_USED_AS_NORMATIVE", "SECURITY_AUDIT"}
}

test_kb_used_as_normative_mapping if {
	m := patch_item(mapping, "mappings", "requirement_ref", "A.8.5", {"sources": [{"id": "scf-strm-iso-27001-2022-iac-06", "kind": "scf_data"}, {"id": "control-analysis@v1", "kind": "agent_output"}]})
	d := decide(mapping_handoff(m), st_mapping)
	codes(d) == {"KB_USED_AS_NORMATIVE", "SECURITY_AUDIT"}
}

test_kb_normative_twin_scf_data if {
	d := decide(controls_handoff(controls), st_controls)
	not "KB_USED_AS_NORMATIVE" in codes(d)
	d.outcome == "allow"
}

test_requirement_without_scf_data if {
	c := patch_item(controls, "controls", "control_id", "BCD-11", {"sources": [{"id": "knowledge-package@v1", "kind": "draft_artifact"}]})
	d := decide(controls_handoff(c), st_controls)
	codes(d) == {"MISSING_SOURCES", "SECURITY_AUDIT"}
	d.reasons[0].path == "output.content.controls[2].sources"
}

test_conclusion_without_sources_is_core if {
	d := decide(gap_handoff(drop_item_field(gaps, "findings", "finding_id", "F-03", "sources")), st_gaps)
	codes(d) == {"MISSING_SOURCES", "SECURITY_AUDIT"}
}

test_sources_twin_sourced if {
	d := decide(gap_handoff(gaps), st_gaps)
	not "MISSING_SOURCES" in codes(d)
}

test_official_mapping_without_scf_data if {
	m := patch_item(mapping, "mappings", "requirement_ref", "A.8.5", {"sources": [{"id": "control-analysis@v1", "kind": "draft_artifact"}]})
	d := decide(mapping_handoff(m), st_mapping)
	codes(d) == {"OFFICIAL_MAPPING_INFERRED", "SECURITY_AUDIT"}
}

test_official_mapping_without_requirement if {
	d := decide(mapping_handoff(drop_item_field(mapping, "mappings", "requirement_ref", "A.8.5", "requirement_ref")), st_mapping)
	codes(d) == {"OFFICIAL_MAPPING_INFERRED", "SECURITY_AUDIT"}
}

test_official_mapping_twin_backed if {
	d := decide(mapping_handoff(mapping), st_mapping)
	not "OFFICIAL_MAPPING_INFERRED" in codes(d)
}

soa_lgpd_official := json.patch(soa, [{"op": "replace", "path": "/entries/1/mappings/1", "value": {"framework": "LGPD", "requirement_ref": "Art. 46", "mapping_status": "official"}}])

test_soa_treats_absent_mapping_as_official if {
	d := decide(soa_handoff(soa_lgpd_official), st_soa)
	codes(d) == {"OFFICIAL_MAPPING_INFERRED", "SECURITY_AUDIT"}
	d.reasons[0].path == "output.content.entries[1].mappings[1]"
}

test_soa_absent_mapping_twin_flagged if {
	f := flag("official_mapping_absent_treated_as_present", "IAC-06", ref("FRAMEWORK_MAPPING", 1), [{"id": "scf-2025.2-IAC-06", "kind": "scf_data"}])
	d := decide(flagged(soa_handoff(soa_lgpd_official), [f]), st_soa)
	not "OFFICIAL_MAPPING_INFERRED" in codes(d)
	codes(d) == {"CONFLICT_DETECTED"}
}

test_evidence_candidate_unexamined if {
	e := patch_item(evidence, "assessments", "control_id", "MON-01", {"evidence_status": "evidenced", "items": [{"candidate_id": "kb-cand-04", "examined": false, "supports": false, "evidence_kind": "design"}]})
	d := decide(evidence_handoff(e), st_evidence)
	codes(d) == {"EVIDENCE_CANDIDATE_AS_CONCLUSION"}
}

test_finding_resting_on_a_candidate if {
	d := decide(gap_handoff(patch_item(gaps, "findings", "finding_id", "F-01", {"sources": [{"id": "kb-cand-01", "kind": "kb_evidence_candidate"}]})), st_gaps)
	codes(d) == {"EVIDENCE_CANDIDATE_AS_CONCLUSION"}
}

test_evidence_candidate_twin_examined if {
	d := decide(evidence_handoff(evidence), st_evidence)
	not "EVIDENCE_CANDIDATE_AS_CONCLUSION" in codes(d)
}

not_implemented(rationale) := patch_item(gaps, "findings", "finding_id", "F-04", {"status": "not_implemented", "rationale": rationale})

test_not_evidenced_reclassified_without_rationale if {
	g := drop_item_field(not_implemented("x"), "findings", "finding_id", "F-04", "rationale")
	d := decide(flagless(with_req(gap_handoff(g), {"requires_validation": true})), st_gaps)
	codes(d) == {"NOT_EVIDENCED_RECLASSIFIED"}
}

flagless(r) := r

test_not_evidenced_reclassified_without_validation if {
	d := decide(gap_handoff(not_implemented("No SIEM is licensed")), st_gaps)
	codes(d) == {"NOT_EVIDENCED_RECLASSIFIED"}
}

test_not_evidenced_twin_rationale_and_validation if {
	d := decide(with_req(gap_handoff(not_implemented("No SIEM is licensed")), {"requires_validation": true}), st_gaps)
	not "NOT_EVIDENCED_RECLASSIFIED" in codes(d)
	d.status_after == "FINDINGS_APPROVAL"
}

test_unsupported_maturity_without_operational_evidence if {
	d := decide(maturity_handoff(patch_item(maturity, "scores", "control_id", "GOV-01", {"score": 3})), st_maturity)
	codes(d) == {"UNSUPPORTED_MATURITY_SCORE"}
}

test_unsupported_maturity_with_design_evidence if {
	d := decide(maturity_handoff(patch_item(maturity, "scores", "control_id", "GOV-01", {"score": 3, "operational_evidence": ["kb-cand-01"]})), st_maturity)
	codes(d) == {"UNSUPPORTED_MATURITY_SCORE"}
}

test_unsupported_maturity_twin_operational if {
	d := decide(maturity_handoff(maturity), st_maturity)
	not "UNSUPPORTED_MATURITY_SCORE" in codes(d)
	d.outcome == "allow"
}

test_report_alters_an_approved_finding if {
	r := patch_item(report, "findings", "finding_id", "F-04", {"status": "partially_implemented"})
	d := decide(report_handoff(r), st_reporting)
	codes(d) == {"APPROVED_FINDING_ALTERED", "SECURITY_AUDIT"}
}

test_report_rewrites_a_rationale if {
	r := patch_item(report, "findings", "finding_id", "F-03", {"rationale": "Backups are fine"})
	d := decide(report_handoff(r), st_reporting)
	codes(d) == {"APPROVED_FINDING_ALTERED", "SECURITY_AUDIT"}
}

test_report_omits_and_adds_findings if {
	r := json.patch(report, [{"op": "replace", "path": "/findings/3/finding_id", "value": "F-99"}])
	d := decide(report_handoff(r), st_reporting)
	codes(d) == {"APPROVED_FINDING_ALTERED", "SECURITY_AUDIT"}
	count([x | some x in d.reasons; x.code == "APPROVED_FINDING_ALTERED"]) == 2
}

test_report_altered_even_when_flagged if {
	r := patch_item(report, "findings", "finding_id", "F-04", {"status": "partially_implemented"})
	f := flag("contradicts_approved_artifact", "MON-01", ref("GAP_ANALYSIS", 1), [{"id": "gap-analysis@v1", "kind": "approved_artifact"}])
	d := decide(flagged(report_handoff(r), [f]), st_reporting)
	"APPROVED_FINDING_ALTERED" in codes(d)
	d.outcome == "block"
}

test_report_twin_unchanged_findings if {
	d := decide(report_handoff(report), st_reporting)
	not "APPROVED_FINDING_ALTERED" in codes(d)
	d.status_after == "REPORT_APPROVAL"
}

mon_implemented := patch_item(gaps, "findings", "finding_id", "F-04", {"status": "implemented", "rationale": "SIEM live since September"})

test_inconsistency_gap_contradicts_evidence if {
	d := decide(with_req(gap_handoff(mon_implemented), {"requires_validation": true}), st_gaps)
	codes(d) == {"INCONSISTENCY_NOT_FLAGGED"}
}

test_inconsistency_gap_contradicts_the_soa if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	d := decide(gap_handoff(g), st_gaps)
	codes(d) == {"INCONSISTENCY_NOT_FLAGGED"}
}

test_inconsistency_maturity_contradicts_a_finding if {
	d := decide(maturity_handoff(patch_item(maturity, "scores", "control_id", "MON-01", {"score": 2})), st_maturity)
	codes(d) == {"INCONSISTENCY_NOT_FLAGGED"}
}

test_inconsistency_contradictory_evidence if {
	e := patch_item(evidence, "assessments", "control_id", "IAC-06", {"items": [
		{"candidate_id": "kb-cand-02", "examined": true, "supports": true, "evidence_kind": "operational"},
		{"candidate_id": "kb-cand-04", "examined": true, "supports": false, "evidence_kind": "operational"},
	]})
	d := decide(evidence_handoff(e), st_evidence)
	codes(d) == {"INCONSISTENCY_NOT_FLAGGED"}
}

test_inconsistency_flag_without_validation if {
	f := flag("divergent_status", "MON-01", ref("EVIDENCE_ASSESSMENT", 1), [draft_source])
	r := flagged(gap_handoff(mon_implemented), [f])
	d := decide(with_req(r, {"requires_validation": false}), st_gaps)
	"INCONSISTENCY_NOT_FLAGGED" in codes(d)
	d.outcome == "block"
}

test_inconsistency_twin_flagged if {
	f := flag("divergent_status", "MON-01", ref("EVIDENCE_ASSESSMENT", 1), [draft_source])
	d := decide(flagged(gap_handoff(mon_implemented), [f]), st_gaps)
	not "INCONSISTENCY_NOT_FLAGGED" in codes(d)
	codes(d) == {"CONFLICT_DETECTED"}
}

test_conflict_flag_without_its_earlier_version if {
	f := flag("divergent_status", "MON-01", null, [draft_source])
	d := decide(flagged(gap_handoff(mon_implemented), [f]), st_gaps)
	"CONFLICT_FLAG_INVALID" in codes(d)
	d.outcome == "block"
}

test_conflict_flag_not_an_input if {
	f := flag("divergent_status", "MON-01", ref("KNOWLEDGE_PACKAGE", 1), [draft_source])
	d := decide(flagged(gap_handoff(mon_implemented), [f]), st_gaps)
	"CONFLICT_FLAG_INVALID" in codes(d)
}

test_conflict_flag_twin_input if {
	f := flag("divergent_status", "MON-01", ref("EVIDENCE_ASSESSMENT", 1), [draft_source])
	d := decide(flagged(gap_handoff(mon_implemented), [f]), st_gaps)
	not "CONFLICT_FLAG_INVALID" in codes(d)
}

test_trust_hierarchy_kb_against_a_draft if {
	f := flag("divergent_status", "MON-01", ref("EVIDENCE_ASSESSMENT", 1), [{"id": "kb-cand-04", "kind": "kb_evidence_candidate"}])
	d := decide(flagged(gap_handoff(mon_implemented), [f]), st_gaps)
	codes(d) == {"TRUST_HIERARCHY_VIOLATION"}
}

test_trust_hierarchy_draft_against_an_approved_artifact if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	f := flag("contradicts_approved_artifact", "IAC-06", ref("STATEMENT_OF_APPLICABILITY", 1), [draft_source])
	d := decide(flagged(gap_handoff(g), [f]), st_gaps)
	codes(d) == {"TRUST_HIERARCHY_VIOLATION"}
}

test_trust_hierarchy_twin_scf_data_against_approved if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	f := flag("contradicts_approved_artifact", "IAC-06", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "scf-2025.2-IAC-06", "kind": "scf_data"}])
	d := decide(flagged(gap_handoff(g), [f]), st_gaps)
	not "TRUST_HIERARCHY_VIOLATION" in codes(d)
	d.status_after == "CONFLICT_REVIEW"
}

enrichment(content) := handoff(st_soa, "scf_control_analyst", "soa_architect", [ref("KNOWLEDGE_PACKAGE", 1)], "CONTROL_ANALYSIS", 2, content)

enrich(r) := with_req(r, {"handoff_type": "enrichment"})

test_enrichment_changes_a_decision if {
	c := patch_item(controls, "controls", "control_id", "MON-01", {"in_scope": false})
	d := decide(enrich(enrichment(c)), st_soa)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION"}
}

test_enrichment_of_an_approved_artifact if {
	st := add(st_soa, [version("CONTROL_ANALYSIS", 1, "approved")])
	d := decide(enrich(enrichment(object.union(controls, {"notes": ["MON-01 covers the SOC contract"]}))), st)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION"}
}

test_enrichment_twin_notes_only if {
	d := decide(enrich(enrichment(object.union(controls, {"notes": ["MON-01 covers the SOC contract"]}))), st_soa)
	not "ENRICHMENT_CHANGES_DECISION" in codes(d)
	d.outcome == "allow"
	d.status_after == "SOA"
	next_agents(d) == {"soa_architect"}
	status_events(d) == {"CONTROL_ANALYSIS v1 superseded"}
}

# A Knowledge Steward enrichment may add evidence candidates (context, never
# conclusions) for the Evidence Analyst working now; it may not change or drop one.
cand_05 := {
	"candidate_id": "kb-cand-05", "title": "SIEM alert triage records, November 2026",
	"document": {"id": "doc-siem-triage-2026-11", "hash": hash("doc-siem-triage-2026-11")},
	"control_ids": ["MON-01"], "kind": "record",
	"sources": [{"id": "kb-cand-05", "kind": "kb_evidence_candidate"}],
}

knowledge_plus(cands, docs) := object.union(knowledge, {
	"evidence_candidates": array.concat(knowledge.evidence_candidates, cands),
	"kb_documents": array.concat(knowledge.kb_documents, docs),
})

knowledge_enrichment(content) := enrich(handoff(st_evidence, "knowledge_steward", "evidence_analyst", [ref("ASSESSMENT_SCOPE", 1)], "KNOWLEDGE_PACKAGE", 2, content))

cand_05_doc := {"id": "doc-siem-triage-2026-11", "hash": hash("doc-siem-triage-2026-11"), "title": "SIEM triage records"}

test_enrichment_adds_an_evidence_candidate if {
	d := decide(knowledge_enrichment(knowledge_plus([cand_05], [cand_05_doc])), st_evidence)
	codes(d) == set()
	d.outcome == "allow"
	d.status_after == "EVIDENCE"
	next_agents(d) == {"evidence_analyst"}
	"kb-cand-05" in d.next[0].context.must_know.kb_evidence_candidates
	status_events(d) == {"KNOWLEDGE_PACKAGE v1 superseded"}
}

test_enrichment_changes_an_evidence_candidate if {
	d := decide(knowledge_enrichment(patch_item(knowledge, "evidence_candidates", "candidate_id", "kb-cand-04", {"kind": "record"})), st_evidence)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION"}
}

test_enrichment_drops_an_evidence_candidate if {
	k := object.union(knowledge, {"evidence_candidates": array.slice(knowledge.evidence_candidates, 0, 3)})
	d := decide(knowledge_enrichment(k), st_evidence)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION"}
}

test_enrichment_adds_a_candidate_reusing_an_id if {
	d := decide(knowledge_enrichment(knowledge_plus([object.union(cand_05, {"candidate_id": "kb-cand-04", "sources": []})], [cand_05_doc])), st_evidence)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION", "REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_enrichment_changes_the_scf_release if {
	d := decide(knowledge_enrichment(object.union(knowledge_plus([cand_05], [cand_05_doc]), {"scf_version": "2026.1"})), st_evidence)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION", "REFERENCE_MISMATCH", "SECURITY_AUDIT"}
}

test_enrichment_drops_a_note if {
	st := add(st_soa, [version_with("CONTROL_ANALYSIS", 1, "draft", object.union(controls, {"notes": ["MON-01 covers the SOC contract"]}), {})])
	d := decide(enrich(handoff(st, "scf_control_analyst", "soa_architect", [ref("KNOWLEDGE_PACKAGE", 1)], "CONTROL_ANALYSIS", 2, object.union(controls, {"notes": ["IAC-06 also covers the backup console"]}))), st)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION"}
}

test_enrichment_twin_keeps_the_note if {
	st := add(st_soa, [version_with("CONTROL_ANALYSIS", 1, "draft", object.union(controls, {"notes": ["MON-01 covers the SOC contract"]}), {})])
	d := decide(enrich(handoff(st, "scf_control_analyst", "soa_architect", [ref("KNOWLEDGE_PACKAGE", 1)], "CONTROL_ANALYSIS", 2, object.union(controls, {"notes": ["MON-01 covers the SOC contract", "IAC-06 also covers the backup console"]}))), st)
	codes(d) == set()
	d.outcome == "allow"
}

# Adding a control is a decision (the controls in scope), not context.
test_enrichment_adds_a_control if {
	c := object.union(controls, {"controls": array.concat(controls.controls, [object.union(controls.controls[0], {"control_id": "GOV-02"})])})
	d := decide(enrich(enrichment(c)), st_soa)
	codes(d) == {"ENRICHMENT_CHANGES_DECISION"}
}

test_enrichment_tables_missing_block if {
	d := decide_without_config(knowledge_enrichment(knowledge_plus([cand_05], [cand_05_doc])), st_evidence, "enrichment_additions")
	"CONTRACT_MISSING" in codes(d)
	d.outcome == "block"
}

# An enrichment that asks for validation waits for a person like any other output; it
# was recorded as a draft and the validation it asked for never happened.
test_enrichment_asking_validation_goes_to_validation if {
	r := with_req(knowledge_enrichment(knowledge_plus([cand_05], [cand_05_doc])), {"requires_validation": true})
	d := decide(r, st_evidence)
	codes(d) == set()
	d.outcome == "await_human"
	d.status_after == "VALIDATION"
	next_agents(d) == {"assessment_reviewer"}
	recorded(d) == {"KNOWLEDGE_PACKAGE v2 under_review"}
	some e in d.events
	e.type == "artifact_recorded"
	e.meta.resume_status == "EVIDENCE"
}

test_enrichment_twin_without_validation_stays if {
	d := decide(knowledge_enrichment(knowledge_plus([cand_05], [cand_05_doc])), st_evidence)
	d.status_after == "EVIDENCE"
	recorded(d) == {"KNOWLEDGE_PACKAGE v2 draft"}
}

test_validated_enrichment_resumes_the_step if {
	st := add(set_status(st_evidence, "VALIDATION"), [version("KNOWLEDGE_PACKAGE", 1, "superseded"), version_with("KNOWLEDGE_PACKAGE", 2, "under_review", knowledge_plus([cand_05], [cand_05_doc]), {"route": "VALIDATION", "resume_status": "EVIDENCE"})])
	d := decide(approval(reviewer, "APPROVE", "VALIDATION", [ref("KNOWLEDGE_PACKAGE", 2)]), st)
	codes(d) == set()
	d.status_after == "EVIDENCE"
	next_agents(d) == {"evidence_analyst"}
}
