package handoff.campaign

import data.handoff.core

# Strategy → Strategy Approval: one approved strategy version is the single source of
# truth (CTRL-2), grounded in the approved research (HG-2).

_strategy_handoff if {
	_by_producer
	_output.type == "STRATEGY_BRIEF"
}

_strategy_handoff_proposal := {
	"outcome": "await_human",
	"status_after": "STRATEGY_APPROVAL",
	"next": _next_with("STRATEGY_APPROVAL", {"campaign_approver": core.context_package("strategy_agent>campaign_approver", _content)}),
	"events": array.concat(
		array.concat(_supersede_open("STRATEGY_BRIEF"), [core.artifact_event("under_review")]),
		[core.handoff_event],
	),
	"requires_human_review": true,
}

# _strategy_research is the research the strategy says it was made from: the version its
# RESEARCH_BRIEF input names, else the approved one.
_strategy_research := c if {
	some r in _inputs_of("RESEARCH_BRIEF")
	c := _version("RESEARCH_BRIEF", r.version).content
	is_object(c)
} else := _approved_content("RESEARCH_BRIEF")

# _evidence_claims are the ids of the research claims backed by a defined source.
_evidence_claims := {c.id |
	ids := _source_ids(_strategy_research)
	some c in object.get(_strategy_research, "claims", [])
	_grounded(c, ids)
}

# METADATA
# title: Strategy claim without research evidence
# description: >-
#   An approved claim of the STRATEGY_BRIEF does not rest on a sourced claim of the
#   approved RESEARCH_BRIEF it was made from: the Strategy Agent may not replace missing
#   research with assumptions presented as facts (HG-2). Assumptions go, labeled, under
#   assumptions.
# custom:
#   code: UNGROUNDED_CLAIM
#   outcome: block
reasons contains r if {
	_strategy_handoff
	some i, c in object.get(_content, "approved_claims", [])
	not object.get(c, "research_claim", "") in _evidence_claims
	r := _gate_reason("UNGROUNDED_CLAIM", sprintf("approved claim %q rests on research claim %q, which is not a sourced claim of the approved RESEARCH_BRIEF", [object.get(c, "id", i), object.get(c, "research_claim", "")]), sprintf("output.content.approved_claims[%d]", [i]), "HG-2", "block")
}

# _strategy_change_attempt holds when a new STRATEGY_BRIEF version arrives while an
# approved one exists and the workflow is not on a revision path back to STRATEGY.
_strategy_change_attempt if {
	_strategy_handoff
	_status != "STRATEGY"
	_approved_n("STRATEGY_BRIEF")
}

# METADATA
# title: Attempt to change the approved strategy
# description: >-
#   A new STRATEGY_BRIEF version arrives while an approved strategy is the source of
#   truth and the workflow is not in STRATEGY (where QA's upstream defect or a person's
#   revision request sends it). The approved strategy changes only through a revision
#   path (CTRL-2).
# custom:
#   code: ARTIFACT_IMMUTABLE
#   outcome: block
reasons contains r if {
	_strategy_change_attempt
	r := _gate_reason("ARTIFACT_IMMUTABLE", sprintf("attempt to change the approved strategy: STRATEGY_BRIEF v%v is approved and the workflow is in %s, not on a revision path", [_approved_n("STRATEGY_BRIEF"), _status]), "output", "CTRL-2", "block")
}

# _required_inputs are the input artifact types each output needs (config.required_inputs
# in contracts/campaign/config.cue).
_required_inputs := {t: {i | some i in inputs} | some t, inputs in object.get(_config, "required_inputs", {})}

# METADATA
# title: Required input missing
# description: >-
#   The handoff does not name an input its output is made from: a STRATEGY_BRIEF names
#   the approved RESEARCH_BRIEF; a CLIENT_PACKAGE names the approved COPY_PACKAGE,
#   VISUAL_PACKAGE and the APPROVAL_RECORD of the final approval.
# custom:
#   code: INPUT_MISSING
#   outcome: block
reasons contains r if {
	_by_producer
	some t in _required_inputs[_output.type]
	not t in _input_types
	r := _reason("INPUT_MISSING", sprintf("%s v%v is made from %s, but input_artifacts names none", [_output.type, _output.version, t]), "input_artifacts", "block")
}

