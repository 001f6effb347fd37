package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Routing of an accepted handoff: the Orchestrator decides the next allowed agent (seed
# section 6). The output goes to its approval gate when it requires approval, to the
# validation step when it asks for validation, and otherwise to its target's step; an
# enrichment leaves the step where it is. The target receives a context package built
# from the recorded state (references and statuses); the only words of the source it
# receives are the previous output's controlled summary, assumptions and limitations
# (seed sections 4 and 13), bounded by the schema and passed as data: no rule reads them.

_handoff_proposal := _escalation_proposal if {
	_escalating
} else := {"outcome": "block", "status_after": lib.status} if {
	_edge_kind == "invalid"
} else := _conflict_proposal if {
	_conflict_handoff
} else := _route_proposal

# _destination is the step the handoff leads to: its target's step, or for a validation
# handoff the step after the source's.
_destination := _stage_of[_forward_target(_stage_of[_source])] if {
	_edge_kind == "validation"
} else := _stage_of[_target] if {
	_edge_kind in {"forward", "backward", "enrichment"}
	_stage_of[_target]
} else := _route_gate

# _gated_forward holds when the output moves the pipeline forward and requires approval.
_gated_forward if {
	_edge_kind in {"forward", "validation"}
	core.requires_approval(lib.output.type)
	_gate_of[_stage_of[_source]]
}

_route_gate := _gate_of[_stage_of[_source]]

_asks_validation if lib.request.requires_validation == true

_asks_validation if _edge_kind == "validation"

# _route is the status the accepted handoff leads to. An enrichment leaves the step where
# it is, unless it asks for validation: then a person validates it first, as any output.
_route := lib.status if {
	_edge_kind == "enrichment"
	not _asks_validation
} else := _route_gate if {
	_gated_forward
} else := "VALIDATION" if {
	_asks_validation
} else := _destination

_human_route if _route in _human_statuses

_output_status := "under_review" if _human_route

else := "draft"

_validation_status := "pending_human_validation" if _human_route

else := "passed"

# _handoff_counters close the pending retry or resolution the handoff answers.
_handoff_counters := array.concat(
	array.concat(
		[{"type": "counter", "name": sprintf("retry_pending/%s", [_task]), "value": 0} | _retry_pending(_task)],
		[{"type": "counter", "name": sprintf("resolution_pending/%s", [_source]), "value": 0} | _resolution_pending(_source)],
	),
	[{"type": "counter", "name": sprintf("rework_pending/%s", [_source]), "value": 0} | core.counter(sprintf("rework_pending/%s", [_source])) > 0],
)

# A clarification return records the rework order the earlier step answers.
_return_order := _rework_content("clarification_return", lib.request.output_summary, _target, _stage_of[_target], _produces(_target), core.output_ref) if {
	_edge_kind == "backward"
}

_return_events := _rework_events(_return_order) if _return_order

else := []

_return_entries := [{"ref": _rework_ref(_return_order), "status": "approved"}] if _return_order

else := []

_output_entry := {"ref": core.output_ref, "status": _output_status}

_previous_output := {
	"ref": core.output_ref,
	"output_summary": lib.request.output_summary,
	"assumptions": object.get(lib.request, "assumptions", []),
	"limitations": object.get(lib.request, "limitations", []),
	"confidence_score": object.get(lib.request, "confidence_score", 0),
	"requires_validation": object.get(lib.request, "requires_validation", false),
}

_route_next := [_next_human(_route, [_output_entry])] if {
	_human_route
} else := [_next_agent(_target, _source, _route, array.concat([_output_entry], _return_entries), {"previous_output": _previous_output})]

_route_proposal := {
	"outcome": _route_outcome,
	"status_after": _route,
	"requires_human_review": _route_outcome == "await_human",
	"next": _route_next,
	"events": array.concat(
		array.concat(core.supersede_open(lib.output.type), [_output_event(_output_status, _validation_status, _route)]),
		array.concat(array.concat([core.handoff_event], _handoff_counters), _return_events),
	),
} if {
	lib.output
}

_route_outcome := "await_human" if _human_route

else := "allow"
