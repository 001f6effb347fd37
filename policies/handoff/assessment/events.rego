package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Events, versions and context packages the proposals are built from.
#
# Versioning (seed section 11): every accepted handoff records a new version of its
# output; its meta is the AgentOutputVersion (version_id, previous_version_id,
# handoff_id, agent_run_id, artifact_refs, input_hash, output_hash, validation_status,
# trace_id). Observability (section 15): the same meta carries handoff_id, source_agent,
# target_agent, tenant_id, organization_id, assessment_id, task_type, status, trace_id,
# created_at, input_hash and output_hash, plus the handoff latency, the retry count and
# the route taken. Nothing of the "do not record" list is there: no document, secret,
# credential, prompt or raw evidence (the content schemas have no field for them and
# core refuses them anywhere in a request).

_previous_version_id(ref) := _version_id(object.union(ref, {"version": ref.version - 1})) if ref.version > 1

else := null

_handoff_id := h if {
	h := lib.request.handoff_id
	is_string(h)
} else := object.get(lib.request, "request_id", "")

# _observed are the observability fields of section 15 every recorded version carries.
_observed(ref, validation_status, target, route) := {
	"handoff_id": _handoff_id,
	"request_kind": lib.kind,
	"source_agent": object.get(lib.request, "source_agent", lib.actor_id),
	"target_agent": target,
	"tenant_id": object.get(lib.state, "tenant_id", ""),
	"organization_id": object.get(lib.state, "organization_id", ""),
	"assessment_id": object.get(lib.state, "subject_id", ""),
	"task_type": object.get(lib.request, "task_type", lib.kind),
	"status": validation_status,
	"trace_id": _trace,
	"created_at": object.get(lib.request, "created_at", input.now),
	"input_hash": object.get(input, ["derived", "input_hash"], ""),
	"output_hash": object.get(input, ["derived", "output_hash"], ""),
	"version_id": _version_id(ref),
	"previous_version_id": _previous_version_id(ref),
	"validation_status": validation_status,
	"route": route,
}

# _latency_ms is the handoff latency: from the handoff's created_at to the decision.
_latency_ms := max([0, round((time.parse_rfc3339_ns(input.now) - time.parse_rfc3339_ns(lib.request.created_at)) / 1000000)])

# _record_meta is the meta of one of the Orchestrator's records.
_record_meta(ref, validation_status, target, route) := object.union(
	_observed(ref, validation_status, target, route),
	{"agent_run_id": sprintf("orchestrator/%s", [object.get(lib.request, "request_id", "")]), "artifact_refs": []},
)

_record_event(ref, status, content, meta) := {
	"type": "artifact_recorded",
	"ref": ref,
	"status": status,
	"producer": "orchestrator",
	"based_on": [],
	"assumptions": [],
	"limitations": [],
	"content": content,
	"meta": meta,
}

# _output_meta is the AgentOutputVersion of a handoff's output, with its observability
# fields.
_output_meta(validation_status, route) := object.union(
	object.union(
		_observed(core.output_ref, validation_status, _target, route),
		{
			"agent_run_id": lib.request.agent_run_id,
			"artifact_refs": lib.inputs,
			"handoff_type": _handoff_type,
			"confidence_score": object.get(lib.request, "confidence_score", null),
			"requires_validation": object.get(lib.request, "requires_validation", false),
			"retry_count": core.counter(core.retry_counter(_task)),
			"resume_status": _destination_or(route),
		},
	),
	object.union(
		{"latency_ms": l | l := _latency_ms},
		{"limitations_dropped": _drops | count(_drops) > 0},
	),
)

_destination_or(route) := d if {
	d := _destination
} else := route

_output_event(status, validation_status, route) := object.union(core.artifact_event(status), {"meta": _output_meta(validation_status, route)})

# --- rework orders ---------------------------------------------------------------------

_rework_content(kind, reason, to_agent, to_status, type, returned) := object.union(
	{
		"tenant_id": lib.state.tenant_id,
		"organization_id": object.get(lib.state, "organization_id", ""),
		"assessment_id": lib.state.subject_id,
		"trace_id": _trace,
		"kind": kind,
		"requested_by": lib.actor_id,
		"reason": reason,
		"from_status": lib.status,
		"to_agent": to_agent,
		"to_status": to_status,
		"artifact_type": type,
	},
	{"returned": r | r := returned; is_object(r)},
)

_rework_ref(content) := core.next_ref("REWORK_ORDER", "rework-order", content)

