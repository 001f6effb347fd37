package handoff.assessment

import data.handoff.core
import data.handoff.lib

# References (seed sections 7, 8, 14 and 20): everything an output says about something
# else is a fact to check, not to trust. A source's id, ref and declared kind resolve to
# what this workflow recorded (the workflow's state is its tenant's and its assessment's:
# another tenant's artifact, or a version recorded nowhere, resolves to nothing), and the
# kind never claims more trust than the record holds.

# _source_kinds says how a source of each kind resolves.
# The table is config.source_kinds in contracts/assessment/config.cue.
_source_kinds := object.get(lib.pack_config, "source_kinds", {})

_resolves(s) := object.get(_source_kinds, [s.kind, "resolves"], "none")

# _source_entries are [resolves, path, i, source] for every source the output cites, at
# any depth (conclusions, evidence candidates, conflict flags, the output as a whole): how
# its kind resolves, the walk path of its sources list and its index there. The path
# string (_source_path) is made only for a problem found.
_source_entries contains [_resolves(s), path, i, s] if {
	_judged
	walk(lib.content, [path, value])
	is_array(value)
	path[count(path) - 1] == "sources"
	some i, s in value
	is_object(s)
}

_source_path(path, i) := sprintf("output.content%s[%d]", [_rel_path(path), i])

# _artifact_sources, _kb_sources, _catalogue_sources and _unresolved_sources are
# [path, i, source] for the sources of each resolution.
_artifact_sources contains [path, i, s] if some ["artifact", path, i, s] in _source_entries

_kb_sources contains [path, i, s] if some ["kb_candidate", path, i, s] in _source_entries

_catalogue_sources contains [path, i, s] if some ["catalogue", path, i, s] in _source_entries

_unresolved_sources contains [path, i, s] if some ["none", path, i, s] in _source_entries

# _types_with_id are the artifact types whose recorded id is id, from _types_by_id (made
# once per decision, not once per source).
_types_with_id(id) := object.get(_types_by_id, [id], set())

_types_by_id := {id: {t | some t, g in lib.state.artifacts; g.id == id} |
	some h in lib.state.artifacts
	id := h.id
}

# _named_version is the recorded version an "artifact-id@vN" id names.
_named_version(id) := v if {
	is_string(id)
	[[_, aid, n]] := regex.find_all_string_submatch_n(`^(.+)@v([0-9]+)$`, id, 1)
	ts := _types_with_id(aid)
	count(ts) == 1
	some t in ts
	v := core.artifact_version(t, to_number(n))
}

_has_ref(s) if is_object(object.get(s, "ref", null))

# _source_version is the recorded version an artifact source cites: its ref, else the
# version its id names.
_source_version(s) := v if {
	_has_ref(s)
	v := core.ref_version(s.ref)
} else := v if {
	not _has_ref(s)
	v := _named_version(s.id)
}

# _names_artifact holds for an id that names an artifact or a version of the workflow.
_names_artifact(id) if _named_version(id)

_names_artifact(id) if count(_types_with_id(id)) > 0

_candidates_of(v) := {c.candidate_id | some c in object.get(_content_of(v), "evidence_candidates", []); is_object(c)}

# _kb_package is the KNOWLEDGE_PACKAGE the output is made from: its input of that type,
# else the version in force.
_kb_package := v if {
	v := _input_version("KNOWLEDGE_PACKAGE")
} else := _in_force("KNOWLEDGE_PACKAGE")

_kb_candidates := _candidates_of(_kb_package)

# _recorded_candidates are the evidence candidates of every recorded KNOWLEDGE_PACKAGE.
_recorded_candidates := {id |
	some v in core.artifact("KNOWLEDGE_PACKAGE").versions
	some id in _candidates_of(v)
}

_agent_producer(v) if _agents[v.producer]

_ref_label(ref) := sprintf("%s v%v", [ref.type, ref.version])

# _reference_problems are [code, path, message] for every reference of the output that
# does not resolve to what it says.
_reference_problems contains ["ARTIFACT_NOT_FOUND", sprintf("%s.ref", [p]), msg] if {
	some [path, i, s] in _artifact_sources
	_has_ref(s)
	not core.ref_version(s.ref)
	p := _source_path(path, i)
	msg := sprintf("%s cites %s, which this workflow has not recorded (latest recorded version: %d)", [p, _ref_label(s.ref), core.latest_number(s.ref.type)])
}

