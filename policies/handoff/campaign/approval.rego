package handoff.campaign

import data.handoff.core
import data.handoff.lib

# Human approval (seed "Human Approval": APPROVE / REQUEST TARGETED REVISION / REJECT),
# required before delivery (CTRL-5), and a person's answer to an escalation.

_human_decision if {
	core.ready
	input.request.kind == "approval"
	lib.status in _approval_statuses
}

_approval_types := {r.type | some r in _approval_refs}

_revise_types := {t | some t in object.get(lib.request, "revise", [])}

# _final_types are what the final approval names: final copy, visual prompts, QA result.
# The table is config.final_types in contracts/campaign/config.cue.
_final_types := object.get(lib.pack_config, "final_types", [])

# _research_decision holds for a person's decision on the research brief at an escalation.
_research_decision if {
	lib.status == "ESCALATED"
	"RESEARCH_BRIEF" in _approval_types
}

# --- checks --------------------------------------------------------------------------

# _stages_for are the stages an approval may name in each status (config.approval_stages
# in contracts/campaign/config.cue).
_stages_for := {s: {t | some t in stages} | some s, stages in object.get(lib.pack_config, "approval_stages", {})}

# METADATA
# title: Approval of another stage
# description: >-
#   The approval names a stage other than the one the workflow waits at
#   (STRATEGY_APPROVAL, HUMAN_APPROVAL, or ESCALATED).
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_human_decision
	stage := lib.request.stage
	not stage in _stages_for[lib.status]
	r := lib.reason(rego.metadata.rule(), sprintf("the workflow waits at %s; an approval of stage %s does not apply", [lib.status, stage]), "stage")
}

_incomplete_approval contains msg if {
	lib.status == "STRATEGY_APPROVAL"
	lib.request.decision in {"APPROVE", "REJECT"}
	not "STRATEGY_BRIEF" in _approval_types
	msg := sprintf("%s at STRATEGY_APPROVAL names no STRATEGY_BRIEF version (latest is v%v)", [lib.request.decision, _strategy_n])
}

_incomplete_approval contains msg if {
	lib.status in {"HUMAN_APPROVAL", "ESCALATED"}
	lib.request.decision == "APPROVE"
	not _research_decision
	some t in _final_types
	not t in _approval_types
	msg := sprintf("the final approval names no %s version: the person approves final copy, visual prompts and the QA result together", [t])
}

_incomplete_approval contains msg if {
	lib.status in {"HUMAN_APPROVAL", "ESCALATED"}
	lib.request.decision == "APPROVE"
	not _research_decision
	some t in _final_types
	t in _approval_types
	not core.latest_status(t) in {"under_review", "approved"}
	msg := sprintf("%s v%v is %s, not awaiting approval", [t, core.latest_number(t), core.latest_status(t)])
}

_incomplete_approval contains msg if {
	lib.status in {"HUMAN_APPROVAL", "ESCALATED"}
	lib.request.decision == "APPROVE"
	not _research_decision
	"QA_REPORT" in _approval_types
	object.get(core.latest_content("QA_REPORT"), "scope", "") != "production"
	msg := sprintf("QA_REPORT v%v is a research validation report; the final approval needs the QA result of the deliverables", [core.latest_number("QA_REPORT")])
}

_incomplete_approval contains msg if {
	_research_decision
	lib.request.decision == "APPROVE"
	core.latest_status("RESEARCH_BRIEF") != "under_review"
	msg := sprintf("RESEARCH_BRIEF v%v is %s, not awaiting approval", [core.latest_number("RESEARCH_BRIEF"), core.latest_status("RESEARCH_BRIEF")])
}

# METADATA
# title: Approval incomplete
# description: >-
#   A person's APPROVE (or REJECT) does not name every version the stage decides: the
#   STRATEGY_BRIEF at STRATEGY_APPROVAL; the COPY_PACKAGE, VISUAL_PACKAGE and
#   production QA_REPORT at HUMAN_APPROVAL, each awaiting approval. (Core checks that
#   each named version is recorded, current and bound to its hash.)
# custom:
#   code: APPROVAL_INCOMPLETE
#   outcome: block
reasons contains r if {
	_human_decision
	some msg in _incomplete_approval
	r := lib.gate_reason(rego.metadata.rule(), msg, "artifacts", "CTRL-5", "block")
}

# _revisable are the artifact types a person may return in each status (config.revisable
# in contracts/campaign/config.cue).
_revisable := {s: {t | some t in types} | some s, types in object.get(lib.pack_config, "revisable", {})}

_invalid_targets contains "a revision request names no artifact type to revise (revise is empty)" if {
	count(_revise_types) == 0
}

_invalid_targets contains msg if {
	some t in _revise_types
	not t in _revisable[lib.status]
	msg := sprintf("%s cannot be revised at %s (revisable: %v)", [t, lib.status, sort(_revisable[lib.status])])
}

_invalid_targets contains msg if {
	some t in _revise_types
	t in _deliverable_types
	not core.latest_status(t) in {"draft", "under_review"}
	msg := sprintf("%s v%v is %s and cannot be returned to its producer", [t, core.latest_number(t), core.latest_status(t)])
}

# METADATA
# title: Revision target invalid
# description: >-
#   A REQUEST_REVISION must name the artifact types to revise (a targeted revision), each
#   one the stage may return and whose current version is still open.
# custom:
#   code: REVISION_TARGET_INVALID
#   outcome: block
reasons contains r if {
	_human_decision
	lib.request.decision == "REQUEST_REVISION"
	some msg in _invalid_targets
	r := lib.reason(rego.metadata.rule(), msg, "revise")
}

