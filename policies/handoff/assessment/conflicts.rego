package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Conflicts (seed sections 9 and 10). A handoff whose output flags conflicts is accepted
# as a conflict: the flagged output is recorded (under review) beside the version it
# contradicts, both preserved; one conflict is opened per flag with its conflict_event
# (CONFLICT_EVENT); the automatic advance is blocked (CONFLICT_REVIEW, core CONFLICT_OPEN
# for any handoff or approval) and no winner is chosen. Only an authorized person
# resolves a conflict; the resolution is recorded as an audit event (RESOLUTION_RECORD)
# and the Orchestrator opens a new handoff.

# _conflict_id is the id of the conflict of flag i of the current handoff.
_conflict_id(i) := sprintf("%s-c%d", [lib.request.handoff_id, i + 1])

# _flag_key identifies a conflict: its type, its control and the earlier artifact type.
_flag_key(f) := [f.conflict_type, object.get(f, "control_id", ""), object.get(f, ["conflicts_with", "type"], "")]

_recorded_conflicts := [c |
	some v in core.artifact("CONFLICT_EVENT").versions
	c := v.content
]

_event_key(c) := [c.conflict_type, object.get(c, "control_id", ""), _earlier_type(c)]

_earlier_type(c) := t if {
	some a in c.conflicting_artifacts
	a.type != c.output.type
	t := a.type
} else := ""

# _repeated_flags are the flags of the output that raise a conflict already raised.
_repeated_flags contains [i, c.conflict_id] if {
	_judged
	some i, f in _flags
	some c in _recorded_conflicts
	_event_key(c) == _flag_key(f)
}

# METADATA
# title: Same conflict repeated
# description: >-
#   The output flags a conflict (same type, control and earlier artifact) this workflow
#   already raised: the same conflict repeated is a loop. Nothing is accepted and the
#   workflow goes to HUMAN_REVIEW.
# custom:
#   code: CONFLICT_REPEATED
#   outcome: await_human
_conflict_repeated contains r if {
	_conflict_repeat_escalation
	some [i, earlier] in _repeated_flags
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("conflict_flags[%d] raises again conflict %q (%v)", [i, earlier, _flag_key(_flags[i])]), sprintf("output.content.conflict_flags[%d]", [i]), "await_human")
}

_conflict_handoff if {
	_handoff
	_clear
	count(_flags) > 0
	count(_repeated_flags) == 0
}

# METADATA
# title: Conflict detected
# description: >-
#   The output flags a conflict with an earlier output: the conflict is recorded
#   (conflict_opened and its CONFLICT_EVENT), both outputs are preserved, the automatic
#   advance is blocked and an authorized person reviews it (CONFLICT_REVIEW). No winner is
#   chosen automatically.
# custom:
#   code: CONFLICT_DETECTED
#   outcome: await_human
_conflict_reasons contains r if {
	_conflict_handoff
	some i, f in _flags
	r := lib.gate_reason(rego.metadata.rule(), sprintf("conflict %s: %s on %s (%s), severity %s; a person resolves it", [_conflict_id(i), f.conflict_type, object.get(f, "control_id", "the output"), _flag_side(f), f.severity]), sprintf("output.content.conflict_flags[%d]", [i]), "GR-CONFLICT", "await_human")
}

_flag_side(f) := sprintf("%s v%v against %s v%v", [lib.output.type, lib.output.version, f.conflicts_with.type, f.conflicts_with.version]) if {
	is_object(f.conflicts_with)
} else := sprintf("%s v%v", [lib.output.type, lib.output.version])

# _conflict_sides are both sides of flag f: the earlier version and the flagged output.
_conflict_sides(f) := [f.conflicts_with, core.output_ref] if {
	is_object(f.conflicts_with)
} else := [core.output_ref]

_conflict_content(i, f) := object.union(
	{
		"tenant_id": lib.state.tenant_id,
		"organization_id": object.get(lib.state, "organization_id", ""),
		"assessment_id": lib.state.subject_id,
		"trace_id": _trace,
		"conflict_id": _conflict_id(i),
		"source_handoff_id": lib.request.handoff_id,
		"conflicting_artifact_ids": [_version_id(r) | some r in _conflict_sides(f)],
		"conflicting_artifacts": _conflict_sides(f),
		"conflict_type": f.conflict_type,
		"severity": f.severity,
		"requires_human_review": true,
		"raised_by": _source,
		"output": core.output_ref,
		"description": f.justification,
		"resume_status": _keep_status,
		"redo_status": _stage_of[_source],
	},
	{"control_id": c | c := f.control_id},
)

