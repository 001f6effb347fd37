package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Consistency between agents (seed sections 7, 8 and 14): the trust hierarchy (SCF data >
# approved artifacts > draft artifacts > KB evidence candidates > earlier agent outputs),
# no silent contradiction of an earlier output, evidence candidates never conclusions,
# not_evidenced never reclassified without rationale and validation, official mappings
# never inferred, the KB never normative, approved findings never altered, and
# enrichment never changing a decision.

_sources_of(item) := [s | some s in object.get(item, "sources", []); is_object(s)]

_kinds(item) := {s.kind | some s in _sources_of(item)}

# _trust ranks the source kinds of the trust hierarchy, most trusted highest.
# The table is config.trust in contracts/assessment/config.cue.
_trust := object.get(lib.pack_config, "trust", {})

_items(field) := [x | some x in object.get(lib.content, field, []); is_object(x)]

_content_path(rest) := sprintf("output.content.%s", [rest])

# --- normative content: SCF data only ------------------------------------------------------

# _normative are the output lists that state what SCF requires or maps: control
# requirements and framework mappings.
# The table is config.normative in contracts/assessment/config.cue.
_normative := object.get(lib.pack_config, "normative", {})

# METADATA
# title: KB used as normative
# description: >-
#   A control requirement or a framework mapping cites a KB evidence candidate or an
#   earlier agent output: the KB is never normative; what SCF requires or maps comes from
#   SCF data.
# custom:
#   code: KB_USED_AS_NORMATIVE
#   outcome: block
reasons contains r if {
	_judged
	field := _normative[lib.output.type]
	some i, item in _items(field)
	some s in _sources_of(item)
	s.kind in {"kb_evidence_candidate", "agent_output"}
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s[%d] (%s) cites %s %q: the KB is never normative", [field, i, object.get(item, "control_id", ""), s.kind, s.id]), _content_path(sprintf("%s[%d].sources", [field, i])), "GR-KB", "block")
}

# METADATA
# title: Control requirement without SCF data
# description: >-
#   A control requirement of the CONTROL_ANALYSIS names sources but none of them is SCF
#   data. (Core refuses a conclusion without any source.)
# custom:
#   code: MISSING_SOURCES
#   outcome: block
reasons contains r if {
	_judged
	lib.output.type == "CONTROL_ANALYSIS"
	some i, c in _items("controls")
	count(_sources_of(c)) > 0
	not "scf_data" in _kinds(c)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("controls[%d] (%s) states a requirement without an SCF data source", [i, object.get(c, "control_id", "")]), _content_path(sprintf("controls[%d].sources", [i])), "GR-SOURCES", "block")
}

# METADATA
# title: Official mapping inferred
# description: >-
#   An official SCF mapping is never inferred: the Framework Mapper reports a mapping as
#   official only with an SCF data source and the framework requirement it maps to, and
#   the SoA never treats a mapping the Framework Mapper found absent as official (unless
#   it flags the divergence as a conflict, which a person then resolves).
# custom:
#   code: OFFICIAL_MAPPING_INFERRED
#   outcome: block
reasons contains r if {
	_judged
	lib.output.type == "FRAMEWORK_MAPPING"
	some i, m in _items("mappings")
	m.mapping_status == "official"
	some problem in _official_problems(m)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("mappings[%d] (%s -> %s) is official %s", [i, m.control_id, m.framework, problem]), _content_path(sprintf("mappings[%d]", [i])), "GR-MAPPING", "block")
}

_official_problems(m) := {p |
	not "scf_data" in _kinds(m)
	p := "without an SCF data source"
} | {p |
	not lib.non_blank(object.get(m, "requirement_ref", ""))
	p := "without a requirement_ref"
}

# METADATA
# title: Absent mapping treated as official
# description: >-
#   The SoA treats as official a mapping the FRAMEWORK_MAPPING it was made from reports
#   as absent (or does not report), without flagging the divergence as a conflict.
# custom:
#   code: OFFICIAL_MAPPING_INFERRED
#   outcome: block
reasons contains r if {
	some d in _divergences
	d.code == "OFFICIAL_MAPPING_INFERRED"
	not _flagged(d)
	r := lib.gate_reason(rego.metadata.rule(), d.message, d.path, "GR-MAPPING", "block")
}

# --- evidence ----------------------------------------------------------------------------

_evidenced(result) if {
	some item in result.items
	item.examined == true
	item.supports == true
}

