package handoff.campaign

import data.handoff.core
import data.handoff.lib

# Research → Research Validation: the evidence gate before Strategy (HG-2, CTRL-1).

# --- research handoff -----------------------------------------------------------------

# The brief goes to Strategy through the validation gate: QA validates it first.
_research_handoff_proposal := {
	"outcome": "allow",
	"status_after": "RESEARCH_VALIDATION",
	"next": core.next_with("RESEARCH_VALIDATION", {"qa_agent": core.context_package("research_agent>qa_agent", lib.content)}),
	"events": array.concat(
		array.concat(core.supersede_open("RESEARCH_BRIEF"), [core.artifact_event("under_review")]),
		[core.handoff_event],
	),
}

# --- validation: what the policy checks itself ---------------------------------------

_validation if {
	core.ready
	input.request.kind == "review"
	lib.status == "RESEARCH_VALIDATION"
}

_brief_n := core.latest_number("RESEARCH_BRIEF")

_brief := core.latest_content("RESEARCH_BRIEF")

_brief_path(rest) := sprintf("artifacts.RESEARCH_BRIEF.v%d.content.%s", [_brief_n, rest])

# _source_ids are the ids of a brief's source_references.
_source_ids(content) := {s.id | some s in object.get(content, "source_references", []); is_object(s)}

# _grounded holds when an item cites at least one source the brief's source_references
# define: a citation of a source that is not there is no evidence.
_grounded(item, ids) if {
	some s in object.get(item, "sources", [])
	s in ids
}

# The failures below are [message, path]; each becomes a reason of the rule that names
# its kind (its METADATA gives the code and the title), and every one of them goes into
# the QA report as the policy's finding.

# _hg2 are the HG-2 failures of the brief under validation: major claims without
# evidence.
_hg2 contains failure if {
	_validation
	ids := _source_ids(_brief)
	some i, c in object.get(_brief, "claims", [])
	c.major == true
	not _grounded(c, ids)
	failure := [sprintf("RESEARCH_BRIEF v%d: major claim %q has no evidence among its source_references (cites %v); the handoff to Strategy is blocked and Strategy must not compensate by inventing facts", [_brief_n, object.get(c, "id", i), object.get(c, "sources", [])]), _brief_path(sprintf("claims[%d]", [i]))]
}

# The table is config.research_required_lists in contracts/campaign/config.cue.
_required_lists := object.get(lib.pack_config, "research_required_lists", [])

# The table is config.research_declared_lists in contracts/campaign/config.cue.
_declared_lists := object.get(lib.pack_config, "research_declared_lists", [])

_incomplete contains failure if {
	_validation
	not lib.non_blank(object.get(_brief, "business_objective", null))
	failure := [sprintf("RESEARCH_BRIEF v%d: business_objective is empty", [_brief_n]), _brief_path("business_objective")]
}

_incomplete contains failure if {
	_validation
	some f in _required_lists
	not _non_empty_list(object.get(_brief, f, null))
	failure := [sprintf("RESEARCH_BRIEF v%d: required section %s is empty or missing", [_brief_n, f]), _brief_path(f)]
}

_incomplete contains failure if {
	_validation
	some f in _declared_lists
	not is_array(object.get(_brief, f, null))
	failure := [sprintf("RESEARCH_BRIEF v%d: section %s is missing (send [] to declare none)", [_brief_n, f]), _brief_path(f)]
}

_no_contradictions contains failure if {
	_validation
	not is_array(object.get(_brief, "contradictions", null))
	failure := [sprintf("RESEARCH_BRIEF v%d does not state the contradictory evidence it found (send [] to declare none)", [_brief_n]), _brief_path("contradictions")]
}

# The table is config.research_evidence_sections in contracts/campaign/config.cue.
_evidence_sections := object.get(lib.pack_config, "research_evidence_sections", [])