_reference_problems contains ["ARTIFACT_NOT_FOUND", sprintf("%s.ref.id", [p]), msg] if {
	some [path, i, s] in _artifact_sources
	v := core.ref_version(s.ref)
	v.ref.id != s.ref.id
	p := _source_path(path, i)
	msg := sprintf("%s cites %s with id %q, but this workflow recorded it with id %q", [p, _ref_label(s.ref), s.ref.id, v.ref.id])
}

_reference_problems contains ["HASH_MISMATCH", sprintf("%s.ref.hash", [p]), msg] if {
	some [path, i, s] in _artifact_sources
	v := core.ref_version(s.ref)
	v.ref.hash != s.ref.hash
	p := _source_path(path, i)
	msg := sprintf("%s cites %s with a hash that differs from the recorded hash %s", [p, _ref_label(s.ref), v.ref.hash])
}

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("%s.id", [p]), msg] if {
	some [path, i, s] in _artifact_sources
	_has_ref(s)
	not s.id in {s.ref.id, _version_id(s.ref)}
	p := _source_path(path, i)
	msg := sprintf("%s has id %q but its ref names %s", [p, s.id, _version_id(s.ref)])
}

_reference_problems contains ["ARTIFACT_NOT_FOUND", sprintf("%s.id", [p]), msg] if {
	some [path, i, s] in _artifact_sources
	not _has_ref(s)
	not _named_version(s.id)
	p := _source_path(path, i)
	msg := sprintf("%s (%s %q) names no version this workflow recorded: cite an artifact version as artifact-id@vN or by its ref", [p, s.kind, s.id])
}

_reference_problems contains [code, sprintf("%s.kind", [p]), msg] if {
	some [path, i, s] in _artifact_sources
	v := _source_version(s)
	not v.status in object.get(_source_kinds, [s.kind, "statuses"], [])
	code := _overstated_code(s.kind)
	p := _source_path(path, i)
	msg := sprintf("%s cites %s as %s, but it is %s", [p, _version_id(v.ref), s.kind, v.status])
}

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("%s.kind", [p]), msg] if {
	some [_, path, i, s] in _source_entries
	object.get(_source_kinds, [s.kind, "agent_only"], false) == true
	v := _source_version(s)
	not _agent_producer(v)
	p := _source_path(path, i)
	msg := sprintf("%s cites %s as %s, but %q, not an agent, produced it", [p, _version_id(v.ref), s.kind, v.producer])
}

# _overstated_code is the code of a kind the record does not hold: an approval claimed
# is an approval bypass.
_overstated_code(kind) := "APPROVAL_BYPASS" if kind == "approved_artifact"

else := "REFERENCE_MISMATCH"

_reference_problems contains ["REFERENCE_NOT_FOUND", sprintf("%s.id", [p]), msg] if {
	some [path, i, s] in _kb_sources
	lib.output.type != "KNOWLEDGE_PACKAGE"
	not s.id in _kb_candidates
	p := _source_path(path, i)
	msg := sprintf("%s names KB evidence candidate %q, which the KNOWLEDGE_PACKAGE it is made from (%s) does not list", [p, s.id, _package_label])
}

_package_label := _version_id(_kb_package.ref) if _kb_package

else := "none recorded"

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("%s.ref", [p]), msg] if {
	some [path, i, s] in _kb_sources
	_has_ref(s)
	not _candidate_ref(s)
	p := _source_path(path, i)
	msg := sprintf("%s names KB evidence candidate %q with ref %s, which is not a recorded KNOWLEDGE_PACKAGE version (with that id and hash) listing it", [p, s.id, _version_id(s.ref)])
}

