# Fixtures for the assessment pack tests: an SCF assessment of a health provider (four
# controls mapped to ISO/IEC 27001:2022 and LGPD), the content of every agent output,
# workflow snapshots for every status, and one valid request for every step. Each test
# takes a fixture, changes one thing and checks the decision. The pack's tables are the
# real exported ones (data.handoff.assessment.contract).
package handoff.assessment_test

import data.handoff.assessment

now := "2026-11-29T10:00:00.000Z"

tenant := "acme"

org := "acme-health"

asm := "asm-2026-isms"

trace := "trace-asm-2026-isms"

hash(s) := sprintf("sha256:%s", [crypto.sha256(s)])

ids := {
	"ASSESSMENT_SCOPE": "assessment-scope",
	"KNOWLEDGE_PACKAGE": "knowledge-package",
	"CONTROL_ANALYSIS": "control-analysis",
	"FRAMEWORK_MAPPING": "framework-mapping",
	"STATEMENT_OF_APPLICABILITY": "soa",
	"EVIDENCE_ASSESSMENT": "evidence-assessment",
	"GAP_ANALYSIS": "gap-analysis",
	"MATURITY_ASSESSMENT": "maturity-assessment",
	"POAM": "poam",
	"ASSESSMENT_REPORT": "assessment-report",
	"CONFLICT_EVENT": "conflict-event",
	"RESOLUTION_RECORD": "resolution-record",
	"RETRY_RECORD": "retry-record",
	"ESCALATION_RECORD": "escalation-record",
	"REWORK_ORDER": "rework-order",
}

ref(type, n) := {"id": ids[type], "type": type, "version": n, "hash": hash(sprintf("%s@%d", [type, n]))}

producers := {
	"KNOWLEDGE_PACKAGE": "knowledge_steward",
	"CONTROL_ANALYSIS": "scf_control_analyst",
	"FRAMEWORK_MAPPING": "framework_mapper",
	"STATEMENT_OF_APPLICABILITY": "soa_architect",
	"EVIDENCE_ASSESSMENT": "evidence_analyst",
	"GAP_ANALYSIS": "gap_analyst",
	"MATURITY_ASSESSMENT": "maturity_assessor",
	"POAM": "poam_planner",
	"ASSESSMENT_REPORT": "report_writer",
}

tasks := {
	"knowledge_steward": "knowledge_curation",
	"scf_control_analyst": "control_analysis",
	"framework_mapper": "framework_mapping",
	"soa_architect": "soa_design",
	"evidence_analyst": "evidence_analysis",
	"gap_analyst": "gap_analysis",
	"maturity_assessor": "maturity_assessment",
	"poam_planner": "poam_planning",
	"report_writer": "report_writing",
}

limitation := "Evidence examined remotely; no on-site observation"

# --- contents ------------------------------------------------------------------------

# knowledge is the Knowledge Steward's package: scope and four KB evidence candidates.
knowledge := {
	"assessment_id": "asm-2026-isms",
	"scf_version": "2025.2",
	"scope": {
		"frameworks": [
			"ISO-27001-2022",
			"LGPD",
		],
		"control_domains": [
			"GOV",
			"IAC",
			"BCD",
			"MON",
		],
	},
	"evidence_candidates": [
		{
			"candidate_id": "kb-cand-01",
			"title": "Information Security Policy v3 (approved 2026-03)",
			"document": {
				"id": "doc-isp-v3",
				"hash": "sha256:9c7ce720d35e92e3f33e9309ff7669d91874a05df4a6b866076f4b871aaa54e4",
			},
			"control_ids": [
				"GOV-01",
			],
			"kind": "policy",
			"sources": [
				{
					"id": "kb-cand-01",
					"kind": "kb_evidence_candidate",
				},
			],
		},
		{
			"candidate_id": "kb-cand-02",
			"title": "Identity provider MFA enforcement export, October 2026",
			"document": {
				"id": "doc-idp-mfa-2026-10",
				"hash": "sha256:6bfb7a1fb1262e39804098a9c55b5f2894764f2fcf01224f8046253dd530a67a",
			},
			"control_ids": [
				"IAC-06",
			],
			"kind": "configuration",
			"sources": [
				{
					"id": "kb-cand-02",
					"kind": "kb_evidence_candidate",
				},
			],
		},
		{
			"candidate_id": "kb-cand-03",
			"title": "Backup job report Q3 2026",
			"document": {
				"id": "doc-backup-q3",
				"hash": "sha256:a19617d9da8a103c526bfd433aa992a6581f1c3a016b3bd092fb7b435f716666",
			},
			"control_ids": [
				"BCD-11",
			],
			"kind": "report",
			"sources": [
				{
					"id": "kb-cand-03",
					"kind": "kb_evidence_candidate",
				},
			],
		},
		{
			"candidate_id": "kb-cand-04",
			"title": "SIEM onboarding runbook (draft)",
			"document": {
				"id": "doc-siem-runbook",
				"hash": "sha256:05759d4afc9ca0837126075e76841a39d7369dc18dd9c82a2929f222e4bfc841",
			},
			"control_ids": [
				"MON-01",
			],
			"kind": "procedure",
			"sources": [
				{
					"id": "kb-cand-04",
					"kind": "kb_evidence_candidate",
				},
			],
		},
	],
	"kb_documents": [
		{
			"id": "doc-isp-v3",
			"hash": "sha256:9c7ce720d35e92e3f33e9309ff7669d91874a05df4a6b866076f4b871aaa54e4",
			"title": "Information Security Policy v3",
		},
		{
			"id": "doc-idp-mfa-2026-10",
			"hash": "sha256:6bfb7a1fb1262e39804098a9c55b5f2894764f2fcf01224f8046253dd530a67a",
			"title": "IdP MFA export",
		},
		{
			"id": "doc-backup-q3",
			"hash": "sha256:a19617d9da8a103c526bfd433aa992a6581f1c3a016b3bd092fb7b435f716666",
			"title": "Backup job report Q3",
		},
		{
			"id": "doc-siem-runbook",
			"hash": "sha256:05759d4afc9ca0837126075e76841a39d7369dc18dd9c82a2929f222e4bfc841",
			"title": "SIEM runbook draft",
		},
	],
	"sources": [
		{
			"id": "kb-acme-health",
			"kind": "kb_evidence_candidate",
			"locator": "Acme Health KB index 2026-11",
		},
	],
}

