package handoff.video

import data.handoff.core
import data.handoff.lib

# Handoffs: a producer delivers one artifact of its status. The policy computes the
# delivered artifact's completeness, machine gates and skill runs at once (the seed's
# "对照质量门" before the next agent starts); once every artifact of the edge is
# delivered, it checks the edge as a whole and routes the receiving agent. Anything
# missing or failed returns the work to its producer, who resubmits a new version.

# _producer_handoff holds for a handoff by the current status's producer, with the task
# the status routes, of one of the status's artifact types: the handoffs whose content
# the policy judges. Any other handoff is out of sequence (or fills a gap) and blocked.
_producer_handoff if {
	core.ready
	input.request.kind == "handoff"
	stage := _stages[lib.status]
	lib.request.source_agent == stage.producer
	lib.output.type in stage.types
	core.routed(lib.request.source_agent, lib.request.task_type)
}

# _edge_types are the artifact types of the edge of the current status (a production
# status or its check status).
_edge_types := _stages[lib.status].types if _stages[lib.status]

else := _stages[_check_of[lib.status]].types if _check_status

else := []

# _completes holds when this handoff delivers the last artifact of its edge that is not
# current: the edge is checked as a whole.
_completes if {
	_producer_handoff
	every t in _edge_types {
		_edge_ready(t)
	}
}

_edge_ready(t) if t == lib.output.type

_edge_ready(t) if _current(t)

# _scope is what the policy checks: the delivered artifact, the whole edge when the
# handoff completes it, every artifact of the edge at a check.
_scope := {t | some t in _edge_types} if _completes

else := {lib.output.type} if _producer_handoff

else := {t | some t in _edge_types} if _intake

else := set()

# _work_failures are every failed item the policy computes itself.
_work_failures := (_incomplete | _gate_failures) | _attestation_failures

_handoff_returned := {f.artifact | some f in _work_failures}

# --- inputs ------------------------------------------------------------------------------

# _required_inputs are the artifact types each output is made from.
# The table is config.required_inputs in contracts/video/config.cue.
_required_inputs := object.get(lib.pack_config, "required_inputs", {})

# _return_record is the record that returned a type's latest version: the check of its
# edge or the internal review opinion (which list it under returned), or the client
# confirmation the client returned it with. A returned producer's new version names it.
_return_record(type) := v.ref if {
	_returned(type)
	v := core.latest_version(_stages[_type_stage[type]].record)
	_lists_returned(v, type)
} else := v.ref if {
	_returned(type)
	v := core.latest_version("REVIEW_OPINION")
	_lists_returned(v, type)
} else := core.latest_version("CLIENT_CONFIRMATION").ref if {
	some id in _open_defects(type)
	lib.state.defects[id].defect.check == "client_review"
} else := core.latest_version(type).ref if {
	type == "CLIENT_CONFIRMATION"
	core.latest_status(type) == "revision_required"
	lib.state.approvals.CLIENT_CONFIRMATION.decision == "REQUEST_REVISION"
}

_lists_returned(v, type) if {
	v.content.result in {"return", "escalate"}
	some r in v.content.returned
	r.type == type
	r.version == core.latest_number(type)
}

_missing_inputs contains [t, sprintf("%s v%v is made from %s, but input_artifacts names none", [lib.output.type, lib.output.version, t])] if {
	some t in object.get(_required_inputs, lib.output.type, [])
	not t in lib.input_types
}

_missing_inputs contains [rec.type, sprintf("%s v%d was returned by %s v%d; the new version names that record among its inputs", [lib.output.type, core.latest_number(lib.output.type), rec.type, rec.version])] if {
	rec := _return_record(lib.output.type)
	not _names(rec)
}

_names(rec) if {
	some r in lib.inputs
	r.type == rec.type
	r.version == rec.version
}

# METADATA
# title: Required input missing
# description: >-
#   The handoff does not name an input its output is made from (A2 from A1 and the skill
#   routing, A3 from A1, A6 from A2 and A3, A4 from A6, A5 from A4 and A6, PROMPT from A4,
#   A5 and the skill routing, ...), or a returned artifact's new version does not name the
#   checklist record, review opinion or client confirmation that returned it.
# custom:
#   code: INPUT_MISSING
#   outcome: block
reasons contains r if {
	_producer_handoff
	some [_, msg] in _missing_inputs
	r := lib.reason(rego.metadata.rule(), msg, "input_artifacts")
}