# METADATA
# title: Revision requested by a person
# description: >-
#   A person requests a targeted revision: the named artifacts return to their
#   producers; nothing else is rerun.
# custom:
#   code: REVISION_REQUESTED
#   outcome: revise
reasons contains r if {
	_human_decision
	lib.request.decision == "REQUEST_REVISION"
	count(_invalid_targets) == 0
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%q requests a revision of %v at %s", [lib.actor_id, sort(_revise_types), lib.status]), "revise", "revise")
}

# METADATA
# title: Rejected by a person
# description: A person rejects at a human stage; the workflow fails safe.
# custom:
#   code: HUMAN_REJECTED
#   outcome: fail
reasons contains r if {
	_human_decision
	lib.request.decision == "REJECT"
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%q rejects at %s; the workflow fails safe", [lib.actor_id, lib.status]), "decision", "fail")
}

# --- proposals -----------------------------------------------------------------------

_final_approval_proposal := _final_approve_proposal if lib.request.decision == "APPROVE"

_final_approval_proposal := _revision_request_proposal("HUMAN_APPROVAL") if lib.request.decision == "REQUEST_REVISION"

_final_approval_proposal := _reject_proposal("HUMAN_APPROVAL") if lib.request.decision == "REJECT"

_escalation_proposal := _research_approve_proposal if {
	lib.request.decision == "APPROVE"
	_research_decision
}

_escalation_proposal := _final_approve_proposal if {
	lib.request.decision == "APPROVE"
	not _research_decision
}

_escalation_proposal := _revision_request_proposal("ESCALATED") if lib.request.decision == "REQUEST_REVISION"

_escalation_proposal := _reject_proposal("ESCALATED") if lib.request.decision == "REJECT"

# The final approval: the named versions are approved, an APPROVAL_RECORD is recorded
# and the Client Delivery Agent receives the approved versions and their content.
_final_approve_proposal := {
	"outcome": "allow",
	"status_after": "DELIVERY",
	"next": core.next_with("DELIVERY", {"delivery_agent": core.context_package("campaign_approver>delivery_agent", {
		"approved_artifacts": _approval_refs,
		"final_copy": object.get(core.latest_content("COPY_PACKAGE"), "deliverables", []),
		"visual_prompts": object.get(core.latest_content("VISUAL_PACKAGE"), "prompts", []),
	})}),
	"events": array.concat(
		array.concat(_approval_events("HUMAN_APPROVAL"), [core.status_event(t, core.latest_number(t), "approved") | some t in _final_types]),
		[{"type": "defect", "defect": rec.defect, "status": "closed"} |
			some rec in lib.state.defects
			rec.status == "open"
			rec.defect.artifact in _deliverable_types
		],
	),
}

# A person approves the research brief at an escalation: Strategy starts from it.
_research_approve_proposal := {
	"outcome": "allow",
	"status_after": "STRATEGY",
	"next": core.next_with("STRATEGY", {"strategy_agent": core.context_package("research_agent>strategy_agent", core.latest_content("RESEARCH_BRIEF"))}),
	"events": array.concat(
		array.concat(_approval_events("ESCALATED"), [core.status_event("RESEARCH_BRIEF", _brief_n, "approved")]),
		core.supersede_approved("RESEARCH_BRIEF", _brief_n),
	),
}

_reject_proposal(stage) := {
	"outcome": "fail",
	"status_after": "FAILED_SAFE",
	"events": array.concat(
		_approval_events(stage),
		array.concat(
			_set_latest("COPY_PACKAGE", core.open_statuses, "rejected"),
			_set_latest("VISUAL_PACKAGE", core.open_statuses, "rejected"),
		),
	),
}

# _revision_status is where a person's revision request sends the workflow: to the most
# upstream artifact named.
_revision_status := "RESEARCH_REVISION" if {
	"RESEARCH_BRIEF" in _revise_types
} else := "STRATEGY" if {
	"STRATEGY_BRIEF" in _revise_types
} else := "TARGETED_REVISION"

_revision_contexts := {"research_agent": core.keyed({"APPROVAL_RECORD": _approval_package("research_agent")})} if {
	_revision_status == "RESEARCH_REVISION"
} else := {"strategy_agent": core.keyed({
	"APPROVAL_RECORD": _approval_package("strategy_agent"),
	"RESEARCH_BRIEF": _research_package("strategy_agent"),
})} if {
	_revision_status == "STRATEGY"
} else := {p: ctx |
	some t in _revise_types
	t in _deliverable_types
	p := core.producer(t, "unknown")
	ctx := core.keyed({
		"APPROVAL_RECORD": _approval_package(p),
		"STRATEGY_BRIEF": _strategy_package(p, _approved_content("STRATEGY_BRIEF")),
	})
}

_revision_request_proposal(stage) := {
	"outcome": "revise",
	"status_after": _revision_status,
	"revise": [{"artifact": t, "producer": core.producer(t, "unknown"), "defects": []} | some t in sort(_revise_types)],
	"next": core.next_with(_revision_status, _revision_contexts),
	"events": array.concat(_approval_events(stage), [e |
		some t in sort(_revise_types)
		some e in _set_latest(t, {"draft", "under_review"}, "revision_required")
	]),
}
