package handoff.campaign

import data.handoff.core
import data.handoff.lib

# Events and context packages the campaign proposals are built from.

# _set_latest moves the latest version of a type to status when it is in one of from.
_set_latest(type, from, status) := [core.status_event(type, v.ref.version, status) |
	v := core.latest_version(type)
	v.status in from
]

# --- QA_REPORT: recorded from every review --------------------------------------------

_defects := [d | some d in object.get(lib.request, "defects", []); is_object(d)]

_defect_ids := {d.id | some d in _defects}

_reviewed := [r | some r in object.get(lib.request, "artifacts", []); is_object(r)]

_reviewed_types := {r.type | some r in _reviewed}

# _report_content is the QA_REPORT content of the current review: the verdict and what
# the reviewer sent, the policy's result and its own findings. QA sends notes, never
# content of the artifacts it reviews.
_report_content(scope, result, findings) := object.union(
	{
		"scope": scope,
		"verdict": lib.request.verdict,
		"result": result,
		"reviewed": _reviewed,
		"defects": _defects,
		"gates": object.get(lib.request, "gates", []),
		"policy_findings": _findings_list(findings),
	},
	_report_extras,
)

_report_extras := object.union(
	{k: v | some k in {"checks_performed", "notes"}; v := lib.request.report[k]},
	{"summary": s | s := lib.request.summary},
)

# The report keeps what each finding says, not which rule said it: the title names the
# rule for the decision, and the report's content is the same whatever the rule is called.
_findings_list(findings) := [object.remove(r, ["outcome", "title"]) | some r in findings]

_report_event(content) := {
	"type": "artifact_recorded",
	"ref": {
		"id": core.history_id("QA_REPORT", "qa-report"),
		"type": "QA_REPORT",
		"version": core.latest_number("QA_REPORT") + 1,
		"hash": core.content_hash(content),
	},
	"status": "under_review",
	"producer": lib.actor_id,
	"based_on": _reviewed,
	"assumptions": [],
	"limitations": [],
	"content": content,
}

# _report_events records the review's QA_REPORT, supersedes the previous open one, opens
# the review's defects and closes the open defects of the reviewed types it no longer
# reports.
_report_events(content) := array.concat(
	array.concat(core.supersede_open("QA_REPORT"), [_report_event(content)]),
	_defect_events,
)

_defect_events := array.concat(
	[{"type": "defect", "defect": d, "status": "open"} | some d in _defects],
	[{"type": "defect", "defect": rec.defect, "status": "closed"} |
		some id, rec in lib.state.defects
		rec.status == "open"
		rec.defect.artifact in _reviewed_types
		not id in _defect_ids
	],
)

# --- APPROVAL_RECORD: recorded from every decision of a person -------------------------
# The record keeps the roles the pack's roles table defines among those the person
# claimed: a role no table grants is not recorded as authority.

_approval_refs := [r | some r in object.get(lib.request, "artifacts", []); is_object(r)]

_approval_record_content(stage) := object.union(
	{
		"stage": stage,
		"decision": lib.request.decision,
		"approver": lib.actor_id,
		"roles": sort(_held_roles),
		"artifacts": _approval_refs,
		"revise": object.get(lib.request, "revise", []),
		"decided_at": input.now,
	},
	{"comment": c | c := lib.request.comment},
)

# _approval_events records the person's decision (state.approvals, by artifact type and
# stage) and its APPROVAL_RECORD version.
_approval_events(stage) := [
	{
		"type": "approval_recorded",
		"decision": lib.request.decision,
		"by": lib.actor_id,
		"artifacts": _approval_refs,
		"stage": stage,
	},
	{
		"type": "artifact_recorded",
		"ref": {
			"id": core.history_id("APPROVAL_RECORD", "approval-record"),
			"type": "APPROVAL_RECORD",
			"version": core.latest_number("APPROVAL_RECORD") + 1,
			"hash": core.content_hash(_approval_record_content(stage)),
		},
		"status": "approved",
		"producer": lib.actor_id,
		"based_on": _approval_refs,
		"assumptions": [],
		"limitations": [],
		"content": _approval_record_content(stage),
	},
]

# --- context packages ---------------------------------------------------------------

_strategy_package(agent, strategy) := core.context_package(sprintf("strategy_agent>%s", [agent]), strategy)

_research_package(agent) := core.context_package(sprintf("research_agent>%s", [agent]), _approved_content("RESEARCH_BRIEF"))

# _qa_package is what the producer of a returned artifact learns from a QA_REPORT: the
# defects of its own artifact (all of them for an upstream producer) and the policy's
# findings.
_qa_package(agent, report, type) := core.context_package(sprintf("qa_agent>%s", [agent]), object.union(report, {"defects": [d |
	some d in report.defects
	_defect_concerns(d, type)
]}))

_defect_concerns(d, type) if d.artifact == type

_defect_concerns(d, type) if d.origin == type

_approval_package(agent) := core.context_package(sprintf("campaign_approver>%s", [agent]), {
	"revise": object.get(lib.request, "revise", []),
	"comment": object.get(lib.request, "comment", ""),
})

# The table is config.strategy_summary_fields in contracts/campaign/config.cue.
_strategy_summary_fields := object.get(lib.pack_config, "strategy_summary_fields", [])

# _approval_summary is what the person approving the final package receives (seed
# "Human Approval"): strategy summary, final copy, visual prompts, QA result and
# outstanding assumptions.
_approval_summary(report) := core.context_package("qa_agent>campaign_approver", {
	"strategy_summary": {k: v | some k in _strategy_summary_fields; v := _approved_content("STRATEGY_BRIEF")[k]},
	"final_copy": core.latest_content("COPY_PACKAGE"),
	"visual_prompts": object.get(core.latest_content("VISUAL_PACKAGE"), "prompts", []),
	"qa_result": report,
	"outstanding_assumptions": sort(_outstanding_assumptions),
})

_outstanding_assumptions contains a if {
	some t in {"STRATEGY_BRIEF", "COPY_PACKAGE", "VISUAL_PACKAGE"}
	some a in _live_version(t).assumptions
}

_outstanding_assumptions contains a.statement if {
	some a in object.get(_approved_content("STRATEGY_BRIEF"), "assumptions", [])
}

_outstanding_assumptions contains a.statement if {
	some a in object.get(_approved_content("RESEARCH_BRIEF"), "unsupported_assumptions", [])
}

_live_version(t) := core.last_approved(t) if t == "STRATEGY_BRIEF"

else := core.latest_version(t)

_escalation_next(report) := core.next_with("ESCALATED", {"campaign_approver": _approval_summary(report)})