# controls is the SCF Control Analyst's four controls, each from SCF data.
controls := {
	"assessment_id": "asm-2026-isms",
	"scf_version": "2025.2",
	"controls": [
		{
			"control_id": "GOV-01",
			"domain": "GOV",
			"title": "Cybersecurity & Data Protection Governance Program",
			"requirement": "Mechanisms exist to facilitate the implementation of cybersecurity and data protection governance controls.",
			"in_scope": true,
			"rationale": "Governance program underpins the ISMS scope of the certification",
			"sources": [
				{
					"id": "scf-2025.2-GOV-01",
					"kind": "scf_data",
					"locator": "SCF 2025.2 catalogue, GOV-01",
				},
			],
		},
		{
			"control_id": "IAC-06",
			"domain": "IAC",
			"title": "Multi-Factor Authentication (MFA)",
			"requirement": "Automated mechanisms exist to enforce Multi-Factor Authentication for remote and privileged access.",
			"in_scope": true,
			"rationale": "Remote clinical staff access patient records",
			"sources": [
				{
					"id": "scf-2025.2-IAC-06",
					"kind": "scf_data",
					"locator": "SCF 2025.2 catalogue, IAC-06",
				},
			],
		},
		{
			"control_id": "BCD-11",
			"domain": "BCD",
			"title": "Data Backups",
			"requirement": "Mechanisms exist to create recurring backups of data and verify their integrity.",
			"in_scope": true,
			"rationale": "Patient record availability",
			"sources": [
				{
					"id": "scf-2025.2-BCD-11",
					"kind": "scf_data",
					"locator": "SCF 2025.2 catalogue, BCD-11",
				},
			],
		},
		{
			"control_id": "MON-01",
			"domain": "MON",
			"title": "Continuous Monitoring",
			"requirement": "Mechanisms exist to facilitate the implementation of enterprise-wide monitoring controls.",
			"in_scope": true,
			"rationale": "Detection of unauthorized access to health data",
			"sources": [
				{
					"id": "scf-2025.2-MON-01",
					"kind": "scf_data",
					"locator": "SCF 2025.2 catalogue, MON-01",
				},
			],
		},
	],
}