# A minor claim or a finding without evidence is an unverified assumption presented as
# fact: it belongs in unsupported_assumptions, labeled.
_unlabeled contains failure if {
	_validation
	ids := _source_ids(_brief)
	some i, c in object.get(_brief, "claims", [])
	c.major != true
	not _grounded(c, ids)
	failure := [sprintf("RESEARCH_BRIEF v%d: claim %q has no evidence among its source_references; label it as an unsupported assumption", [_brief_n, object.get(c, "id", i)]), _brief_path(sprintf("claims[%d]", [i]))]
}

_unlabeled contains failure if {
	_validation
	ids := _source_ids(_brief)
	some f in _evidence_sections
	some i, item in object.get(_brief, f, [])
	not _grounded(item, ids)
	failure := [sprintf("RESEARCH_BRIEF v%d: %s[%d] cites no source of source_references; label it as an unsupported assumption", [_brief_n, f, i]), _brief_path(sprintf("%s[%d]", [f, i]))]
}

_unlabeled contains failure if {
	_validation
	some i, a in object.get(_brief, "unsupported_assumptions", [])
	object.get(a, "label", "") != "UNVERIFIED"
	failure := [sprintf("RESEARCH_BRIEF v%d: unsupported_assumptions[%d] is not labeled UNVERIFIED", [_brief_n, i]), _brief_path(sprintf("unsupported_assumptions[%d]", [i]))]
}

# _citing are [path, item] for every part of the brief that cites sources by id: claims,
# findings of the evidence sections and contradictions.
_citing contains [sprintf("claims[%d]", [i]), c] if {
	some i, c in object.get(_brief, "claims", [])
	is_object(c)
}

_citing contains [sprintf("%s[%d]", [f, i]), item] if {
	some f in _evidence_sections
	some i, item in object.get(_brief, f, [])
	is_object(item)
}

_citing contains [sprintf("contradictions[%d]", [i]), c] if {
	some i, c in object.get(_brief, "contradictions", [])
	is_object(c)
}

# _cites_evidence_or_contradiction holds for a contradiction, and for a claim or finding
# that has evidence (an item citing no defined source at all is already an HG-2 failure
# or an unlabeled assumption): its other, dangling citations are reported here.
_cites_evidence_or_contradiction(path, _, _) if startswith(path, "contradictions[")

_cites_evidence_or_contradiction(path, item, ids) if {
	not startswith(path, "contradictions[")
	_grounded(item, ids)
}

_claim_ids(content) := {c.id | some c in object.get(content, "claims", []); is_object(c)}

_unresolved contains failure if {
	_validation
	ids := _source_ids(_brief)
	some [path, item] in _citing
	_cites_evidence_or_contradiction(path, item, ids)
	some j, s in object.get(item, "sources", [])
	not s in ids
	failure := [sprintf("RESEARCH_BRIEF v%d: %s cites source %q, which source_references does not define", [_brief_n, path, s]), _brief_path(sprintf("%s.sources[%d]", [path, j]))]
}

_unresolved contains failure if {
	_validation
	ids := _claim_ids(_brief)
	some i, c in object.get(_brief, "contradictions", [])
	some j, id in object.get(c, "claims", [])
	not id in ids
	failure := [sprintf("RESEARCH_BRIEF v%d: contradictions[%d] concerns claim %q, which the brief does not have", [_brief_n, i, id]), _brief_path(sprintf("contradictions[%d].claims[%d]", [i, j]))]
}

# The table is config.clock_skew_ms in contracts/campaign/config.cue; missing, no skew.
_clock_skew_ns := n * 1000000 if {
	n := lib.pack_config.clock_skew_ms
	is_number(n)
} else := 0