# METADATA
# title: Evidence candidate taken as a conclusion
# description: >-
#   A control is evidenced (or partially) only from an examined evidence item that
#   supports it: an unexamined KB evidence candidate is never a conclusion.
# custom:
#   code: EVIDENCE_CANDIDATE_AS_CONCLUSION
#   outcome: block
reasons contains r if {
	_judged
	lib.output.type == "EVIDENCE_ASSESSMENT"
	some i, res in _items("assessments")
	res.evidence_status in {"evidenced", "partially_evidenced"}
	not _evidenced(res)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("assessments[%d] (%s) is %s without an examined, supporting evidence item", [i, res.control_id, res.evidence_status]), _content_path(sprintf("assessments[%d]", [i])), "R7-EVIDENCE", "block")
}

# _conclusions are the lists of findings, scores, POA&M items and report conclusions.
# The table is config.conclusions in contracts/assessment/config.cue.
_conclusions := object.get(lib.pack_config, "conclusions", {})

# METADATA
# title: Conclusion resting on an evidence candidate
# description: >-
#   A finding, maturity score, POA&M item or report conclusion cites a KB evidence
#   candidate: conclusions rest on the evidence assessment, never on a candidate.
# custom:
#   code: EVIDENCE_CANDIDATE_AS_CONCLUSION
#   outcome: block
reasons contains r if {
	_judged
	some field in object.get(_conclusions, lib.output.type, [])
	some i, item in _items(field)
	some s in _sources_of(item)
	s.kind == "kb_evidence_candidate"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s[%d] rests on KB evidence candidate %q", [field, i, s.id]), _content_path(sprintf("%s[%d].sources", [field, i])), "R7-EVIDENCE", "block")
}

# _evidence_result is the result the EVIDENCE_ASSESSMENT input gives a control.
_evidence_result(control) := res if {
	some res in _content_of(_input_version("EVIDENCE_ASSESSMENT")).assessments
	res.control_id == control
}

# METADATA
# title: not_evidenced reclassified
# description: >-
#   The Evidence Analyst found a control not_evidenced and the findings give it another
#   status without a rationale or without requires_validation: not_evidenced never
#   becomes not_implemented (or implemented) silently.
# custom:
#   code: NOT_EVIDENCED_RECLASSIFIED
#   outcome: block
reasons contains r if {
	_judged
	lib.output.type == "GAP_ANALYSIS"
	some i, f in _items("findings")
	f.status != "not_evidenced"
	_evidence_result(f.control_id).evidence_status == "not_evidenced"
	some missing in _reclassification_missing(f)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("findings[%d] makes not_evidenced control %s %s without %s", [i, f.control_id, f.status, missing]), _content_path(sprintf("findings[%d]", [i])), "R7-NOT-EVIDENCED", "block")
}

_reclassification_missing(f) := {m |
	not lib.non_blank(object.get(f, "rationale", ""))
	m := "a rationale"
} | {m |
	object.get(lib.request, "requires_validation", false) != true
	m := "requires_validation"
}

# --- maturity ------------------------------------------------------------------------------

# _high_score is the lowest maturity score that needs operational evidence (SCF CMM 3,
# "well defined").
_high_score := 3

_operational(control, id) if {
	res := _evidence_result(control)
	some item in res.items
	item.candidate_id == id
	item.examined == true
	item.supports == true
	item.evidence_kind == "operational"
}

# METADATA
# title: High maturity score without operational evidence
# description: >-
#   A maturity score of 3 or more names examined, supporting, operational evidence of the
#   control from the EVIDENCE_ASSESSMENT it was made from: a high score without
#   operational evidence is inflated confidence.
# custom:
#   code: UNSUPPORTED_MATURITY_SCORE
#   outcome: block
reasons contains r if {
	_judged
	lib.output.type == "MATURITY_ASSESSMENT"
	some i, s in _items("scores")
	s.score >= _high_score
	some problem in _score_problems(s)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("scores[%d] gives %s maturity %d %s", [i, s.control_id, s.score, problem]), _content_path(sprintf("scores[%d]", [i])), "R8-MATURITY", "block")
}

_score_problems(s) := {p |
	count(object.get(s, "operational_evidence", [])) == 0
	p := "without operational evidence"
} | {p |
	some id in object.get(s, "operational_evidence", [])
	_evidence_item(s.control_id, id)
	not _operational(s.control_id, id)
	p := sprintf("citing %q, which is not examined, supporting, operational evidence of the control", [id])
}

# --- approved findings --------------------------------------------------------------------