# mapping is the Framework Mapper's result: no official IAC-06, BCD-11 or MON-01 mapping to LGPD.
mapping := {
	"assessment_id": "asm-2026-isms",
	"mappings": [
		{
			"control_id": "GOV-01",
			"framework": "ISO-27001-2022",
			"mapping_status": "official",
			"sources": [
				{
					"id": "scf-strm-iso-27001-2022-gov-01",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM ISO-27001-2022",
				},
			],
			"requirement_ref": "A.5.1",
			"relationship": "intersects_with",
		},
		{
			"control_id": "GOV-01",
			"framework": "LGPD",
			"mapping_status": "official",
			"sources": [
				{
					"id": "scf-strm-lgpd-gov-01",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM LGPD",
				},
			],
			"requirement_ref": "Art. 50",
			"relationship": "intersects_with",
		},
		{
			"control_id": "IAC-06",
			"framework": "ISO-27001-2022",
			"mapping_status": "official",
			"sources": [
				{
					"id": "scf-strm-iso-27001-2022-iac-06",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM ISO-27001-2022",
				},
			],
			"requirement_ref": "A.8.5",
			"relationship": "intersects_with",
		},
		{
			"control_id": "IAC-06",
			"framework": "LGPD",
			"mapping_status": "absent",
			"sources": [
				{
					"id": "scf-strm-lgpd-iac-06",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM LGPD",
				},
			],
		},
		{
			"control_id": "BCD-11",
			"framework": "ISO-27001-2022",
			"mapping_status": "official",
			"sources": [
				{
					"id": "scf-strm-iso-27001-2022-bcd-11",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM ISO-27001-2022",
				},
			],
			"requirement_ref": "A.8.13",
			"relationship": "equal",
		},
		{
			"control_id": "BCD-11",
			"framework": "LGPD",
			"mapping_status": "absent",
			"sources": [
				{
					"id": "scf-strm-lgpd-bcd-11",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM LGPD",
				},
			],
		},
		{
			"control_id": "MON-01",
			"framework": "ISO-27001-2022",
			"mapping_status": "official",
			"sources": [
				{
					"id": "scf-strm-iso-27001-2022-mon-01",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM ISO-27001-2022",
				},
			],
			"requirement_ref": "A.8.16",
			"relationship": "intersects_with",
		},
		{
			"control_id": "MON-01",
			"framework": "LGPD",
			"mapping_status": "absent",
			"sources": [
				{
					"id": "scf-strm-lgpd-mon-01",
					"kind": "scf_data",
					"locator": "SCF 2025.2 STRM LGPD",
				},
			],
		},
	],
}