# _future_sources are the sources the brief says it read after the engine recorded it
# (the version's recorded_at, the engine's clock, plus the configured clock skew).
_future_sources contains failure if {
	_validation
	recorded := time.parse_rfc3339_ns(core.latest_version("RESEARCH_BRIEF").recorded_at)
	some i, src in object.get(_brief, "source_references", [])
	at := object.get(src, "accessed_at", "")
	at != ""
	time.parse_rfc3339_ns(at) > recorded + _clock_skew_ns
	failure := [sprintf("RESEARCH_BRIEF v%d: source %q was accessed at %s, after the brief was recorded (%s): a source read later is no evidence of this brief", [_brief_n, object.get(src, "id", i), at, core.latest_version("RESEARCH_BRIEF").recorded_at]), _brief_path(sprintf("source_references[%d].accessed_at", [i]))]
}

# _repeated_ids are [list, id] for every id a list of the brief uses more than once.
_repeated_ids contains [list, id] if {
	some list in ["claims", "source_references"]
	items := [x.id | some x in object.get(_brief, list, []); is_object(x)]
	some id in {x | some x in items}
	count([x | some x in items; x == id]) > 1
}

_not_unique contains failure if {
	_validation
	some [list, id] in _repeated_ids
	failure := [sprintf("RESEARCH_BRIEF v%d: %s uses id %q more than once; what cites it could mean either", [_brief_n, list, id]), _brief_path(list)]
}

_non_empty_list(l) if {
	is_array(l)
	count(l) > 0
}

# _findings are every failure the policy finds in the brief, whatever QA says: the
# reasons of the rules below.
_findings := _brief_findings

reasons contains r if some r in _brief_findings

# METADATA
# title: HG-2 source grounding failure
# description: >-
#   A major claim of the RESEARCH_BRIEF under validation cites no source that its
#   source_references define. The handoff to Strategy is blocked: the brief returns to
#   research (RESEARCH_REVISION) whatever the QA verdict. (Core MISSING_SOURCES already
#   refuses a claim without any citation at handoff time.)
# custom:
#   code: SOURCE_GROUNDING_FAILURE
#   outcome: revise
_brief_findings contains lib.gate_reason(rego.metadata.rule(), msg, path, "HG-2", "revise") if some [msg, path] in _hg2

# METADATA
# title: Research sections incomplete
# description: >-
#   Acceptance criterion "Required sections complete": business_objective,
#   target_audience_evidence, competitor_observations, market_findings and
#   source_references are not empty, known_unknowns and unsupported_assumptions are
#   present. The brief returns to research.
# custom:
#   code: RESEARCH_INCOMPLETE
#   outcome: revise
_brief_findings contains lib.gate_reason(rego.metadata.rule(), msg, path, "required_sections", "revise") if some [msg, path] in _incomplete

# METADATA
# title: Contradictory evidence not identified
# description: >-
#   Acceptance criterion "Contradictory evidence identified": the brief must state its
#   contradictions (an empty list declares none). The brief returns to research.
# custom:
#   code: CONTRADICTIONS_MISSING
#   outcome: revise
_brief_findings contains lib.gate_reason(rego.metadata.rule(), msg, path, "contradictions_identified", "revise") if some [msg, path] in _no_contradictions

# METADATA
# title: Unverified assumption not labeled
# description: >-
#   Acceptance criterion "Unverified assumptions clearly labeled": a minor claim or a
#   finding without evidence, or an unsupported assumption not labeled UNVERIFIED. The
#   brief returns to research.
# custom:
#   code: ASSUMPTION_UNLABELED
#   outcome: revise
_brief_findings contains lib.gate_reason(rego.metadata.rule(), msg, path, "assumptions_labeled", "revise") if some [msg, path] in _unlabeled

# METADATA
# title: Reference the brief does not define
# description: >-
#   A claim, a finding or a contradiction of the RESEARCH_BRIEF under validation cites a
#   source id its source_references do not define, or a contradiction names a claim id the
#   brief does not have: every citation resolves inside the brief. The brief returns to
#   research.
# custom:
#   code: UNRESOLVED_REFERENCE
#   outcome: revise
_brief_findings contains lib.reason_outcome(rego.metadata.rule(), msg, path, "revise") if some [msg, path] in _unresolved

