package handoff.assessment

import data.handoff.core
import data.handoff.lib

# People's decisions (seed sections 2, 6 and 10): at the approval gates (the SoA, the
# findings, the report), at the validation step and at human review. APPROVE lets the
# work go on, REQUEST_REVISION returns it to its producer, REJECT ends the assessment.
# Who may decide is core's check (roles, hashes, latest versions, self approval).

_deciding if {
	core.ready
	input.request.kind == "approval"
	lib.status in (_gates | {"VALIDATION", "HUMAN_REVIEW"})
}

_decision_kind := object.get(lib.request, "decision", "")

_approval_refs := [r | some r in object.get(lib.request, "artifacts", []); is_object(r)]

# _gate_type is the artifact type a person approves at each gate.
_gate_type := {name: g.artifact | some name, g in _approval_gates}

# _awaiting is the version a person decides on: the gate's artifact, or the version
# waiting at the validation step.
_awaiting := v if {
	lib.status in _gates
	v := core.latest_version(_gate_type[lib.status])
	v.status == "under_review"
} else := v if {
	lib.status == "VALIDATION"
	some t, _ in lib.state.artifacts
	v := core.latest_version(t)
	v.status == "under_review"
	v.meta.route == "VALIDATION"
}

# METADATA
# title: Approval for another stage
# description: >-
#   A person's decision names the stage the workflow waits at (an approval gate,
#   VALIDATION or HUMAN_REVIEW): a decision for another stage does not apply.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_deciding
	object.get(lib.request, "stage", "") != lib.status
	r := lib.reason(rego.metadata.rule(), sprintf("the workflow waits at %s; the decision names stage %q", [lib.status, object.get(lib.request, "stage", "")]), "stage")
}

_incomplete contains sprintf("the decision at %s names no version of %s (awaiting v%v)", [lib.status, _awaiting.ref.type, _awaiting.ref.version]) if {
	lib.status != "HUMAN_REVIEW"
	not _names_awaiting
}

_incomplete contains sprintf("nothing waits for a decision at %s", [lib.status]) if {
	lib.status != "HUMAN_REVIEW"
	not _awaiting
}

_incomplete contains "a revision at HUMAN_REVIEW names no artifact type to revise" if {
	lib.status == "HUMAN_REVIEW"
	_decision_kind == "REQUEST_REVISION"
	count(_revise_types) == 0
}

_incomplete contains sprintf("%s is not an agent's artifact type", [t]) if {
	lib.status == "HUMAN_REVIEW"
	_decision_kind == "REQUEST_REVISION"
	some t in _revise_types
	not _stage_of[core.producer(t, "unknown")]
}

_names_awaiting if {
	some r in _approval_refs
	_same_version(r, _awaiting.ref)
}

_revise_types := {t | some t in object.get(lib.request, "revise", [])}

# _decided_ref holds for the version the person's decision is about: the version waiting
# at a gate or the validation step. At human review a person decides on the stage and
# names no version.
_decided_ref(ref) if {
	lib.status != "HUMAN_REVIEW"
	_same_version(ref, _awaiting.ref)
}

_decided_label := sprintf("%s v%v", [_awaiting.ref.type, _awaiting.ref.version]) if {
	lib.status != "HUMAN_REVIEW"
} else := "none: a decision at human review is about the stage"

# METADATA
# title: Decision about a version that does not wait for it
# description: >-
#   A person's decision names a version other than the one waiting for it at a gate or
#   the validation step, or names a version at human review: the workflow records a
#   person's decision only for what the person was asked to decide, never an approval
#   of another artifact passed along with it.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_deciding
	some i, ref in _approval_refs
	not _decided_ref(ref)
	r := lib.reason(rego.metadata.rule(), sprintf("the decision at %s names %s v%v, which does not wait for it (waiting: %s)", [lib.status, ref.type, ref.version, _decided_label]), sprintf("artifacts[%d]", [i]))
}

_revise_problems contains sprintf("a %s decision names types to revise (%v): only a revision request returns work", [_decision_kind, sort(_revise_types)]) if {
	_decision_kind != "REQUEST_REVISION"
	count(_revise_types) > 0
}

_revise_problems contains sprintf("at %s a revision returns %s to its producer; revise names %v", [lib.status, _awaiting.ref.type, sort(_revise_types)]) if {
	_decision_kind == "REQUEST_REVISION"
	lib.status != "HUMAN_REVIEW"
	count(_revise_types) > 0
	_revise_types != {_awaiting.ref.type}
}

# METADATA
# title: Decision contradicts its own revise list
# description: >-
#   A person's decision and the types it names to revise disagree: an approval or a
#   rejection that names types to revise, or a revision at a gate or the validation step
#   that names another type than the version waiting (which is what returns to its
#   producer). A decision is taken as a whole, never half applied.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_deciding
	some msg in _revise_problems
	r := lib.reason(rego.metadata.rule(), msg, "revise")
}

# METADATA
# title: Decision incomplete
# description: >-
#   A person's decision at a gate or at the validation step names the version waiting for
#   it; a revision requested at human review names the artifact types to revise. (Core
#   checks that each named version is recorded, current and bound to its hash.)
# custom:
#   code: APPROVAL_INCOMPLETE
#   outcome: block
reasons contains r if {
	_deciding
	some msg in _incomplete
	r := lib.reason(rego.metadata.rule(), msg, "artifacts")
}