# METADATA
# title: Input the agent may not consume
# description: >-
#   A handoff names an input artifact type its source agent does not consume (the
#   registry's consumes list): every agent works only from the artifacts its input
#   contract names. A missing registry permits nothing.
# custom:
#   code: INPUT_NOT_PERMITTED
#   outcome: block
reasons contains r if {
	_producer_handoff
	some i, ref in lib.inputs
	not ref.type in _consumes(lib.request.source_agent)
	r := lib.reason(rego.metadata.rule(), sprintf("%s does not consume %s (consumes %v)", [lib.request.source_agent, ref.type, sort(_consumes(lib.request.source_agent))]), sprintf("input_artifacts[%d]", [i]))
}

# METADATA
# title: Input not accepted by its receiving agent
# description: >-
#   A handoff builds on a version of another producer's artifact that its receiving
#   agent has not accepted (approved at the edge's check): an unchecked or returned
#   artifact is never worked on downstream. (The contract's requires_approval is false so
#   that a producer may build on its own drafts of the same status; this rule takes its
#   place.)
# custom:
#   code: ARTIFACT_NOT_APPROVED
#   outcome: block
reasons contains r if {
	_producer_handoff
	some i, ref in lib.inputs
	not ref.type in _record_types
	core.producer(ref.type, "unknown") != lib.request.source_agent
	v := core.artifact_version(ref.type, ref.version)
	not v.status in core.approved_statuses
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v is %s: %s builds only on versions its receiving agent accepted", [ref.type, ref.version, v.status, lib.request.source_agent]), sprintf("input_artifacts[%d]", [i]))
}

# METADATA
# title: Input returned to its producer
# description: >-
#   A producer builds on its own artifact while that artifact is returned (revision
#   required, rejected, superseded, or approved with open defects): it delivers the
#   artifact's new version first.
# custom:
#   code: ARTIFACT_NOT_APPROVED
#   outcome: block
reasons contains r if {
	_producer_handoff
	some i, ref in lib.inputs
	not ref.type in _record_types
	core.producer(ref.type, "unknown") == lib.request.source_agent
	v := core.artifact_version(ref.type, ref.version)
	_own_input_problem(v)
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v %s: deliver its new version before building on it", [ref.type, ref.version, _own_input_problem(v)]), sprintf("input_artifacts[%d]", [i]))
}

_own_input_problem(v) := sprintf("is %s", [v.status]) if {
	v.status in {"revision_required", "rejected", "superseded"}
} else := sprintf("has open defects %v", [sort(_open_defects(v.ref.type))]) if {
	count(_open_defects(v.ref.type)) > 0
}

# METADATA
# title: New version not linked to the one it corrects
# description: >-
#   A new version (2 or more) says which version it corrects (supersedes) and why
#   (justification): the producer resubmits a traceable new version, never an anonymous
#   replacement. Core checks that supersedes is the latest version.
# custom:
#   code: VERSION_UNLINKED
#   outcome: block
reasons contains r if {
	_producer_handoff
	lib.output.version > 1
	some [field, msg] in _unlinked
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v %s", [lib.output.type, lib.output.version, msg]), sprintf("output.%s", [field]))
}

_unlinked contains ["supersedes", "does not name the version it supersedes"] if not is_number(object.get(lib.output, "supersedes", null))

_unlinked contains ["justification", "does not say why it corrects the previous version (justification)"] if not lib.non_blank(object.get(lib.output, "justification", ""))

# --- proposals -----------------------------------------------------------------------------

_out_type := lib.output.type

_stage_now := _stages[lib.status]

# _delivered_ok holds when the delivered artifact itself passed.
_delivered_ok if not _out_type in _handoff_returned

# _output_meta is what the policy keeps with the delivered version: the result of each
# gate it computed and the producer's attestations.
_output_meta := {
	"gates": [{"id": g, "passed": _gate_passed(_out_type, g)} | some g in sort(_handoff_gates)],
	"attestations": _handoff_attestations,
	"failed": _sorted_reasons({f.reason | some f in _work_failures; f.artifact == _out_type}),
}

