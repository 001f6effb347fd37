package handoff.video

import data.handoff.core
import data.handoff.lib

# People decide twice: the client confirms (or returns, or rejects) the work at
# AWAITING_CLIENT, and the production lead decides escalations. Neither waives a gate:
# work goes on only through new versions that pass them.

_decision := object.get(lib.request, "decision", "")

_approval_refs := [r | some r in object.get(lib.request, "artifacts", []); is_object(r)]

_approval_types := {r.type | some r in _approval_refs}

_revise_types := {t | some t in object.get(lib.request, "revise", [])}

_deciding if {
	core.ready
	input.request.kind == "approval"
	lib.status in {"AWAITING_CLIENT", "ESCALATED"}
}

# _revisable are the artifact types a person may return in each status.
# The table is config.revisable in contracts/video/config.cue.
_revisable := {s: {t | some t in types} | some s, types in object.get(lib.pack_config, "revisable", {})}

# METADATA
# title: Approval of another stage
# description: >-
#   The approval names a stage other than the one the workflow waits at (AWAITING_CLIENT
#   or ESCALATED).
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_deciding
	stage := lib.request.stage
	stage != lib.status
	r := lib.reason(rego.metadata.rule(), sprintf("the workflow waits at %s; an approval of stage %s does not apply", [lib.status, stage]), "stage")
}

# METADATA
# title: Decision without the role of the stage
# description: >-
#   The person deciding holds no role that approves the stage the workflow waits at:
#   at AWAITING_CLIENT only the client confirms, returns or rejects; at ESCALATED only
#   the production lead decides (the roles table's approves). A role that approves
#   some artifact named in the request does not make its holder the decider of the
#   stage, whether or not the request names the stage.
# custom:
#   code: APPROVAL_REQUIRED
#   outcome: block
reasons contains r if {
	_deciding
	lib.actor_type == "human"
	not _decides_stage
	r := lib.reason(rego.metadata.rule(), sprintf("%s at %s needs a role that approves %s; person %q has %v", [_decision, lib.status, lib.status, lib.actor_id, sort(_pack_roles_of_actor)]), "actor.roles")
}

_decides_stage if {
	some role in _pack_roles_of_actor
	lib.status in object.get(lib.pack_contract, ["roles", role, "approves"], [])
}

# METADATA
# title: Escalation approved as it is
# description: >-
#   The production lead approves at ESCALATED. An escalation is answered by returning the
#   work (REQUEST_REVISION) or rejecting it: a gate is never waived by approval.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_deciding
	lib.status == "ESCALATED"
	_decision == "APPROVE"
	r := lib.reason(rego.metadata.rule(), "an escalation is answered by returning the work (REQUEST_REVISION) or rejecting it: gates are not waived by approval", "decision")
}

# METADATA
# title: Client confirmation not named
# description: >-
#   The client's APPROVE (or REJECT) names the CLIENT_CONFIRMATION version the client
#   review lead prepared: a confirmation is bound to exactly what the client saw. (Core
#   checks that it is recorded, current and bound to its hash.)
# custom:
#   code: APPROVAL_INCOMPLETE
#   outcome: block
reasons contains r if {
	_deciding
	lib.status == "AWAITING_CLIENT"
	not "CLIENT_CONFIRMATION" in _approval_types
	r := lib.reason(rego.metadata.rule(), sprintf("%s at AWAITING_CLIENT names no CLIENT_CONFIRMATION version (latest is v%d)", [_decision, core.latest_number("CLIENT_CONFIRMATION")]), "artifacts")
}

_invalid_targets contains "a revision request names no artifact type to revise (revise is empty)" if {
	count(_revise_types) == 0
}

_invalid_targets contains msg if {
	some t in _revise_types
	not t in _revisable[lib.status]
	msg := sprintf("%s cannot be returned at %s (returnable: %v)", [t, lib.status, sort(_revisable[lib.status])])
}

_invalid_targets contains msg if {
	some t in _revise_types
	t in _revisable[lib.status]
	core.latest_number(t) == 0
	msg := sprintf("%s has no version to return", [t])
}

# METADATA
# title: Revision target invalid
# description: >-
#   A REQUEST_REVISION names the artifact types to return, each one the stage may
#   return and that has a version.
# custom:
#   code: REVISION_TARGET_INVALID
#   outcome: block
reasons contains r if {
	_deciding
	_decision == "REQUEST_REVISION"
	some msg in _invalid_targets
	r := lib.reason(rego.metadata.rule(), msg, "revise")
}

# METADATA
# title: Revision requested by a person
# description: >-
#   The client or the production lead returns named artifacts to their producers; the
#   chain runs again from the most upstream producer, every later agent checking and
#   redoing its part.
# custom:
#   code: REVISION_REQUESTED
#   outcome: revise
reasons contains r if {
	_deciding
	_decides_stage
	_decision == "REQUEST_REVISION"
	count(_invalid_targets) == 0
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%q returns %v at %s: %s", [lib.actor_id, sort(_revise_types), lib.status, object.get(lib.request, "comment", "no comment")]), "revise", "revise")
}