# soa is the SoA: every control applicable, the mappings restated.
soa := {
	"assessment_id": "asm-2026-isms",
	"entries": [
		{
			"control_id": "GOV-01",
			"applicable": true,
			"justification": "The governance program is the basis of the ISMS",
			"mappings": [
				{
					"framework": "ISO-27001-2022",
					"requirement_ref": "A.5.1",
					"mapping_status": "official",
				},
				{
					"framework": "LGPD",
					"requirement_ref": "Art. 50",
					"mapping_status": "official",
				},
			],
			"sources": [
				{
					"id": "control-analysis@v1",
					"kind": "draft_artifact",
				},
				{
					"id": "framework-mapping@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"control_id": "IAC-06",
			"applicable": true,
			"justification": "Remote and privileged access to patient data",
			"mappings": [
				{
					"framework": "ISO-27001-2022",
					"requirement_ref": "A.8.5",
					"mapping_status": "official",
				},
				{
					"framework": "LGPD",
					"mapping_status": "absent",
				},
			],
			"sources": [
				{
					"id": "control-analysis@v1",
					"kind": "draft_artifact",
				},
				{
					"id": "framework-mapping@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"control_id": "BCD-11",
			"applicable": true,
			"justification": "Availability of patient records",
			"mappings": [
				{
					"framework": "ISO-27001-2022",
					"requirement_ref": "A.8.13",
					"mapping_status": "official",
				},
				{
					"framework": "LGPD",
					"mapping_status": "absent",
				},
			],
			"sources": [
				{
					"id": "control-analysis@v1",
					"kind": "draft_artifact",
				},
				{
					"id": "framework-mapping@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"control_id": "MON-01",
			"applicable": true,
			"justification": "Detection of unauthorized access",
			"mappings": [
				{
					"framework": "ISO-27001-2022",
					"requirement_ref": "A.8.16",
					"mapping_status": "official",
				},
				{
					"framework": "LGPD",
					"mapping_status": "absent",
				},
			],
			"sources": [
				{
					"id": "control-analysis@v1",
					"kind": "draft_artifact",
				},
				{
					"id": "framework-mapping@v1",
					"kind": "draft_artifact",
				},
			],
		},
	],
}

# evidence is the evidence: MON-01 not_evidenced, BCD-11 partially.
evidence := {
	"assessment_id": "asm-2026-isms",
	"assessments": [
		{
			"control_id": "GOV-01",
			"evidence_status": "evidenced",
			"items": [
				{
					"candidate_id": "kb-cand-01",
					"examined": true,
					"supports": true,
					"evidence_kind": "design",
					"note": "Policy approved by the board in March 2026",
				},
			],
			"rationale": "Approved policy defines the governance program",
			"sources": [
				{
					"id": "kb-cand-01",
					"kind": "kb_evidence_candidate",
				},
			],
		},
		{
			"control_id": "IAC-06",
			"evidence_status": "evidenced",
			"items": [
				{
					"candidate_id": "kb-cand-02",
					"examined": true,
					"supports": true,
					"evidence_kind": "operational",
					"note": "MFA enforced for all remote and admin groups",
				},
			],
			"rationale": "Configuration export shows MFA enforced",
			"sources": [
				{
					"id": "kb-cand-02",
					"kind": "kb_evidence_candidate",
				},
			],
		},
		{
			"control_id": "BCD-11",
			"evidence_status": "partially_evidenced",
			"items": [
				{
					"candidate_id": "kb-cand-03",
					"examined": true,
					"supports": true,
					"evidence_kind": "operational",
					"note": "Daily jobs succeed; no restore test recorded",
				},
			],
			"rationale": "Backups run; integrity verification not evidenced",
			"sources": [
				{
					"id": "kb-cand-03",
					"kind": "kb_evidence_candidate",
				},
			],
		},
		{
			"control_id": "MON-01",
			"evidence_status": "not_evidenced",
			"items": [
				{
					"candidate_id": "kb-cand-04",
					"examined": true,
					"supports": false,
					"evidence_kind": "design",
					"note": "Runbook is a draft; no SIEM coverage shown",
				},
			],
			"rationale": "No evidence that monitoring operates",
			"sources": [
				{
					"id": "kb-cand-04",
					"kind": "kb_evidence_candidate",
				},
			],
		},
	],
}

# gaps is the findings.
gaps := {
	"assessment_id": "asm-2026-isms",
	"findings": [
		{
			"finding_id": "F-01",
			"control_id": "GOV-01",
			"status": "implemented",
			"rationale": "Approved policy establishes the governance program",
			"severity": "low",
			"sources": [
				{
					"id": "evidence-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"finding_id": "F-02",
			"control_id": "IAC-06",
			"status": "implemented",
			"rationale": "MFA enforced for remote and privileged access",
			"severity": "low",
			"sources": [
				{
					"id": "evidence-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"finding_id": "F-03",
			"control_id": "BCD-11",
			"status": "partially_implemented",
			"rationale": "Backups run but integrity is never verified",
			"severity": "medium",
			"sources": [
				{
					"id": "evidence-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"finding_id": "F-04",
			"control_id": "MON-01",
			"status": "not_evidenced",
			"rationale": "No evidence that monitoring operates",
			"severity": "high",
			"sources": [
				{
					"id": "evidence-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
	],
}

# maturity is the maturity scores: IAC-06 and BCD-11 high with operational evidence.
maturity := {
	"assessment_id": "asm-2026-isms",
	"scale": "SCF_CMM",
	"scores": [
		{
			"control_id": "GOV-01",
			"score": 2,
			"rationale": "Defined by policy; operation not yet measured",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
			],
		},
		{
			"control_id": "IAC-06",
			"score": 4,
			"rationale": "Enforced and monitored centrally",
			"operational_evidence": [
				"kb-cand-02",
			],
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
				{
					"id": "evidence-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"control_id": "BCD-11",
			"score": 3,
			"rationale": "Standardised backup jobs; verification missing",
			"operational_evidence": [
				"kb-cand-03",
			],
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
				{
					"id": "evidence-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
		{
			"control_id": "MON-01",
			"score": 0,
			"rationale": "No evidence of monitoring",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
			],
		},
	],
}

# poam is the POA&M for BCD-11 and MON-01.
poam := {
	"assessment_id": "asm-2026-isms",
	"items": [
		{
			"item_id": "P-01",
			"finding_id": "F-03",
			"control_id": "BCD-11",
			"weakness": "Backup integrity is never verified",
			"action": "Introduce quarterly restore tests with documented results",
			"milestones": [
				{
					"description": "First restore test",
					"due": "2027-01-31T00:00:00Z",
				},
				{
					"description": "Quarterly schedule approved",
					"due": "2027-02-28T00:00:00Z",
				},
			],
			"priority": "medium",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
			],
		},
		{
			"item_id": "P-02",
			"finding_id": "F-04",
			"control_id": "MON-01",
			"weakness": "No evidence that monitoring operates",
			"action": "Onboard critical systems to the SIEM and approve the runbook",
			"milestones": [
				{
					"description": "Runbook approved",
					"due": "2027-01-15T00:00:00Z",
				},
				{
					"description": "Critical systems onboarded",
					"due": "2027-03-31T00:00:00Z",
				},
			],
			"priority": "high",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
				{
					"id": "maturity-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
	],
}

# report is the report: the approved findings unchanged.
report := {
	"assessment_id": "asm-2026-isms",
	"executive_summary": "Acme Health governs its ISMS and enforces MFA; backup verification and security monitoring need remediation before certification.",
	"findings": [
		{
			"finding_id": "F-01",
			"control_id": "GOV-01",
			"status": "implemented",
			"rationale": "Approved policy establishes the governance program",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
			],
		},
		{
			"finding_id": "F-02",
			"control_id": "IAC-06",
			"status": "implemented",
			"rationale": "MFA enforced for remote and privileged access",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
			],
		},
		{
			"finding_id": "F-03",
			"control_id": "BCD-11",
			"status": "partially_implemented",
			"rationale": "Backups run but integrity is never verified",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
			],
		},
		{
			"finding_id": "F-04",
			"control_id": "MON-01",
			"status": "not_evidenced",
			"rationale": "No evidence that monitoring operates",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
			],
		},
	],
	"maturity_summary": [
		{
			"control_id": "GOV-01",
			"score": 2,
		},
		{
			"control_id": "IAC-06",
			"score": 4,
		},
		{
			"control_id": "BCD-11",
			"score": 3,
		},
		{
			"control_id": "MON-01",
			"score": 0,
		},
	],
	"poam_summary": [
		{
			"item_id": "P-01",
			"finding_id": "F-03",
			"priority": "medium",
		},
		{
			"item_id": "P-02",
			"finding_id": "F-04",
			"priority": "high",
		},
	],
	"conclusions": [
		{
			"statement": "Two of four controls in scope are implemented; monitoring is the highest-priority gap.",
			"sources": [
				{
					"id": "gap-analysis@v1",
					"kind": "approved_artifact",
				},
				{
					"id": "maturity-assessment@v1",
					"kind": "draft_artifact",
				},
			],
		},
	],
}

# brief is the start's work order.
brief := {
	"organization_name": "Acme Health",
	"objective": "Assess the ISMS of Acme Health against SCF controls mapped to ISO/IEC 27001:2022 and LGPD before the 2027 certification audit",
	"scf_version": "2025.2",
	"frameworks": [
		"ISO-27001-2022",
		"LGPD",
	],
	"control_domains": [
		"GOV",
		"IAC",
		"BCD",
		"MON",
	],
	"deadline": "2026-12-18T18:00:00Z",
}

scope := {
	"tenant_id": tenant, "organization_id": org, "assessment_id": asm, "trace_id": trace,
	"organization_name": brief.organization_name, "objective": brief.objective, "scf_version": brief.scf_version,
	"frameworks": brief.frameworks, "control_domains": brief.control_domains, "requested_by": "orchestrator",
}

contents := {
	"KNOWLEDGE_PACKAGE": knowledge,
	"CONTROL_ANALYSIS": controls,
	"FRAMEWORK_MAPPING": mapping,
	"STATEMENT_OF_APPLICABILITY": soa,
	"EVIDENCE_ASSESSMENT": evidence,
	"GAP_ANALYSIS": gaps,
	"MATURITY_ASSESSMENT": maturity,
	"POAM": poam,
	"ASSESSMENT_REPORT": report,
}

# patch_item replaces fields of the item of content[field] whose key equals value.
patch_item(content, field, key, value, patch) := json.patch(content, [{"op": "replace", "path": sprintf("/%s/%d", [field, i]), "value": object.union(x, patch)} |
	some i, x in content[field]
	x[key] == value
])

# drop_item_field removes one field of the item of content[field] whose key equals value.
drop_item_field(content, field, key, value, name) := json.patch(content, [{"op": "remove", "path": sprintf("/%s/%d/%s", [field, i, name])} |
	some i, x in content[field]
	x[key] == value
])

flag(type, control, earlier, sources) := object.union(
	{"conflict_type": type, "control_id": control, "field": "status", "justification": "The earlier output examined an outdated document", "sources": sources, "severity": "high"},
	{"conflicts_with": w | w := earlier; is_object(w)},
)

draft_source := {"id": "knowledge-package@v1", "kind": "draft_artifact"}

# --- state ---------------------------------------------------------------------------

meta(type, n, route) := {
	"handoff_id": sprintf("h-%s-%d", [lower(type), n]),
	"request_kind": "handoff",
	"route": route,
	"resume_status": route,
	"trace_id": trace,
}

version(type, n, status) := version_with(type, n, status, contents[type], {})

version_with(type, n, status, content, m) := {
	"ref": ref(type, n), "status": status, "producer": object.get(producers, type, "orchestrator"), "based_on": [],
	"assumptions": [], "limitations": [limitation], "content": content,
	"meta": object.union(meta(type, n, "NONE"), m), "recorded_at": now,
}

history(versions) := {
	"id": ids[versions[0].ref.type],
	"latest": max({v.ref.version | some v in versions}),
	"approved": max({0} | {v.ref.version | some v in versions; v.status in {"approved", "final"}}),
	"versions": {format_int(v.ref.version, 10): v | some v in versions},
}

scope_version := {
	"ref": ref("ASSESSMENT_SCOPE", 1), "status": "approved", "producer": "orchestrator", "based_on": [],
	"assumptions": [], "limitations": [], "content": scope, "meta": {"trace_id": trace, "request_kind": "start"}, "recorded_at": now,
}

state(status, artifacts) := {
	"workflow_id": "wf-asm", "tenant_id": tenant, "organization_id": org, "pack": "assessment",
	"subject_id": asm, "status": status, "terminal": false, "state_version": 7,
	"created_at": now, "updated_at": now,
	"artifacts": object.union({"ASSESSMENT_SCOPE": history([scope_version])}, artifacts),
	"counters": {}, "edges": {}, "input_hashes": {}, "recent_edges": [], "stage_handoffs": {},
	"conflicts": {}, "open_conflicts": 0, "approvals": {}, "defects": {}, "effects": {}, "tasks": {},
}

# with_state and with_req replace top-level fields (object.union alone would merge nested
# objects).
with_state(st, patch) := object.union(object.remove(st, object.keys(patch)), patch)

# add puts versions of a type into a state's artifacts.
add(st, versions) := object.union(st, {"artifacts": object.union(st.artifacts, {versions[0].ref.type: history(versions)})})

set_status(st, status) := object.union(st, {"status": status})

st_knowledge := state("KNOWLEDGE", {})

st_controls := add(set_status(st_knowledge, "CONTROLS"), [version("KNOWLEDGE_PACKAGE", 1, "draft")])

st_mapping := add(set_status(st_controls, "MAPPING"), [version("CONTROL_ANALYSIS", 1, "draft")])

st_soa := add(set_status(st_mapping, "SOA"), [version("FRAMEWORK_MAPPING", 1, "draft")])

st_soa_approval := add(set_status(st_soa, "SOA_APPROVAL"), [version_with("STATEMENT_OF_APPLICABILITY", 1, "under_review", soa, {"route": "SOA_APPROVAL"})])

st_evidence := add(set_status(st_soa, "EVIDENCE"), [version("STATEMENT_OF_APPLICABILITY", 1, "approved")])

st_gaps := add(set_status(st_evidence, "GAPS"), [version("EVIDENCE_ASSESSMENT", 1, "draft")])

st_findings_approval := add(set_status(st_gaps, "FINDINGS_APPROVAL"), [version_with("GAP_ANALYSIS", 1, "under_review", gaps, {"route": "FINDINGS_APPROVAL"})])

st_maturity := add(set_status(st_gaps, "MATURITY"), [version("GAP_ANALYSIS", 1, "approved")])

st_poam := add(set_status(st_maturity, "POAM_PLANNING"), [version("MATURITY_ASSESSMENT", 1, "draft")])

st_reporting := add(set_status(st_poam, "REPORTING"), [version("POAM", 1, "draft")])

st_report_approval := add(set_status(st_reporting, "REPORT_APPROVAL"), [version_with("ASSESSMENT_REPORT", 1, "under_review", report, {"route": "REPORT_APPROVAL"})])

# st_validation: evidence v1 waits at the validation step and resumes at GAPS.
st_validation := add(set_status(st_evidence, "VALIDATION"), [version_with("EVIDENCE_ASSESSMENT", 1, "under_review", evidence, {"route": "VALIDATION", "resume_status": "GAPS"})])

conflict_id := "h-gap-1-c1"

conflict_content := {
	"tenant_id": tenant, "organization_id": org, "assessment_id": asm, "trace_id": trace,
	"conflict_id": conflict_id, "source_handoff_id": "h-gap-1",
	"conflicting_artifact_ids": ["evidence-assessment@v1", "gap-analysis@v1"],
	"conflicting_artifacts": [ref("EVIDENCE_ASSESSMENT", 1), ref("GAP_ANALYSIS", 1)],
	"conflict_type": "divergent_status", "severity": "high", "requires_human_review": true,
	"control_id": "MON-01", "raised_by": "gap_analyst", "output": ref("GAP_ANALYSIS", 1),
	"description": "The earlier output examined an outdated document",
	"resume_status": "FINDINGS_APPROVAL", "redo_status": "GAPS",
}

conflict_record := version_with("CONFLICT_EVENT", 1, "approved", conflict_content, {})

# st_conflict: the Gap Analyst's flagged findings wait for a person.
st_conflict := with_state(
	add(
		add(set_status(st_gaps, "CONFLICT_REVIEW"), [version_with("GAP_ANALYSIS", 1, "under_review", gaps, {"route": "CONFLICT_REVIEW"})]),
		[object.union(conflict_record, {"producer": "orchestrator"})],
	),
	{
		"conflicts": {conflict_id: {
			"id": conflict_id, "conflict_type": "divergent_status", "status": "open",
			"artifacts": [ref("EVIDENCE_ASSESSMENT", 1), ref("GAP_ANALYSIS", 1)],
			"description": "The earlier output examined an outdated document", "raised_by": "gap_analyst",
		}},
		"open_conflicts": 1,
	},
)

escalation_content := {
	"tenant_id": tenant, "organization_id": org, "assessment_id": asm, "trace_id": trace,
	"reason_codes": ["HUMAN_REVIEW_REQUIRED", "RETRY_EXHAUSTED"], "summary": "failure of task \"evidence_analysis\" in EVIDENCE reached a limit",
	"from_status": "EVIDENCE", "agent": "evidence_analyst", "task": "evidence_analysis", "handoff_id": "req-failure",
}

# st_human_review: the Evidence Analyst's retries are exhausted.
st_human_review := with_state(
	add(set_status(st_evidence, "HUMAN_REVIEW"), [object.union(version_with("ESCALATION_RECORD", 1, "approved", escalation_content, {}), {"producer": "orchestrator"})]),
	{"counters": {"retry/evidence_analysis": 2}},
)

# rework_order is REWORK_ORDER v1 sending artifact type back to agent in status.
rework_order(agent_id, status, type) := object.union(
	version_with(
		"REWORK_ORDER", 1, "approved", {
			"tenant_id": tenant, "organization_id": org, "assessment_id": asm, "trace_id": trace,
			"kind": "revision_request", "requested_by": "ana.souza", "reason": "Explain the missing restore test",
			"from_status": "FINDINGS_APPROVAL", "to_agent": agent_id, "to_status": status, "artifact_type": type,
		},
		{},
	),
	{"producer": "orchestrator"},
)

# --- requests ------------------------------------------------------------------------

envelope(kind, actor) := {
	"request_id": sprintf("req-%s", [kind]), "kind": kind, "tenant_id": tenant, "organization_id": org,
	"assessment_id": asm, "workflow_id": "wf-asm", "trace_id": trace, "created_at": "2026-11-29T09:58:00Z", "actor": actor,
}

system := {"type": "system", "id": "orchestrator"}

reviewer := {"type": "human", "id": "ana.souza", "roles": ["assessment_reviewer"]}

lead := {"type": "human", "id": "carlos.lima", "roles": ["assessment_lead"]}

agent(id) := {"type": "agent", "id": id}

output(type, n, content) := {"id": ids[type], "type": type, "version": n, "content": content} if n == 1

else := {"id": ids[type], "type": type, "version": n, "content": content, "supersedes": n - 1, "justification": "Corrects the previous version"}

# context_for names every input with its recorded status.
context_for(st, inputs) := {
	"artifacts": [{"ref": r, "status": st.artifacts[r.type].versions[format_int(r.version, 10)].status} | some r in inputs],
	"workflow_state": st.status,
}

# handoff is a valid handoff of the current step's output, with its context.
handoff(st, source, target, inputs, type, n, content) := object.union(envelope("handoff", agent(source)), {
	"handoff_id": sprintf("h-%s-%s-%d", [source, lower(type), n]),
	"source_agent": source, "target_agent": target, "task_type": tasks[source],
	"handoff_type": "sequential", "agent_run_id": sprintf("run-%s", [source]),
	"input_artifacts": inputs, "output": output(type, n, content),
	"output_summary": sprintf("%s v%d", [type, n]),
	"assumptions": ["Documents in the KB are the versions in force"], "limitations": [limitation],
	"confidence_score": 0.8, "requires_validation": false, "tools_used": [],
	"context": context_for(st, inputs),
})

with_req(r, patch) := object.union(object.remove(r, object.keys(patch)), patch)

without(r, keys) := object.remove(r, keys)

start := object.union(envelope("start", system), {"pack": "assessment", "subject_id": asm, "brief": brief})

knowledge_handoff := handoff(st_knowledge, "knowledge_steward", "scf_control_analyst", [ref("ASSESSMENT_SCOPE", 1)], "KNOWLEDGE_PACKAGE", 1, knowledge)

controls_handoff(content) := handoff(st_controls, "scf_control_analyst", "framework_mapper", [ref("KNOWLEDGE_PACKAGE", 1)], "CONTROL_ANALYSIS", 1, content)

mapping_handoff(content) := handoff(st_mapping, "framework_mapper", "soa_architect", [ref("CONTROL_ANALYSIS", 1)], "FRAMEWORK_MAPPING", 1, content)

soa_handoff(content) := handoff(st_soa, "soa_architect", "evidence_analyst", [ref("CONTROL_ANALYSIS", 1), ref("FRAMEWORK_MAPPING", 1)], "STATEMENT_OF_APPLICABILITY", 1, content)

evidence_handoff(content) := handoff(st_evidence, "evidence_analyst", "gap_analyst", [ref("KNOWLEDGE_PACKAGE", 1), ref("STATEMENT_OF_APPLICABILITY", 1)], "EVIDENCE_ASSESSMENT", 1, content)

gap_handoff(content) := handoff(st_gaps, "gap_analyst", "maturity_assessor", [ref("STATEMENT_OF_APPLICABILITY", 1), ref("EVIDENCE_ASSESSMENT", 1)], "GAP_ANALYSIS", 1, content)

maturity_handoff(content) := handoff(st_maturity, "maturity_assessor", "poam_planner", [ref("GAP_ANALYSIS", 1), ref("EVIDENCE_ASSESSMENT", 1)], "MATURITY_ASSESSMENT", 1, content)

poam_handoff(content) := handoff(st_poam, "poam_planner", "report_writer", [ref("GAP_ANALYSIS", 1), ref("MATURITY_ASSESSMENT", 1)], "POAM", 1, content)

report_handoff(content) := handoff(st_reporting, "report_writer", "assessment_lead", [ref("GAP_ANALYSIS", 1), ref("MATURITY_ASSESSMENT", 1), ref("POAM", 1)], "ASSESSMENT_REPORT", 1, content)

# flagged is a handoff whose output flags the given conflicts and asks for validation.
flagged(r, flags) := with_req(r, {"requires_validation": true, "output": object.union(r.output, {"content": object.union(r.output.content, {"conflict_flags": flags})})})

approval(actor, decision, stage, refs) := object.union(envelope("approval", actor), {
	"decision": decision, "stage": stage, "artifacts": refs, "revise": [], "comment": "Reviewed",
})

resolution(actor, id, chosen) := object.union(envelope("resolution", actor), {"conflict_id": id, "rationale": "Checked both documents"}) if {
	chosen == null
} else := object.union(envelope("resolution", actor), {"conflict_id": id, "chosen": chosen, "rationale": "Checked both documents"})

failure(agent_id, class, retry_type) := object.union(envelope("failure", system), {
	"task": tasks[agent_id], "agent": agent_id, "class": class, "retry_type": retry_type, "retry_reason": "The output could not be used",
})

cancel(actor) := object.union(envelope("cancel", actor), {"reason": "Audit postponed"})

# --- input and decision --------------------------------------------------------------

input_of(request, st) := {
	"pack": "assessment",
	"request": request,
	"validation": {"errors": []},
	"state": st,
	"derived": derived(request),
	"now": now,
}

derived(request) := {
	"output_hash": hash(json.marshal(request.output.content)),
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": count(json.marshal(object.get(request, "context", {}))),
	"payload_bytes": 4096,
} if {
	request.output
} else := {
	"output_hash": "",
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": 0,
	"payload_bytes": 1024,
}

decide(request, st) := d if {
	d := assessment.decision with input as input_of(request, st)
}

# decide_invalid evaluates a request the engine found invalid.
decide_invalid(request, st, errors) := d if {
	d := assessment.decision with input as object.union(input_of(request, st), {"validation": {"errors": errors}})
}

decide_with(request, st, contract) := d if {
	d := assessment.decision with input as input_of(request, st) with data.handoff.assessment.contract as contract
}

codes(d) := {r.code | some r in d.reasons}

next_agents(d) := {n.agent | some n in d.next}

event_types(d) := [e.type | some e in d.events]

recorded(d) := {sprintf("%s v%d %s", [e.ref.type, e.ref.version, e.status]) | some e in d.events; e.type == "artifact_recorded"}

status_events(d) := {sprintf("%s v%d %s", [e.artifact, e.version, e.status]) | some e in d.events; e.type == "artifact_status"}

counters(d) := {e.name: object.get(e, "value", object.get(e, "delta", null)) | some e in d.events; e.type == "counter"}

record_content(d, type) := c if {
	some e in d.events
	e.type == "artifact_recorded"
	e.ref.type == type
	c := e.content
}

contract := data.handoff.assessment.contract

# config is the pack's own tables, exported from contracts/assessment/config.cue.
config := data.handoff.assessment.config

# decide_without_config evaluates the decision with one configuration table removed.
decide_without_config(request, st, name) := d if {
	d := assessment.decision with input as input_of(request, st) with data.handoff.assessment.config as json.remove(config, [name])
}