# _keep_status is where the flagged output goes when a person keeps it: its approval
# gate, or the status it was headed for (a kept output counts as validated).
_keep_status := _route_gate if _gated_forward

else := _destination

_conflict_events := array.concat(
	[e |
		some i, f in _flags
		e := {
			"type": "conflict_opened",
			"id": _conflict_id(i),
			"conflict_type": f.conflict_type,
			"artifacts": _conflict_sides(f),
			"description": f.justification,
			"raised_by": _source,
		}
	],
	[e |
		some i, f in _flags
		content := _conflict_content(i, f)
		ref := {"id": core.history_id("CONFLICT_EVENT", "conflict-event"), "type": "CONFLICT_EVENT", "version": (core.latest_number("CONFLICT_EVENT") + i) + 1, "hash": core.content_hash(content)}
		e := _record_event(ref, "approved", content, _record_meta(ref, "conflict_pending", "assessment_reviewer", "CONFLICT_REVIEW"))
	],
)

_conflict_refs := [{"ref": {"id": core.history_id("CONFLICT_EVENT", "conflict-event"), "type": "CONFLICT_EVENT", "version": (core.latest_number("CONFLICT_EVENT") + i) + 1, "hash": core.content_hash(_conflict_content(i, f))}, "status": "approved"} |
	some i, f in _flags
]

_new_conflict_flags := [object.union({"conflict_id": _conflict_id(i), "conflict_type": f.conflict_type, "status": "open"}, {"control_id": c | c := f.control_id}) |
	some i, f in _flags
]

# _conflict_proposal records the flagged output and its conflicts and stops the work.
_conflict_proposal := {
	"outcome": "await_human",
	"status_after": "CONFLICT_REVIEW",
	"conflict_id": _conflict_id(0),
	"requires_human_review": true,
	"next": [_next_human_with("CONFLICT_REVIEW", array.concat([{"ref": core.output_ref, "status": "under_review"}], _conflict_refs), {"conflict_flags": _new_conflict_flags})],
	"events": array.concat(
		array.concat(core.supersede_open(lib.output.type), [_output_event("under_review", "conflict_pending", "CONFLICT_REVIEW")]),
		array.concat(array.concat([core.handoff_event], _handoff_counters), _conflict_events),
	),
}

# --- resolution ------------------------------------------------------------------------

_resolving if {
	core.ready
	input.request.kind == "resolution"
	lib.status == "CONFLICT_REVIEW"
}

_conflict_event := c if {
	some v in core.artifact("CONFLICT_EVENT").versions
	c := v.content
	c.conflict_id == lib.request.conflict_id
}

_chosen := c if {
	c := lib.request.chosen
	is_object(c)
}

_resolution_decision := "reject_flagged_output" if {
	not _chosen
} else := "keep_flagged_output" if {
	_same_version(_chosen, _conflict_event.output)
} else := "keep_earlier_version" if {
	some a in _conflict_event.conflicting_artifacts
	not _same_version(a, _conflict_event.output)
	_same_version(_chosen, a)
}

# METADATA
# title: Resolution chooses outside the conflict
# description: >-
#   A resolution's chosen version must be one side of the conflict (the flagged output or
#   the version it contradicts), or absent to reject the flagged output.
# custom:
#   code: RESOLUTION_INVALID
#   outcome: block
reasons contains r if {
	_resolving
	_conflict_event
	_chosen
	not _resolution_decision
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v is not a side of conflict %q (%v)", [_chosen.type, _chosen.version, lib.request.conflict_id, _conflict_event.conflicting_artifact_ids]), "chosen")
}

# _still_open are the other conflicts that stay open after this resolution.
_still_open := {id |
	some id, c in lib.state.conflicts
	c.status == "open"
	id != lib.request.conflict_id
}

_flagged_version := core.artifact_version(_conflict_event.output.type, _conflict_event.output.version)