# _by_finding_id maps the finding ids that name one finding to it (a duplicated id is
# REFERENCE_MISMATCH and names none).
_by_finding_id(findings) := {id: f |
	some f in findings
	id := f.finding_id
	count([g | some g in findings; g.finding_id == id]) == 1
}

_approved_findings := _by_finding_id([f | some f in _content_of(core.last_approved("GAP_ANALYSIS")).findings; is_object(f)])

_report_findings := _by_finding_id(_items("findings"))

_altered contains [sprintf("findings (%s)", [id]), sprintf("the report omits approved finding %s (%s)", [id, f.control_id])] if {
	some id, f in _approved_findings
	not _report_findings[id]
}

_altered contains [sprintf("findings (%s)", [id]), sprintf("the report adds finding %s, which the approved GAP_ANALYSIS does not have", [id])] if {
	some id, _ in _report_findings
	not _approved_findings[id]
}

_altered contains [sprintf("findings (%s).%s", [id, field]), sprintf("finding %s: %s is %v in the report but %v as approved", [id, field, object.get(got, field, null), object.get(want, field, null)])] if {
	some id, want in _approved_findings
	got := _report_findings[id]
	some field in ["control_id", "status", "rationale"]
	object.get(want, field, null) != null
	object.get(got, field, null) != object.get(want, field, null)
}

# METADATA
# title: Approved finding altered
# description: >-
#   The report states the approved findings unchanged: every approved finding, with its
#   control, status and rationale, and no other. The Report Writer never alters an
#   approved finding, flagged or not.
# custom:
#   code: APPROVED_FINDING_ALTERED
#   outcome: block
reasons contains r if {
	_judged
	lib.output.type == "ASSESSMENT_REPORT"
	core.last_approved("GAP_ANALYSIS")
	some [where, msg] in _altered
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s (GAP_ANALYSIS v%v is approved)", [msg, core.last_approved_number("GAP_ANALYSIS")]), _content_path(where), "GR-APPROVED-FINDING", "block")
}

# --- divergences from earlier outputs -------------------------------------------------------

_finding_in(v, control) := f if {
	some f in _content_of(v).findings
	f.control_id == control
}

_soa_entry(control) := e if {
	some e in _content_of(_input_version("STATEMENT_OF_APPLICABILITY")).entries
	e.control_id == control
}

_mapper_official(control, framework) if {
	some m in _content_of(_input_version("FRAMEWORK_MAPPING")).mappings
	m.control_id == control
	m.framework == framework
	m.mapping_status == "official"
}

# _divergences are the inconsistencies of the output with the earlier outputs it was
# made from (seed section 8 examples), each with the conflict type a flag must declare,
# the earlier artifact type, and the code that refuses it unflagged.
_divergences contains {
	"type": "official_mapping_absent_treated_as_present", "control": e.control_id, "with": "FRAMEWORK_MAPPING",
	"code": "OFFICIAL_MAPPING_INFERRED",
	"message": sprintf("entries[%d] treats %s -> %s as official, but the FRAMEWORK_MAPPING reports no official mapping", [i, e.control_id, m.framework]),
	"path": _content_path(sprintf("entries[%d].mappings[%d]", [i, j])),
} if {
	_judged
	lib.output.type == "STATEMENT_OF_APPLICABILITY"
	some i, e in _items("entries")
	some j, m in e.mappings
	m.mapping_status == "official"
	not _mapper_official(e.control_id, m.framework)
}

_divergences contains {
	"type": "divergent_status", "control": f.control_id, "with": "EVIDENCE_ASSESSMENT",
	"code": "INCONSISTENCY_NOT_FLAGGED",
	"message": sprintf("findings[%d] marks %s %s, but the Evidence Analyst found it not_evidenced", [i, f.control_id, f.status]),
	"path": _content_path(sprintf("findings[%d].status", [i])),
} if {
	_judged
	lib.output.type == "GAP_ANALYSIS"
	some i, f in _items("findings")
	f.status in {"implemented", "partially_implemented"}
	_evidence_result(f.control_id).evidence_status == "not_evidenced"
}

_divergences contains {
	"type": "contradicts_approved_artifact", "control": f.control_id, "with": "STATEMENT_OF_APPLICABILITY",
	"code": "INCONSISTENCY_NOT_FLAGGED",
	"message": sprintf("findings[%d] marks %s %s, but the approved SoA says applicable: %v", [i, f.control_id, f.status, e.applicable]),
	"path": _content_path(sprintf("findings[%d].status", [i])),
} if {
	_judged
	lib.output.type == "GAP_ANALYSIS"
	some i, f in _items("findings")
	e := _soa_entry(f.control_id)
	f.status == "not_applicable" == e.applicable
}