_candidate_ref(s) if {
	s.ref.type == "KNOWLEDGE_PACKAGE"
	core.ref_matches(s.ref)
	s.id in _candidates_of(core.ref_version(s.ref))
}

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("%s.ref", [p]), msg] if {
	some [path, i, s] in _catalogue_sources
	_has_ref(s)
	p := _source_path(path, i)
	msg := sprintf("%s is %s, cited by its catalogue id; a ref names an artifact version of the workflow", [p, s.kind])
}

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("%s.id", [p]), msg] if {
	some [path, i, s] in (_catalogue_sources | _kb_sources)
	_names_artifact(s.id)
	p := _source_path(path, i)
	msg := sprintf("%s names %q, an artifact of this workflow, as %s", [p, s.id, s.kind])
}

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("%s.id", [p]), msg] if {
	some [path, i, s] in _catalogue_sources
	s.id in (_recorded_candidates | _candidates_of({"content": lib.content}))
	p := _source_path(path, i)
	msg := sprintf("%s names KB evidence candidate %q as %s: the KB is never normative", [p, s.id, s.kind])
}

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("%s.kind", [p]), msg] if {
	some [path, i, s] in _unresolved_sources
	p := _source_path(path, i)
	msg := sprintf("%s is of kind %q, which config.source_kinds does not resolve", [p, s.kind])
}

# --- references between outputs ----------------------------------------------------------

# _unique_keys are the keys that identify one item of an output list.
# The table is config.unique_keys in contracts/assessment/config.cue.
_unique_keys := object.get(lib.pack_config, "unique_keys", {})

_key_of(item, keys) := [object.get(item, k, null) | some k in keys]

_reference_problems contains ["REFERENCE_MISMATCH", _content_path(sprintf("%s[%d]", [field, j])), msg] if {
	_judged
	some field, keysets in object.get(_unique_keys, lib.output.type, {})
	some keys in keysets
	ks := [_key_of(x, keys) | some x in _items(field)]
	count({k | some k in ks}) < count(ks)
	some i, k in ks
	some j, l in ks
	i < j
	k == l
	msg := sprintf("%s[%d] and %s[%d] have the same %s %v: one id names one item", [field, i, field, j, concat(", ", keys), k])
}

_reference_problems contains ["REFERENCE_MISMATCH", "output.id", msg] if {
	_judged
	some t in _types_with_id(lib.output.id)
	t != lib.output.type
	msg := sprintf("output %s has id %q, the id of the workflow's %s: an artifact id names one artifact", [lib.output.type, lib.output.id, t])
}

# An evidence item examines a candidate of the KNOWLEDGE_PACKAGE the assessment is made from.
_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("assessments[%d].items[%d].candidate_id", [i, j])), msg] if {
	_judged
	lib.output.type == "EVIDENCE_ASSESSMENT"
	some i, res in _items("assessments")
	some j, item in res.items
	not item.candidate_id in _kb_candidates
	msg := sprintf("assessments[%d] (%s) examines candidate %q, which the KNOWLEDGE_PACKAGE it is made from (%s) does not list", [i, res.control_id, item.candidate_id, _package_label])
}

# A KNOWLEDGE_PACKAGE's candidate that points at a KB document the package indexes gives
# it the hash the index gives it.
_kb_documents := {d.id: {x.hash | some x in _items("kb_documents"); x.id == d.id} | some d in _items("kb_documents")}

_reference_problems contains ["REFERENCE_MISMATCH", _content_path(sprintf("evidence_candidates[%d].document.hash", [i])), msg] if {
	_judged
	lib.output.type == "KNOWLEDGE_PACKAGE"
	some i, c in _items("evidence_candidates")
	hashes := _kb_documents[c.document.id]
	not c.document.hash in hashes
	msg := sprintf("evidence_candidates[%d] (%s) points at document %q with a hash kb_documents does not give it", [i, c.candidate_id, c.document.id])
}

# The SCF release an output restates is the assessment's (ASSESSMENT_SCOPE).
_reference_problems contains ["REFERENCE_MISMATCH", "output.content.scf_version", msg] if {
	_judged
	v := lib.content.scf_version
	v != object.get(_scope, "scf_version", null)
	msg := sprintf("%s v%v uses SCF release %v, but the assessment was started with %v", [lib.output.type, lib.output.version, v, object.get(_scope, "scf_version", "none")])
}

# The controls an output assesses are the ones the step before it holds: mappings and the
# SoA for the control analysis's controls, evidence for the SoA's controls, findings for
# the SoA's controls, scores for the findings' controls.
_assessed_lists := {
	"FRAMEWORK_MAPPING": ["mappings", "CONTROL_ANALYSIS", "controls"],
	"STATEMENT_OF_APPLICABILITY": ["entries", "CONTROL_ANALYSIS", "controls"],
	"EVIDENCE_ASSESSMENT": ["assessments", "STATEMENT_OF_APPLICABILITY", "entries"],
	"GAP_ANALYSIS": ["findings", "STATEMENT_OF_APPLICABILITY", "entries"],
	"MATURITY_ASSESSMENT": ["scores", "GAP_ANALYSIS", "findings"],
}