# METADATA
# title: Revision requested by a person
# description: >-
#   A person returns the work to its producer: the version waiting is marked
#   revision_required and its producer works again with the person's decision in its
#   context.
# custom:
#   code: REVISION_REQUESTED
#   outcome: revise
reasons contains r if {
	_deciding
	_decision_kind == "REQUEST_REVISION"
	count(_incomplete) == 0
	count(_revise_problems) == 0
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%q requests a revision at %s", [lib.actor_id, lib.status]), "decision", "revise")
}

# METADATA
# title: Rejected by a person
# description: A person rejects at a gate, the validation step or human review; the assessment ends (REJECTED).
# custom:
#   code: HUMAN_REJECTED
#   outcome: fail
reasons contains r if {
	_deciding
	_decision_kind == "REJECT"
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%q rejects at %s; the assessment ends", [lib.actor_id, lib.status]), "decision", "fail")
}

# --- proposals -------------------------------------------------------------------------

_approval_event := object.union(
	{"type": "approval_recorded", "decision": _decision_kind, "by": lib.actor_id, "artifacts": _approval_refs},
	{"stage": lib.status},
)

_decision_context := object.union(
	{"decision": _decision_kind, "by": lib.actor_id, "stage": lib.status},
	{"comment": c | c := lib.request.comment},
)

_approval_proposal := _approve_proposal if _decision_kind == "APPROVE"

_approval_proposal := _revision_proposal if _decision_kind == "REQUEST_REVISION"

_approval_proposal := _reject_proposal if _decision_kind == "REJECT"

# _approve_status is where an approval sends the work.
_approve_status := _after_gate[lib.status] if {
	lib.status in _gates
} else := _awaiting.meta.resume_status if {
	lib.status == "VALIDATION"
} else := core.latest_version("ESCALATION_RECORD").content.from_status if {
	lib.status == "HUMAN_REVIEW"
}

# _approve_events: the version decided on becomes approved (superseding an older approved
# one); at human review the escalated task gets a fresh retry budget.
_approve_events := array.concat(
	[_approval_event, core.status_event(_awaiting.ref.type, _awaiting.ref.version, "approved")],
	core.supersede_approved(_awaiting.ref.type, _awaiting.ref.version),
) if {
	lib.status != "HUMAN_REVIEW"
} else := array.concat([_approval_event], _fresh_budget)

_fresh_budget := [{"type": "counter", "name": n, "value": 0} |
	task := core.latest_version("ESCALATION_RECORD").content.task
	task != ""
	some n in [core.retry_counter(task), sprintf("retry_pending/%s", [task])]
]

_approved_entries := [{"ref": _awaiting.ref, "status": "approved"}] if {
	lib.status != "HUMAN_REVIEW"
} else := []

_approve_next := [] if {
	_approve_status == "COMPLETED"
} else := [_next_agent(_stage_agent(_approve_status), "orchestrator", _approve_status, _approved_entries, {"approval_decision": _decision_context})]

_approve_proposal := {
	"outcome": "allow",
	"status_after": _approve_status,
	"next": _approve_next,
	"events": _approve_events,
}

# _revision_status is where a revision sends the work: the producer of the version
# waiting, or at human review the producer of the most upstream type named.
_revision_status := _stage_of[_awaiting.producer] if {
	lib.status != "HUMAN_REVIEW"
} else := _pipeline[min({_stage_index[_stage_of[core.producer(t, "unknown")]] | some t in _revise_types})]

_revision_types := {_awaiting.ref.type} if {
	lib.status != "HUMAN_REVIEW"
} else := _revise_types

_revision_events := array.concat(
	array.concat(
		array.concat([_approval_event], [core.status_event(t, v.ref.version, "revision_required") |
			some t in sort(_revision_types)
			v := core.latest_version(t)
			v.status in {"draft", "under_review"}
		]),
		_revision_budget,
	),
	_rework_events(_revision_order),
)

_revision_agent := _stage_agent(_revision_status)

_revision_type := _produces(_revision_agent)

# _revision_order is the rework order of a person's revision request.
_revision_order := _rework_content(
	"revision_request",
	object.get(lib.request, "comment", sprintf("revision requested at %s", [lib.status])),
	_revision_agent,
	_revision_status,
	_revision_type,
	_returned_version,
)

_returned_version := _awaiting.ref if {
	lib.status != "HUMAN_REVIEW"
} else := core.latest_version(_revision_type).ref if {
	core.latest_version(_revision_type)
} else := null

_revision_budget := _fresh_budget if lib.status == "HUMAN_REVIEW"

else := []

_revision_proposal := {
	"outcome": "revise",
	"status_after": _revision_status,
	"revise": [{"artifact": t, "producer": core.producer(t, "unknown"), "defects": []} | some t in sort(_revision_types)],
	"next": [_next_agent(_revision_agent, "orchestrator", _revision_status, [{"ref": _rework_ref(_revision_order), "status": "approved"}], {"approval_decision": _decision_context})],
	"events": _revision_events,
}

_reject_proposal := {
	"outcome": "fail",
	"status_after": "REJECTED",
	"events": array.concat([_approval_event], [core.status_event(_awaiting.ref.type, _awaiting.ref.version, "rejected") | lib.status != "HUMAN_REVIEW"]),
}