# METADATA
# title: Rejected by a person
# description: The client (at AWAITING_CLIENT) or the production lead (at ESCALATED) rejects the work; the workflow ends REJECTED.
# custom:
#   code: HUMAN_REJECTED
#   outcome: fail
reasons contains r if {
	_deciding
	_decides_stage
	_decision == "REJECT"
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%q rejects at %s: %s", [lib.actor_id, lib.status, object.get(lib.request, "comment", "no comment")]), "decision", "fail")
}

# --- proposals -----------------------------------------------------------------------

_approval_event(stage) := {
	"type": "approval_recorded",
	"decision": _decision,
	"by": lib.actor_id,
	"artifacts": _approval_refs,
	"stage": stage,
}

_cc_n := core.latest_number("CLIENT_CONFIRMATION")

# Confirmed: the client confirmation is approved and every approved version of the
# workflow becomes final.
_client_proposal := {
	"outcome": "allow",
	"status_after": "COMPLETED",
	"next": [],
	"events": array.concat(
		[_approval_event("AWAITING_CLIENT"), core.status_event("CLIENT_CONFIRMATION", _cc_n, "approved")],
		array.concat(
			[core.status_event(t, v.ref.version, "final") |
				some t, h in lib.state.artifacts
				some v in h.versions
				v.status == "approved"
			],
			[core.status_event("CLIENT_CONFIRMATION", _cc_n, "final")],
		),
	),
} if {
	_decision == "APPROVE"
}

_client_proposal := _person_return("AWAITING_CLIENT", "client_review") if {
	_decision == "REQUEST_REVISION"
	count(_invalid_targets) == 0
}

# An invalid revision request is blocked by REVISION_TARGET_INVALID.
_client_proposal := {"outcome": "block", "status_after": lib.status} if {
	_decision == "REQUEST_REVISION"
	count(_invalid_targets) > 0
}

_client_proposal := {
	"outcome": "fail",
	"status_after": "REJECTED",
	"events": [_approval_event("AWAITING_CLIENT"), core.status_event("CLIENT_CONFIRMATION", _cc_n, "rejected")],
} if {
	_decision == "REJECT"
}

_escalation_proposal := _person_return("ESCALATED", "escalation") if {
	_decision == "REQUEST_REVISION"
	count(_invalid_targets) == 0
}

_escalation_proposal := {"outcome": "block", "status_after": lib.status} if {
	_decision == "REQUEST_REVISION"
	count(_invalid_targets) > 0
}

_escalation_proposal := {
	"outcome": "fail",
	"status_after": "REJECTED",
	"events": [_approval_event("ESCALATED")],
} if {
	_decision == "REJECT"
}

_escalation_proposal := {"outcome": "block", "status_after": lib.status} if _decision == "APPROVE"

# _person_return returns the named artifacts: a delivered version becomes
# revision_required, an approved one gets an open defect carrying the person's comment
# (check client_review or escalation); at an escalation the named types' return counts
# start again. The chain runs again from the most upstream producer.
_person_return(stage, check) := {
	"outcome": "revise",
	"status_after": _person_upstream,
	"revise": [{"artifact": t, "producer": core.producer(t, "unknown"), "defects": _person_defect_ids(t, stage)} | some t in sort(_revise_types)],
	"next": core.next_with(_person_upstream, {_stages[_person_upstream].producer: {
		"must_know": {"returned": sort(_revise_types), "comment": object.get(lib.request, "comment", ""), "decided_by": lib.actor_id},
		"may_know": {},
	}}),
	"events": array.concat(
		array.concat([_approval_event(stage)], _person_status_events),
		array.concat(
			[_defect_event(_person_defect(t, stage, check), "open") | some t in sort(_revise_types); _person_defects_type(t, stage)],
			_counter_resets(stage),
		),
	),
}

_person_upstream := _upstream_status(_revise_types)

# The returned types' open versions become revision_required; so does the client
# confirmation the client saw, whatever the client returns.
_person_status_events := [core.status_event(t, core.latest_number(t), "revision_required") |
	some t in sort(_revise_types | _confirmation_returned)
	core.latest_status(t) in {"draft", "under_review"}
]

_confirmation_returned := {"CLIENT_CONFIRMATION"} if lib.status == "AWAITING_CLIENT"

else := set()

# A named type whose latest version is approved is marked returned by a defect (the
# client confirmation itself, under review, is returned through its status).
_person_defects_type(t, _) if core.latest_status(t) in core.approved_statuses

_person_defect(t, stage, check) := {
	"id": sprintf("%s@%d/%s", [stage, lib.state.state_version + 1, t]),
	"severity": "S2",
	"artifact": t,
	"check": check,
	"description": sprintf("returned by %q: %s", [lib.actor_id, object.get(lib.request, "comment", "no comment")]),
}

_person_defect_ids(t, stage) := [_person_defect(t, stage, "").id | _person_defects_type(t, stage)]

_counter_resets("ESCALATED") := [{"type": "counter", "name": _return_counter(t), "value": 0} | some t in sort(_revise_types)]

_counter_resets("AWAITING_CLIENT") := []