# METADATA
# title: Id used twice
# description: >-
#   The RESEARCH_BRIEF under validation uses one id for two claims or two
#   source_references: a citation of it could mean either. The brief returns to research.
# custom:
#   code: ID_NOT_UNIQUE
#   outcome: revise
_brief_findings contains lib.reason_outcome(rego.metadata.rule(), msg, path, "revise") if some [msg, path] in _not_unique

# METADATA
# title: Source read after the brief was recorded
# description: >-
#   A source of the RESEARCH_BRIEF under validation states an accessed_at later than the
#   time the engine recorded the brief (its recorded_at, plus config.clock_skew_ms): the
#   brief cannot rest on a reading that had not happened. Times a request states are
#   checked against the engine's clock. The brief returns to research.
# custom:
#   code: TIME_IN_FUTURE
#   outcome: revise
_brief_findings contains lib.reason_outcome(rego.metadata.rule(), msg, path, "revise") if some [msg, path] in _future_sources

# --- validation: the decision --------------------------------------------------------

_severe(d) if d.severity in {"S2", "S3"}

_has_severity(s) if {
	some d in _defects
	d.severity == s
}

_validation_needs_revision if count(_findings) > 0

_validation_needs_revision if lib.request.verdict in {"REVISE", "REJECT"}

_validation_needs_revision if _has_severity("S2")

_validation_branch := "fail" if {
	_has_severity("S3")
} else := "escalate" if {
	lib.request.verdict == "ESCALATE"
} else := "exhausted" if {
	_validation_needs_revision
	_cycles_spent("research_cycles")
} else := "revise" if {
	_validation_needs_revision
} else := "accept"

_result_of := {"accept": "pass", "revise": "revise", "upstream": "revise", "exhausted": "escalate", "escalate": "escalate", "fail": "fail"}

_validation_report := _report_content("research_validation", _result_of[_validation_branch], _findings)

_validation_proposal := {
	"outcome": "allow",
	"status_after": "STRATEGY",
	"next": core.next_with("STRATEGY", {"strategy_agent": core.context_package("research_agent>strategy_agent", _brief)}),
	"events": array.concat(
		_report_events(_validation_report),
		array.concat(core.supersede_approved("RESEARCH_BRIEF", _brief_n), [core.status_event("RESEARCH_BRIEF", _brief_n, "approved")]),
	),
} if {
	_validation_branch == "accept"
}

_validation_proposal := {
	"outcome": "revise",
	"status_after": "RESEARCH_REVISION",
	"revise": [{"artifact": "RESEARCH_BRIEF", "producer": core.producer("RESEARCH_BRIEF", "unknown"), "defects": sort(_defect_ids)}],
	"next": core.next_with("RESEARCH_REVISION", {"research_agent": core.keyed({"QA_REPORT": _qa_package("research_agent", _validation_report, "RESEARCH_BRIEF")})}),
	"events": array.concat(
		_report_events(_validation_report),
		[
			core.status_event("RESEARCH_BRIEF", _brief_n, "revision_required"),
			{"type": "counter", "name": "research_cycles", "delta": 1},
		],
	),
} if {
	_validation_branch == "revise"
}

# Exhausted research cycles, or QA escalates: a person decides; the brief stays under
# review so that the person may still approve it or return it.
_validation_proposal := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": core.next_with("ESCALATED", {"campaign_approver": core.keyed({
		"RESEARCH_BRIEF": core.context_package("research_agent>qa_agent", _brief),
		"QA_REPORT": _qa_package("research_agent", _validation_report, "RESEARCH_BRIEF"),
	})}),
	"events": _report_events(_validation_report),
	"requires_human_review": true,
} if {
	_validation_branch in {"exhausted", "escalate"}
}

_validation_proposal := {
	"outcome": "fail",
	"status_after": "FAILED_SAFE",
	"events": array.concat(_report_events(_validation_report), [core.status_event("RESEARCH_BRIEF", _brief_n, "rejected")]),
} if {
	_validation_branch == "fail"
}