_handoff_gates := (({g |
	some g in object.get(lib.pack_contract, ["artifacts", _out_type, "gates"], [])
	not _judgement_gates[_out_type][g]
} | {_completeness_gate[_out_type]}) | {i |
	some i, types in _item_artifacts
	_out_type in types
	not i in _judged_items
}) | {f.reason.gate | some f in _work_failures; f.artifact == _out_type}

# _judged_items are the checklist items that include a judgement gate: decided at the
# check, not at the handoff.
_judged_items := {i | some _, gates in _judgement_gates; some _, i in gates}

_gate_passed(type, g) := false if _gate_failed(type, g)

else := true

_gate_failed(type, g) if {
	some f in _work_failures
	f.artifact == type
	f.reason.gate == g
}

_gate_failed(type, g) if {
	some f in _work_failures
	f.artifact == type
	_item_of_gate[f.reason.gate] == g
}

# _delivery_events record the delivered version (returned at once when it failed) and,
# when it passed, close its open defects and count the handoff as accepted.
_delivery_events := array.concat(
	array.concat(
		array.concat(core.supersede_open(_out_type), _supersede_approved_if(_recorded_status)),
		[object.union(core.artifact_event(_recorded_status), {"meta": _output_meta})],
	),
	_accepted_events,
)

_supersede_approved_if("approved") := core.supersede_approved(_out_type, lib.output.version)

_supersede_approved_if("under_review") := []

# The raw requirements have no checklist: they stand once complete.
_recorded_status := "approved" if {
	_delivered_ok
	lib.status == "INTAKE"
} else := "under_review"

_accepted_events := array.concat(array.concat(_close_defects(_out_type), [core.handoff_event]), _retry_settled) if _delivered_ok

else := [core.status_event(_out_type, lib.output.version, "revision_required"), {"type": "counter", "name": _return_counter(_out_type), "delta": 1}]

# _retry_settled clears the pending retry of the handoff's task: the work arrived, so a
# later failure of the task is a new one.
_retry_settled := [{"type": "counter", "name": _retry_due_counter(lib.request.task_type), "value": 0} |
	core.counter(_retry_due_counter(lib.request.task_type)) > 0
]

# _other_returns return the other artifacts of the edge that failed the edge's check.
_other_returns := {t | some t in _handoff_returned; t != _out_type}

_handoff_summary := sprintf("returned at the handoff of %s v%v", [_out_type, lib.output.version])

_handoff_return_events := array.concat(_delivery_events, _return_events(_other_returns, sprintf("%s@%d", [_out_type, lib.output.version]), _handoff_summary))

# _after is where a completed edge goes: its check status, or the next status.
_after := _stage_now.check if _stage_now.check

else := _stage_now.after

_handoff_proposal := {
	"outcome": _after_outcome,
	"status_after": _after,
	"next": core.next_with(_after, _work_contexts(_after)),
	"events": _delivery_events,
	"requires_human_review": _after == "AWAITING_CLIENT",
} if {
	count(_work_failures) == 0
	_completes
} else := {
	"outcome": "allow",
	"status_after": lib.status,
	"next": core.next_with(lib.status, {_stage_now.producer: _remaining_context}),
	"events": _delivery_events,
} if {
	count(_work_failures) == 0
} else := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": core.next_with("ESCALATED", {"production_lead": _failed_context(_work_failures)}),
	"events": _handoff_return_events,
	"requires_human_review": true,
	"reasons": [_cycles_reason(_handoff_returned)],
} if {
	count(_exhausted(_handoff_returned)) > 0
} else := {
	"outcome": "revise",
	"status_after": lib.status,
	"revise": [{"artifact": t, "producer": core.producer(t, "unknown"), "defects": []} | some t in sort(_handoff_returned)],
	"next": core.next_with(lib.status, {_stage_now.producer: _failed_context(_work_failures)}),
	"events": _handoff_return_events,
}

_after_outcome := "await_human" if _after == "AWAITING_CLIENT"

else := "allow"

# _remaining_context tells the producer what its edge still needs.
_remaining_context := {
	"must_know": {"remaining": [t | some t in _edge_types; not _edge_ready(t)]},
	"may_know": {},
}