# _rework_events record a rework order and mark its agent as owing a rework.
_rework_events(content) := [
	_record_event(_rework_ref(content), "approved", content, _record_meta(_rework_ref(content), "passed", content.to_agent, content.to_status)),
	{"type": "counter", "name": sprintf("rework_pending/%s", [content.to_agent]), "value": 1},
]

# --- context packages --------------------------------------------------------------------

# _pipeline_types are the artifact types the agents produce.
_pipeline_types := {t | some a in _agents; some t in a.produces}

# _relevant_types are the types a target receives by reference: what an agent consumes,
# everything the pipeline produced for a person.
_relevant_types(target) := _consumes(target) if _agents[target]

else := _pipeline_types | {"ASSESSMENT_SCOPE"}

_entry(v) := {"ref": v.ref, "status": v.status}

# _artifact_entries are the given entries and, for every other relevant type, the
# version in force.
_artifact_entries(target, given) := array.concat(given, [_entry(v) |
	some t in sort(_relevant_types(target))
	not t in {e.ref.type | some e in given}
	v := _in_force(t)
])

_approval_statuses(entries) := {e.ref.type: e.status | some e in entries; core.requires_approval(e.ref.type)}

# _open_conflict_flags are the conflicts still open once the decision applies (a
# resolution closes its own).
_open_conflict_flags := [{"conflict_id": id, "conflict_type": c.conflict_type, "status": "open"} |
	some id, c in lib.state.conflicts
	c.status == "open"
	not _closing(id)
]

_closing(id) if {
	input.request.kind == "resolution"
	lib.request.conflict_id == id
}

# _current_content is the content a context reads a type from: the handoff's output when
# it is of that type, else the version in force.
_current_content(type) := lib.content if {
	lib.output.type == type
} else := _content_of(_in_force(type))

_scf_controls := sort({c.control_id | some c in object.get(_current_content("CONTROL_ANALYSIS"), "controls", []); c.in_scope == true})

_official := [{"control_id": m.control_id, "framework": m.framework, "requirement_ref": m.requirement_ref} |
	some m in object.get(_current_content("FRAMEWORK_MAPPING"), "mappings", [])
	m.mapping_status == "official"
	m.requirement_ref
]

_candidate_ids := sort({c.candidate_id | some c in object.get(_current_content("KNOWLEDGE_PACKAGE"), "evidence_candidates", [])})

_context_validation(entries, flags) := "conflict_pending" if {
	some f in flags
	f.status == "open"
} else := "pending_human_validation" if {
	some e in entries
	e.status == "under_review"
} else := "validated" if {
	some e in entries
	e.status in core.approved_statuses
} else := "passed"

# _context_values is everything permitted a target may receive (seed section 13); the
# edge's package (pack.context) picks what it must and may know.
_context_values(target, status_after, given, extra) := object.union(
	{
		"artifacts": entries,
		"workflow_state": status_after,
		"approval_status": _approval_statuses(entries),
		"validation_status": _context_validation(entries, flags),
		"conflict_flags": flags,
		"scf_controls": _scf_controls,
		"official_mappings": _official,
		"kb_evidence_candidates": _candidate_ids,
	},
	object.remove(extra, ["conflict_flags", "restricted"]),
) if {
	entries := _artifact_entries(target, given)
	flags := array.concat(_open_conflict_flags, object.get(extra, "conflict_flags", []))
}

# _restricted_context keeps references only: a restricted retry after a prompt injection
# signal receives no summaries, flags or candidates.
_restricted_context(values) := {k: v | some k, v in values; k in _restricted_keys}

_edge_package(edge, values, extra) := core.context_package(edge, _restricted_context(values)) if {
	object.get(extra, "restricted", false) == true
} else := core.context_package(edge, values)

# _next_agent is the routing answer for an agent: its task and its context package over
# the edge source>agent.
_next_agent(agent, source, status_after, given, extra) := {
	"agent": agent,
	"task": _stage_task(_stage_of[agent]),
	"context": _edge_package(sprintf("%s>%s", [source, agent]), _context_values(agent, status_after, given, extra), extra),
}

# _next_human is the routing answer for a human status: the role that decides there.
_next_human(status, given) := _next_human_with(status, given, {})

_next_human_with(status, given, extra) := {
	"agent": a.agent,
	"task": a.task,
	"context": core.context_package(sprintf("orchestrator>%s", [a.agent]), _context_values(a.agent, status, given, extra)),
} if {
	some a in core.actors(status)
}