_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("%s[%d].control_id", [field, i])), msg] if {
	_judged
	[field, type, list] := _assessed_lists[lib.output.type]
	_input_version(type)
	known := {x.control_id | some x in _input_items(type, list)}
	some i, item in _items(field)
	not item.control_id in known
	msg := sprintf("%s[%d] is about %s, which the %s it is made from does not hold (%v)", [field, i, item.control_id, type, sort(known)])
}

# A POA&M item plans the remediation of a finding of the approved GAP_ANALYSIS it is made
# from, for that finding's control.
_input_items(type, field) := [x | some x in object.get(_content_of(_input_version(type)), field, []); is_object(x)]

_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("items[%d].finding_id", [i])), msg] if {
	_judged
	lib.output.type == "POAM"
	_input_version("GAP_ANALYSIS")
	some i, item in _items("items")
	not item.finding_id in {f.finding_id | some f in _input_items("GAP_ANALYSIS", "findings")}
	msg := sprintf("items[%d] (%s) plans finding %q, which the GAP_ANALYSIS it is made from does not have", [i, item.item_id, item.finding_id])
}

_reference_problems contains ["REFERENCE_MISMATCH", _content_path(sprintf("items[%d].control_id", [i])), msg] if {
	_judged
	lib.output.type == "POAM"
	some i, item in _items("items")
	some f in _input_items("GAP_ANALYSIS", "findings")
	f.finding_id == item.finding_id
	f.control_id != item.control_id
	msg := sprintf("items[%d] (%s) plans finding %s for control %s, but the finding is about %s", [i, item.item_id, item.finding_id, item.control_id, f.control_id])
}

# The report restates the POA&M and the maturity scores it is made from.
_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("poam_summary[%d].item_id", [i])), msg] if {
	_judged
	lib.output.type == "ASSESSMENT_REPORT"
	_input_version("POAM")
	some i, s in _items("poam_summary")
	not s.item_id in {x.item_id | some x in _input_items("POAM", "items")}
	msg := sprintf("poam_summary[%d] names POA&M item %q, which the POAM it is made from does not have", [i, s.item_id])
}

_reference_problems contains ["REFERENCE_MISMATCH", _content_path(sprintf("poam_summary[%d].%s", [i, field])), msg] if {
	_judged
	lib.output.type == "ASSESSMENT_REPORT"
	some i, s in _items("poam_summary")
	some x in _input_items("POAM", "items")
	x.item_id == s.item_id
	some [field, other] in [["finding_id", "finding_id"], ["priority", "priority"]]
	s[field] != x[other]
	msg := sprintf("poam_summary[%d] gives item %s %s %v, but the POAM gives %v", [i, s.item_id, field, s[field], x[other]])
}

_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("maturity_summary[%d].control_id", [i])), msg] if {
	_judged
	lib.output.type == "ASSESSMENT_REPORT"
	_input_version("MATURITY_ASSESSMENT")
	some i, s in _items("maturity_summary")
	not s.control_id in {x.control_id | some x in _input_items("MATURITY_ASSESSMENT", "scores")}
	msg := sprintf("maturity_summary[%d] scores %s, which the MATURITY_ASSESSMENT it is made from does not score", [i, s.control_id])
}

_reference_problems contains ["REFERENCE_MISMATCH", _content_path(sprintf("maturity_summary[%d].score", [i])), msg] if {
	_judged
	lib.output.type == "ASSESSMENT_REPORT"
	some i, s in _items("maturity_summary")
	some x in _input_items("MATURITY_ASSESSMENT", "scores")
	x.control_id == s.control_id
	x.score != s.score
	msg := sprintf("maturity_summary[%d] gives %s maturity %v, but the MATURITY_ASSESSMENT gives %v", [i, s.control_id, s.score, x.score])
}

# --- SCF data ------------------------------------------------------------------------------

# _scf_catalogue is how an scf_data source's id names SCF data: config.scf_catalogue in
# contracts/assessment/config.cue. Missing, no id resolves.
_scf_catalogue := object.get(lib.pack_config, "scf_catalogue", {})