# _flagged_rejected holds when the flagged output is (or is now) rejected.
_flagged_rejected if _resolution_decision != "keep_flagged_output"

_flagged_rejected if _flagged_version.status == "rejected"

_resolution_status := "CONFLICT_REVIEW" if {
	count(_still_open) > 0
} else := _conflict_event.redo_status if {
	_flagged_rejected
} else := _conflict_event.resume_status

_resume_agent := _stage_agent(_resolution_status) if _resolution_status in _pipeline

else := a if {
	some x in core.actors(_resolution_status)
	a := x.agent
}

_resume_task := _stage_task(_resolution_status) if _resolution_status in _pipeline

else := t if {
	some x in core.actors(_resolution_status)
	t := x.task
}

_resolution_content := object.union(
	{
		"tenant_id": lib.state.tenant_id,
		"organization_id": object.get(lib.state, "organization_id", ""),
		"assessment_id": lib.state.subject_id,
		"trace_id": _trace,
		"conflict_id": lib.request.conflict_id,
		"decision": _resolution_decision,
		"reviewer": lib.actor_id,
		"roles": sort(_pack_roles),
		"rationale": lib.request.rationale,
		"decided_at": input.now,
		"new_handoff": {
			"handoff_id": sprintf("%s-next", [lib.request.conflict_id]),
			"target_agent": _resume_agent,
			"task": _resume_task,
			"handoff_type": _new_handoff_type,
			"resume_status": _resolution_status,
		},
	},
	{"chosen": c | c := _chosen},
)

_new_handoff_type := "conflict_resolution" if {
	_flagged_rejected
	count(_still_open) == 0
} else := "sequential"

_resolution_ref := core.next_ref("RESOLUTION_RECORD", "resolution-record", _resolution_content)

# _flagged_events change the flagged output's status: rejected when the person does not
# keep it; approved when kept and headed past validation (a kept output counts as
# validated); left under review for its approval gate.
_flagged_events := [core.status_event(_conflict_event.output.type, _conflict_event.output.version, "rejected")] if {
	_resolution_decision != "keep_flagged_output"
	_flagged_version.status != "rejected"
} else := [core.status_event(_conflict_event.output.type, _conflict_event.output.version, "approved")] if {
	count(_still_open) == 0
	not _flagged_rejected
	not _resolution_status in _gates
} else := []

_resolution_pending_events := [{"type": "counter", "name": sprintf("resolution_pending/%s", [_resume_agent]), "value": 1}] if {
	_new_handoff_type == "conflict_resolution"
} else := []

_resolution_next := [_next_human("CONFLICT_REVIEW", [{"ref": _resolution_ref, "status": "approved"}])] if {
	_resolution_status == "CONFLICT_REVIEW"
} else := [_next_human(_resolution_status, [{"ref": _resolution_ref, "status": "approved"}])] if {
	_resolution_status in _human_statuses
} else := [_next_agent(_resume_agent, "orchestrator", _resolution_status, array.concat([{"ref": _resolution_ref, "status": "approved"}], _flagged_context), {"conflict_flags": [{"conflict_id": lib.request.conflict_id, "conflict_type": _conflict_event.conflict_type, "status": "resolved"}]})]

_flagged_context := [{"ref": _conflict_event.output, "status": s}] if {
	_flagged_rejected
	s := "rejected"
} else := []

_resolution_outcome := "await_human" if _resolution_status in _human_statuses

else := "allow"

# The person's resolution: the conflict is resolved, the decision recorded as an audit
# event, and the work goes on with a new handoff (or waits for the other conflicts).
_resolution_proposal := {
	"outcome": _resolution_outcome,
	"status_after": _resolution_status,
	"requires_human_review": _resolution_outcome == "await_human",
	"next": _resolution_next,
	"events": array.concat(
		array.concat(
			[
				object.union(
					{"type": "conflict_resolved", "id": lib.request.conflict_id, "by": lib.actor_id, "rationale": lib.request.rationale},
					{"chosen": c | c := _chosen},
				),
				_record_event(_resolution_ref, "approved", _resolution_content, _record_meta(_resolution_ref, "validated", _resume_agent, _resolution_status)),
			],
			_flagged_events,
		),
		_resolution_pending_events,
	),
} if {
	_resolving
	_conflict_event
	_resolution_decision
}