_divergences contains {
	"type": "contradicts_approved_artifact", "control": s.control_id, "with": "GAP_ANALYSIS",
	"code": "INCONSISTENCY_NOT_FLAGGED",
	"message": sprintf("scores[%d] gives %s maturity %d, but the approved finding says %s", [i, s.control_id, s.score, f.status]),
	"path": _content_path(sprintf("scores[%d].score", [i])),
} if {
	_judged
	lib.output.type == "MATURITY_ASSESSMENT"
	some i, s in _items("scores")
	f := _finding_in(_input_version("GAP_ANALYSIS"), s.control_id)
	f.status in {"not_implemented", "not_evidenced", "not_applicable"}
	s.score > 1
}

_divergences contains {
	"type": "contradictory_evidence", "control": res.control_id, "with": "",
	"code": "INCONSISTENCY_NOT_FLAGGED",
	"message": sprintf("assessments[%d] (%s) holds examined evidence that supports and evidence that contradicts the control", [i, res.control_id]),
	"path": _content_path(sprintf("assessments[%d].items", [i])),
} if {
	_judged
	lib.output.type == "EVIDENCE_ASSESSMENT"
	some i, res in _items("assessments")
	some a in res.items
	some b in res.items
	a.examined == true
	b.examined == true
	a.supports == true
	b.supports == false
}

_flags := [f | some f in object.get(lib.content, "conflict_flags", []); is_object(f)]

# _flagged holds when a conflict flag of the output declares the divergence.
_flagged(d) if {
	some f in _flags
	f.conflict_type == d.type
	object.get(f, "control_id", "") == d.control
	_flag_names(f, d.with)
}

_flag_names(_, "")

_flag_names(f, type) if f.conflicts_with.type == type

# METADATA
# title: Inconsistency not flagged
# description: >-
#   The output contradicts an earlier output (the Gap Analyst marks implemented what the
#   Evidence Analyst found not_evidenced, a finding departs from the approved SoA, a
#   maturity score contradicts an approved finding) or its own evidence contradicts
#   itself, and does not flag it: an earlier output is overridden only with an explicit
#   justification, sources, the conflict marked (conflict_flags) and requires_validation
#   true, and the conflict is then recorded as an event.
# custom:
#   code: INCONSISTENCY_NOT_FLAGGED
#   outcome: block
reasons contains r if {
	some d in _divergences
	d.code == "INCONSISTENCY_NOT_FLAGGED"
	not _flagged(d)
	r := lib.reason(rego.metadata.rule(), sprintf("%s; flag it as %s with a justification, sources and requires_validation", [d.message, d.type]), d.path)
}

# METADATA
# title: Conflict flagged without requires_validation
# description: >-
#   An output that flags a conflict asks for validation: inconsistencies set
#   requires_validation = true and conflict_flag = true together.
# custom:
#   code: INCONSISTENCY_NOT_FLAGGED
#   outcome: block
reasons contains r if {
	_judged
	count(_flags) > 0
	object.get(lib.request, "requires_validation", false) != true
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v flags %d conflict(s) but requires_validation is not true", [lib.output.type, lib.output.version, count(_flags)]), "requires_validation")
}

# METADATA
# title: Conflict flag invalid
# description: >-
#   A conflict flag must name the earlier version it departs from (conflicts_with), and
#   that version must be one of the handoff's inputs; only contradictory evidence within
#   the output itself names none.
# custom:
#   code: CONFLICT_FLAG_INVALID
#   outcome: block
reasons contains r if {
	_judged
	some i, f in _flags
	some problem in _flag_problems(f)
	r := lib.reason(rego.metadata.rule(), sprintf("conflict_flags[%d] (%s) %s", [i, f.conflict_type, problem]), _content_path(sprintf("conflict_flags[%d]", [i])))
}

_flag_problems(f) := {p |
	f.conflict_type != "contradictory_evidence"
	not is_object(object.get(f, "conflicts_with", null))
	p := "names no conflicts_with version"
} | {p |
	ref := f.conflicts_with
	is_object(ref)
	not _is_input(ref)
	p := sprintf("conflicts with %s v%v, which is not an input of the handoff", [ref.type, ref.version])
}

_is_input(ref) if {
	some r in lib.inputs
	r == ref
}