# _catalogue_parts are what a catalogue id names: ["release", release, control] for an
# entry of a release's control catalogue, ["framework", framework, control] for one of a
# framework's STRM; undefined for any other id.
_catalogue_parts(id) := ["release", m[1], upper(m[2])] if {
	m := regex.find_all_string_submatch_n(_scf_catalogue.control, id, 1)[0]
} else := ["framework", m[1], upper(m[2])] if {
	m := regex.find_all_string_submatch_n(_scf_catalogue.mapping, id, 1)[0]
}

# _analysis_controls are the controls the workflow holds once a control analysis is
# recorded: those of the one the output is made from (or in force), and of a control
# analysis being delivered.
_analysis_controls := {c.control_id | some c in object.get(_content_of(_analysis), "controls", []); is_object(c)} | {c.control_id |
	lib.output.type == "CONTROL_ANALYSIS"
	some c in _items("controls")
}

_analysis := v if {
	v := _input_version("CONTROL_ANALYSIS")
} else := _in_force("CONTROL_ANALYSIS")

# _catalogue_problem says why a catalogue id names no SCF data of this assessment;
# undefined when it names some.
_catalogue_problem(id) := "is no SCF catalogue id (config.scf_catalogue: an entry of a release's catalogue or of a framework's STRM)" if {
	not _catalogue_parts(id)
} else := sprintf("names SCF release %s, not the assessment's %v", [r, object.get(_scope, "scf_version", "none")]) if {
	[kind, r, _] := _catalogue_parts(id)
	kind == "release"
	r != object.get(_scope, "scf_version", null)
} else := sprintf("names the STRM of %s, which is no framework of the assessment %v", [f, sort(_scope_frameworks)]) if {
	[kind, f, _] := _catalogue_parts(id)
	kind == "framework"
	not f in {lower(x) | some x in _scope_frameworks}
} else := sprintf("names control %s, outside the assessment's domains %v", [c, sort(_scope_domains)]) if {
	[_, _, c] := _catalogue_parts(id)
	not _domain(c) in _scope_domains
} else := sprintf("names control %s, which the control analysis does not hold %v", [c, sort(_analysis_controls)]) if {
	[_, _, c] := _catalogue_parts(id)
	count(_analysis_controls) > 0
	not c in _analysis_controls
}

# (An id naming an artifact or a KB candidate of the workflow is REFERENCE_MISMATCH.)
_reference_problems contains ["REFERENCE_NOT_FOUND", sprintf("%s.id", [p]), msg] if {
	some [path, i, s] in _catalogue_sources
	not _names_artifact(s.id)
	not s.id in (_recorded_candidates | _candidates_of({"content": lib.content}))
	problem := _catalogue_problem(s.id)
	p := _source_path(path, i)
	msg := sprintf("%s (%s %q) %s: SCF data is cited as an entry of the assessment's SCF data", [p, s.kind, s.id, problem])
}

# --- the knowledge package's own references --------------------------------------------

# Every evidence candidate points at a document the package indexes (kb_documents).
_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("evidence_candidates[%d].document.id", [i])), msg] if {
	_judged
	lib.output.type == "KNOWLEDGE_PACKAGE"
	some i, c in _items("evidence_candidates")
	not _kb_documents[c.document.id]
	msg := sprintf("evidence_candidates[%d] (%s) points at document %q, which kb_documents does not index %v", [i, c.candidate_id, c.document.id, sort(object.keys(_kb_documents))])
}

# A candidate's own KB sources name candidates the package lists. (The package's
# sources as a whole name the tenant's KB, which no record of the workflow names.)
_reference_problems contains ["REFERENCE_NOT_FOUND", sprintf("%s.id", [p]), msg] if {
	some [path, i, s] in _kb_sources
	lib.output.type == "KNOWLEDGE_PACKAGE"
	path[0] == "evidence_candidates"
	not s.id in _candidates_of({"content": lib.content})
	p := _source_path(path, i)
	msg := sprintf("%s names KB evidence candidate %q, which the package does not list", [p, s.id])
}

# --- operational evidence and conflict flags ---------------------------------------------