_consumes(agent) := {t | some t in _contract.agents[agent].consumes}

# METADATA
# title: Input the agent may not consume
# description: >-
#   A handoff names an input artifact type its source agent does not consume (the
#   registry's consumes list): copy and visual never depend on each other's draft, and
#   every agent works only from the artifacts its permissions name. A missing registry
#   permits nothing.
# custom:
#   code: INPUT_NOT_PERMITTED
#   outcome: block
reasons contains r if {
	_by_producer
	some i, ref in _inputs
	not ref.type in _consumes(_request.source_agent)
	r := _reason("INPUT_NOT_PERMITTED", sprintf("%s does not consume %s (consumes %v)", [_request.source_agent, ref.type, sort(_consumes(_request.source_agent))]), sprintf("input_artifacts[%d]", [i]), "block")
}

# METADATA
# title: Correction not linked to its version
# description: >-
#   A new version (2 or more) of an artifact must say which version it corrects
#   (supersedes) and why (justification): every strategy-dependent artifact is versioned
#   and traceable (CTRL-6). Core checks that supersedes is the latest version.
# custom:
#   code: VERSION_UNLINKED
#   outcome: block
reasons contains r if {
	_by_producer
	_output.version > 1
	not is_number(object.get(_output, "supersedes", null))
	r := _gate_reason("VERSION_UNLINKED", sprintf("%s v%v does not name the version it supersedes", [_output.type, _output.version]), "output.supersedes", "CTRL-6", "block")
}

# METADATA
# title: Correction without justification
# description: >-
#   A new version (2 or more) says why it corrects the previous one (justification), so
#   that every version of a strategy-dependent artifact is traceable (CTRL-6).
# custom:
#   code: VERSION_UNLINKED
#   outcome: block
reasons contains r if {
	_by_producer
	_output.version > 1
	not _non_blank(object.get(_output, "justification", ""))
	r := _gate_reason("VERSION_UNLINKED", sprintf("%s v%v does not say why it corrects the previous version (justification)", [_output.type, _output.version]), "output.justification", "CTRL-6", "block")
}

# --- strategy approval ---------------------------------------------------------------

_strategy_n := _latest_n("STRATEGY_BRIEF")

_approval_proposal := _strategy_approval_proposal if _status == "STRATEGY_APPROVAL"

_approval_proposal := _final_approval_proposal if _status == "HUMAN_APPROVAL"

_approval_proposal := _escalation_proposal if _status == "ESCALATED"

# Approved: Copy and Visual start in parallel from the same approved version; older
# approved versions and deliverables made from them are superseded.
_strategy_approval_proposal := {
	"outcome": "allow",
	"status_after": "PRODUCTION",
	"next": _next_with("PRODUCTION", {
		"copywriter": _strategy_package("copywriter", _latest_content("STRATEGY_BRIEF")),
		"visual_prompt_agent": _strategy_package("visual_prompt_agent", _latest_content("STRATEGY_BRIEF")),
	}),
	"events": array.concat(
		array.concat(_approval_events("STRATEGY_APPROVAL"), [_status_event("STRATEGY_BRIEF", _strategy_n, "approved")]),
		array.concat(
			_supersede_approved("STRATEGY_BRIEF", _strategy_n),
			array.concat(_supersede_open("COPY_PACKAGE"), _supersede_open("VISUAL_PACKAGE")),
		),
	),
} if {
	_request.decision == "APPROVE"
}

_strategy_approval_proposal := _revision_request_proposal("STRATEGY_APPROVAL") if _request.decision == "REQUEST_REVISION"

_strategy_approval_proposal := {
	"outcome": "fail",
	"status_after": "FAILED_SAFE",
	"events": array.concat(_approval_events("STRATEGY_APPROVAL"), _set_latest("STRATEGY_BRIEF", _open_statuses, "rejected")),
} if {
	_request.decision == "REJECT"
}