# _rank is the trust of a recorded version: approved (or final) artifacts above drafts.
_rank(v) := 4 if v.status in core.approved_statuses

else := 3

_max_trust(f) := max({n | some s in _sources_of(f); n := object.get(_trust, s.kind, 0)} | {0})

# METADATA
# title: Trust hierarchy violated
# description: >-
#   A flag overrides an earlier version with sources that rank below it in the trust
#   hierarchy (SCF data > approved artifacts > drafts > KB evidence candidates > earlier
#   agent outputs): an approved artifact is contradicted only with SCF data or another
#   approved artifact, a draft with at least a draft.
# custom:
#   code: TRUST_HIERARCHY_VIOLATION
#   outcome: block
reasons contains r if {
	_judged
	some i, f in _flags
	v := core.ref_version(f.conflicts_with)
	_max_trust(f) < _rank(v)
	r := lib.reason(rego.metadata.rule(), sprintf("conflict_flags[%d] contradicts %s v%v (%s) with sources of lower trust %v", [i, v.ref.type, v.ref.version, v.status, sort(_kinds(f))]), _content_path(sprintf("conflict_flags[%d].sources", [i])))
}

# --- enrichment ----------------------------------------------------------------------------

_enrichment if {
	_judged
	_edge_kind == "enrichment"
}

# _additive are the lists an enrichment of a type may add items to, each with the field
# that identifies an item ("" for plain lists such as notes).
# The tables are config.enrichment_additions and config.enrichment_common in
# contracts/assessment/config.cue.
_additive(type) := object.union(
	{f: "" | some f in object.get(lib.pack_config, "enrichment_common", [])},
	object.get(lib.pack_config, ["enrichment_additions", type], {}),
)

# _decision_part is an output's content without the lists an enrichment may add to.
_decision_part(c, type) := object.remove(c, object.keys(_additive(type)))

_enriched := _content_of(core.latest_version(lib.output.type))

_changed_fields := {k |
	new := _decision_part(lib.content, lib.output.type)
	old := _decision_part(_enriched, lib.output.type)
	some k in (object.keys(new) | object.keys(old))
	object.get(new, k, null) != object.get(old, k, null)
}

_enrichment_problems contains sprintf("%s has an approved version (v%v): a final decision is never changed by enrichment", [lib.output.type, core.last_approved_number(lib.output.type)]) if {
	core.last_approved(lib.output.type)
}

_enrichment_problems contains sprintf("%s has no earlier version to enrich", [lib.output.type]) if {
	not core.latest_version(lib.output.type)
}

_enrichment_problems contains sprintf("%s v%v changes %v of v%v: an enrichment only adds to %v", [lib.output.type, lib.output.version, sort(_changed_fields), core.latest_number(lib.output.type), sort(object.keys(_additive(lib.output.type)))]) if {
	core.latest_version(lib.output.type)
	count(_changed_fields) > 0
}

_enrichment_problems contains sprintf("%s v%v removes or changes %s of v%v: an enrichment keeps every item and only adds", [lib.output.type, lib.output.version, _item_label(field, key, item), core.latest_number(lib.output.type)]) if {
	some field, key in _additive(lib.output.type)
	some item in object.get(_enriched, field, [])
	not item in object.get(lib.content, field, [])
}

_enrichment_problems contains sprintf("%s v%v lists %s %s %v twice: an added item never reuses the id of an item kept", [lib.output.type, lib.output.version, field, key, x[key]]) if {
	some field, key in _additive(lib.output.type)
	key != ""
	some i, x in object.get(lib.content, field, [])
	some j, y in object.get(lib.content, field, [])
	i < j
	x[key] == y[key]
}

_item_label(field, key, item) := sprintf("%s %v", [field, item[key]]) if {
	key != ""
	item[key]
} else := sprintf("an item of %s", [field])

# METADATA
# title: Enrichment changes a decision
# description: >-
#   An enrichment handoff complements the context of the agent working now without
#   changing a decision: its output is a new version of the source's artifact that only
#   adds items (notes, sources, and per type the lists of config.enrichment_additions,
#   such as a KNOWLEDGE_PACKAGE's evidence candidates), keeps every item and field of
#   the version it enriches, and never touches an approved artifact.
# custom:
#   code: ENRICHMENT_CHANGES_DECISION
#   outcome: block
reasons contains r if {
	_enrichment
	some msg in _enrichment_problems
	r := lib.reason(rego.metadata.rule(), msg, "output.content")
}