# A score's operational evidence, high or low, names evidence items the
# EVIDENCE_ASSESSMENT it is made from holds for the control.
_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("scores[%d].operational_evidence[%d]", [i, j])), msg] if {
	_judged
	lib.output.type == "MATURITY_ASSESSMENT"
	_input_version("EVIDENCE_ASSESSMENT")
	some i, s in _items("scores")
	some j, id in object.get(s, "operational_evidence", [])
	not _evidence_item(s.control_id, id)
	msg := sprintf("scores[%d] (%s) cites operational evidence %q, which the EVIDENCE_ASSESSMENT it is made from does not hold for the control", [i, s.control_id, id])
}

_evidence_item(control, id) if {
	some item in _evidence_result(control).items
	item.candidate_id == id
}

# A conflict flag is about a control the output or the version it conflicts with holds.
_reference_problems contains ["REFERENCE_NOT_FOUND", _content_path(sprintf("conflict_flags[%d].control_id", [i])), msg] if {
	_judged
	some i, f in _flags
	c := f.control_id
	not c in _output_controls
	not c in _earlier_controls(f)
	msg := sprintf("conflict_flags[%d] concerns control %s, which neither the output nor the version it conflicts with holds", [i, c])
}

# _output_controls are the controls the output's items are about (its flags aside).
_output_controls := _controls_in(object.remove(lib.content, ["conflict_flags"]))

_earlier_controls(f) := _controls_in(_content_of(v)) if {
	v := core.ref_version(f.conflicts_with)
} else := set()

_controls_in(content) := {v |
	walk(content, [path, v])
	count(path) > 0
	_control_key(path)
	is_string(v)
}

# METADATA
# title: Reference to an unrecorded artifact version
# description: >-
#   A source of the output cites an artifact version (artifact-id@vN or a ref) this
#   workflow has not recorded, or with another artifact id: another tenant's or another
#   assessment's artifact, or a version recorded nowhere, never supports an output.
# custom:
#   code: ARTIFACT_NOT_FOUND
#   outcome: block
reasons contains r if {
	some [code, path, msg] in _reference_problems
	code == "ARTIFACT_NOT_FOUND"
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "S20-ARTIFACT", "block")
}

# METADATA
# title: Reference with another hash
# description: >-
#   A source's ref names a recorded version with a hash other than the recorded one: the
#   output was not made from what the workflow holds.
# custom:
#   code: HASH_MISMATCH
#   outcome: block
reasons contains r if {
	some [code, path, msg] in _reference_problems
	code == "HASH_MISMATCH"
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "S20-HASH", "block")
}

# METADATA
# title: Approval claimed by a source
# description: >-
#   A source declares kind approved_artifact for a version a person has not approved (or
#   whose approval was superseded): a self-declared kind is checked, and an approval is
#   never claimed into the trust hierarchy.
# custom:
#   code: APPROVAL_BYPASS
#   outcome: block
reasons contains r if {
	some [code, path, msg] in _reference_problems
	code == "APPROVAL_BYPASS"
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "GR-APPROVAL", "block")
}

# METADATA
# title: Reference not recorded
# description: >-
#   An id inside the output names nothing this workflow recorded where the field says.
#   Every field that cites is checked: an SCF data source names an entry of the
#   assessment's SCF release or of the STRM of one of its frameworks, for a control of
#   its domains and of its control analysis (config.scf_catalogue); a KB evidence
#   candidate is one the KNOWLEDGE_PACKAGE lists (the package's own sources included)
#   and points at a document the package indexes; a mapping, SoA entry, evidence
#   result, finding or score is about a control the step before holds; an evidence item
#   or a score's operational evidence names a candidate or evidence item recorded for
#   it; a POA&M item or report summary names a recorded finding, item or score; a
#   conflict flag's control is one the output or the version it conflicts with holds.
# custom:
#   code: REFERENCE_NOT_FOUND
#   outcome: block
reasons contains r if {
	some [code, path, msg] in _reference_problems
	code == "REFERENCE_NOT_FOUND"
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "S20-REFERENCE", "block")
}

# METADATA
# title: Reference of another kind
# description: >-
#   A reference resolves, but not to what it says: a source's declared kind overstates
#   what it cites (a rejected version as a draft, an Orchestrator record as an agent
#   output), SCF data or a KB candidate names an artifact of the workflow, SCF data
#   carries an artifact ref, or an id and its ref disagree.
# custom:
#   code: REFERENCE_MISMATCH
#   outcome: block
reasons contains r if {
	some [code, path, msg] in _reference_problems
	code == "REFERENCE_MISMATCH"
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "S20-REFERENCE-KIND", "block")
}
