package handoff.assessment

import data.handoff.core
import data.handoff.lib

# The HandoffPayload (seed section 4) and the handoff rules of section 7 that core does
# not already check: structured output present, unique handoff_id, assessment scope and
# trace preserved, the handoff type the edge makes it, the target the pipeline routes to,
# the inputs each step works from, versions linked, no repeated output.

# METADATA
# title: Handoff without structured output
# description: >-
#   Every handoff carries the source agent's structured output (output: the new artifact
#   version whose content is validated against its schema). Free text without schema is
#   never passed on.
# custom:
#   code: OUTPUT_MISSING
#   outcome: block
reasons contains r if {
	_handoff
	not lib.output
	r := lib.reason(rego.metadata.rule(), sprintf("handoff %s>%s (%s) carries no structured output", [_source, _target, object.get(lib.request, "task_type", "")]), "output")
}

# _used_handoff_ids are the handoff_ids of the handoffs already accepted.
_used_handoff_ids contains id if {
	some h in lib.state.artifacts
	some v in h.versions
	v.meta.request_kind == "handoff"
	id := v.meta.handoff_id
}

# METADATA
# title: handoff_id reused
# description: >-
#   handoff_id identifies one handoff: an accepted handoff already carries it.
# custom:
#   code: HANDOFF_ID_REUSED
#   outcome: block
reasons contains r if {
	_handoff
	lib.request.handoff_id in _used_handoff_ids
	r := lib.reason(rego.metadata.rule(), sprintf("handoff_id %q was already used by an accepted handoff of workflow %q", [lib.request.handoff_id, object.get(lib.state, "workflow_id", "")]), "handoff_id")
}

# METADATA
# title: Assessment mismatch
# description: >-
#   The request names another assessment than the workflow's (its subject): tenant_id,
#   organization_id and assessment_id are preserved on every request.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	core.ready
	lib.kind != "start"
	object.get(lib.request, "assessment_id", "") != lib.state.subject_id
	r := lib.gate_reason(rego.metadata.rule(), sprintf("request names assessment %q, not assessment %q of workflow %q", [object.get(lib.request, "assessment_id", ""), lib.state.subject_id, object.get(lib.state, "workflow_id", "")]), "assessment_id", "S20-SCOPE", "block")
}

# METADATA
# title: Another assessment's data inside the request
# description: >-
#   An assessment_id inside the request body (output content, context) names another
#   assessment: data outside the assessment never passes a handoff.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_foreign_assessment
	walk(lib.request, [path, value])
	count(path) > 1
	path[count(path) - 1] == "assessment_id"
	is_string(value)
	value != lib.state.subject_id
	p := _path_string(path)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s is %q, not the workflow's assessment %q", [p, value, lib.state.subject_id]), p, "S20-SCOPE", "block")
}

# _foreign_assessment holds when an object inside the request body names another
# assessment; found without building paths, so a clean request never pays for them.
_foreign_assessment if {
	core.ready
	lib.kind != "start"
	_other_assessment_ids
	some k, part in lib.request
	k != "assessment_id"
	walk(part, [_, o])
	v := o.assessment_id
	is_string(v)
	v != lib.state.subject_id
}

# _other_assessment_ids holds when the request may hold an assessment_id other than its
# own and its output content's naming the workflow's assessment: the encoded request
# names the key more often (every assessment_id key is encoded as "assessment_id":, and a
# string never holds that text unescaped), so a request without one is never walked.
_other_assessment_ids if count(indexof_n(json.marshal(lib.request), `"assessment_id":`)) > count(_own_assessment_ids)

_own_assessment_ids contains "request" if "assessment_id" in object.keys(lib.request)

_own_assessment_ids contains "content" if lib.request.output.content.assessment_id == lib.state.subject_id

_scope_frameworks := {f | some f in object.get(_scope, "frameworks", [])}

_scope_domains := {d | some d in object.get(_scope, "control_domains", [])}

# _scoped_parts are the parts of a handoff whose frameworks and controls must be in scope.
_scoped_parts contains ["output.content", lib.content] if _judged

_scoped_parts contains ["context", c] if {
	_handoff
	c := lib.request.context
	is_object(c)
}

# _named_frameworks and _named_controls are the frameworks and controls a handoff names, without paths.
_scoped_objects := [o |
	some [_, part] in _scoped_parts
	walk(part, [_, o])
	is_object(o)
]

# _named are [key, value] for every framework and control key of a scoped object.
_named := [[k, v] |
	some o in _scoped_objects
	some k, v in object.filter(o, {"framework", "control_id", "control_ids", "scf_controls"})
]

_named_frameworks contains v if some ["framework", v] in _named

_named_controls contains v if some ["control_id", v] in _named

_named_controls contains v if {
	some [k, l] in _named
	k in {"control_ids", "scf_controls"}
	some v in l
}

# A KNOWLEDGE_PACKAGE restates the scope it covers: its frameworks and domains.
_named_frameworks contains v if {
	_judged
	some v in object.get(lib.content, ["scope", "frameworks"], [])
}

_named_domains contains v if {
	_judged
	some v in object.get(lib.content, ["scope", "control_domains"], [])
}

_scope_exceeded if {
	some v in _named_domains
	not v in _scope_domains
}

_out_of_scope contains [sprintf("output.content.scope.frameworks[%d]", [i]), sprintf("framework %q is outside the assessment scope %v", [v, sort(_scope_frameworks)])] if {
	_scope_exceeded
	_judged
	some i, v in object.get(lib.content, ["scope", "frameworks"], [])
	not v in _scope_frameworks
}

_out_of_scope contains [sprintf("output.content.scope.control_domains[%d]", [i]), sprintf("domain %q is outside the assessment's domains %v", [v, sort(_scope_domains)])] if {
	_scope_exceeded
	_judged
	some i, v in object.get(lib.content, ["scope", "control_domains"], [])
	not v in _scope_domains
}

# _scope_exceeded holds when a named framework or control is outside the scope: only
# then are paths built.
_scope_exceeded if {
	some v in _named_frameworks
	not v in _scope_frameworks
}

_scope_exceeded if {
	some v in _named_controls
	is_string(v)
	not _domain(v) in _scope_domains
}

# _out_of_scope are [path, message] for every framework or control outside the scope.
_out_of_scope contains [p, sprintf("framework %q is outside the assessment scope %v", [value, sort(_scope_frameworks)])] if {
	_scope_exceeded
	some [prefix, part] in _scoped_parts
	walk(part, [path, value])
	count(path) > 0
	path[count(path) - 1] == "framework"
	is_string(value)
	not value in _scope_frameworks
	p := sprintf("%s%s", [prefix, _rel_path(path)])
}

_out_of_scope contains [p, sprintf("control %q is outside the assessment's domains %v", [value, sort(_scope_domains)])] if {
	_scope_exceeded
	some [prefix, part] in _scoped_parts
	walk(part, [path, value])
	count(path) > 0
	_control_key(path)
	is_string(value)
	not _domain(value) in _scope_domains
	p := sprintf("%s%s", [prefix, _rel_path(path)])
}

_control_key(path) if path[count(path) - 1] == "control_id"

_control_key(path) if {
	count(path) > 1
	path[count(path) - 2] in {"control_ids", "scf_controls"}
	is_number(path[count(path) - 1])
}

_domain(control) := split(control, "-")[0]

# METADATA
# title: Outside the assessment scope
# description: >-
#   A framework or control in the output or the context is outside the scope the
#   assessment was started with (ASSESSMENT_SCOPE frameworks and control domains): the
#   handoff transfers only context within the tenant and the assessment.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	some [p, msg] in _out_of_scope
	r := lib.gate_reason(rego.metadata.rule(), msg, p, "S20-SCOPE", "block")
}

# METADATA
# title: Trace not preserved
# description: >-
#   Every request of an assessment carries the assessment's trace_id (the trace its start
#   recorded): the correlation is never broken, and a retry preserves it. An assessment
#   without a recorded trace accepts nothing (fail closed).
# custom:
#   code: TRACE_MISMATCH
#   outcome: block
reasons contains r if {
	core.ready
	lib.kind != "start"
	lib.non_blank(_trace)
	not _trace == _assessment_trace
	r := lib.gate_reason(rego.metadata.rule(), _trace_message, "trace_id", "S20-TRACE", "block")
}

_trace_message := sprintf("trace_id %q is not the assessment's trace %q", [_trace, _assessment_trace]) if _assessment_trace

else := sprintf("workflow %q has no recorded assessment trace (ASSESSMENT_SCOPE v1)", [object.get(lib.state, "workflow_id", "")])

# --- edges and handoff types -----------------------------------------------------------

# _edge_kind says what the handoff's edge is: the validation step, the pipeline's next
# step (forward), a registered return to an earlier step (backward), an enrichment of the
# agent working now by an earlier step's agent, or none of these (invalid).
_edge_kind := "forward" if {
	input.request.kind == "handoff"
	_current_actor(_source)
	_target == _forward_target(_stage_of[_source])
} else := "validation" if {
	input.request.kind == "handoff"
	_validator(_target)
} else := "backward" if {
	input.request.kind == "handoff"
	_current_actor(_source)
	_target in _hands_to(_source)
	_stage_index[_stage_of[_target]] < _stage_index[_stage_of[_source]]
} else := "enrichment" if {
	input.request.kind == "handoff"
	not _current_actor(_source)
	_current_actor(_target)
	_target in _hands_to(_source)
	_stage_index[_stage_of[_source]] < _stage_index[_stage_of[_target]]
} else := "invalid"

_task := object.get(lib.request, "task_type", "")

# _expected_type is the handoff type the state and the edge make a handoff: the retry a
# failure granted, the new handoff after a conflict resolution, else what the edge is.
_expected_type := "retry" if {
	_retry_pending(_task)
} else := "conflict_resolution" if {
	_resolution_pending(_source)
} else := "validation" if {
	_edge_kind == "validation"
} else := "enrichment" if {
	_edge_kind == "enrichment"
} else := "sequential"

_retry_pending(task) if core.counter(sprintf("retry_pending/%s", [task])) > 0

_resolution_pending(agent) if core.counter(sprintf("resolution_pending/%s", [agent])) > 0

# METADATA
# title: Handoff type does not match
# description: >-
#   The handoff_type is not what the state and the edge make the handoff: retry after a
#   granted retry, conflict_resolution after a resolution sent the work back, validation
#   to the validation step, enrichment from an earlier step to the agent working now,
#   sequential otherwise (seed section 5).
# custom:
#   code: HANDOFF_TYPE_INVALID
#   outcome: block
reasons contains r if {
	_handoff
	_expected
	_handoff_type != _expected_type
	r := lib.reason(rego.metadata.rule(), sprintf("handoff %s>%s is %s handoff, not %s", [_source, _target, lib.with_article(_expected_type), lib.with_article(_handoff_type)]), "handoff_type")
}

_valid_targets := sort((({t |
	some t in _hands_to(_source)
	_stage_index[_stage_of[t]] < _stage_index[_stage_of[_source]]
} | {t | t := _forward_target(_stage_of[_source])}) | {t | some t in _hands_to(_source); _validator(t)}))

# METADATA
# title: Output routed to the wrong agent
# description: >-
#   The agent working now hands its output to an agent the pipeline does not route it
#   to: its output goes to the next step, back to an earlier step for a clarification,
#   or to the validation step; an enrichment edge is for a step that is already done.
#   (Core refuses a target outside hands_to.)
# custom:
#   code: TARGET_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_handoff
	_current_actor(_source)
	_target in _hands_to(_source)
	_edge_kind == "invalid"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("in %s the output of %q goes to %v, not to %q", [lib.status, _source, _valid_targets, _target]), "target_agent", "S20-TARGET", "block")
}

# --- inputs and versions -----------------------------------------------------------------

# _required_inputs are the artifact types each output is made from.
# The table is config.required_inputs in contracts/assessment/config.cue.
_required_inputs := object.get(lib.pack_config, "required_inputs", {})

# METADATA
# title: Required input missing
# description: >-
#   Each step works from the artifacts before it: a handoff names the versions its
#   output was made from (a KNOWLEDGE_PACKAGE from the ASSESSMENT_SCOPE, the SoA from the
#   control analysis and the mapping, the findings from the approved SoA and the evidence
#   assessment, the report from the approved findings, the maturity assessment and the
#   POA&M).
# custom:
#   code: INPUT_MISSING
#   outcome: block
reasons contains r if {
	_judged
	some t in object.get(_required_inputs, lib.output.type, [])
	not t in lib.input_types
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v is made from %s, but input_artifacts names none", [lib.output.type, lib.output.version, t]), "input_artifacts")
}

# _owed_inputs are the records a rework answers: the rework order a person or a later step
# gave the agent, the resolution that sent its output back.
_owed_inputs contains ["REWORK_ORDER", "the rework order it answers"] if core.counter(sprintf("rework_pending/%s", [_source])) > 0

_owed_inputs contains ["RESOLUTION_RECORD", "the conflict resolution it answers"] if _resolution_pending(_source)

# METADATA
# title: Rework without its order
# description: >-
#   An agent working again after a person's revision request, a clarification return or
#   a conflict resolution names the record that sent the work back (REWORK_ORDER,
#   RESOLUTION_RECORD): the new handoff carries that new context.
# custom:
#   code: INPUT_MISSING
#   outcome: block
reasons contains r if {
	_judged
	some [t, what] in _owed_inputs
	not t in lib.input_types
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v reworks %s; name %s v%v, %s, among input_artifacts", [lib.output.type, lib.output.version, lib.output.type, t, core.latest_number(t), what]), "input_artifacts")
}

# METADATA
# title: Input the agent may not consume
# description: >-
#   A handoff names an input artifact type its source agent does not consume (the
#   registry's consumes list): no agent uses data it is not authorized to use. A missing
#   registry permits nothing.
# custom:
#   code: INPUT_NOT_PERMITTED
#   outcome: block
reasons contains r if {
	_handoff
	some i, ref in lib.inputs
	not ref.type in _consumes(_source)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%q does not consume %s (consumes %v)", [_source, ref.type, sort(_consumes(_source))]), sprintf("input_artifacts[%d]", [i]), "GR-DATA", "block")
}

# --- limitations (seed section 7) -------------------------------------------------------

_normalized(s) := lower(trim_space(s))

# _inherited are [path, ref, limitation] for every limitation an input version records.
_inherited contains [sprintf("input_artifacts[%d]", [i]), ref, l] if {
	lib.valid
	input.request.kind == "handoff"
	some i, ref in lib.inputs
	v := core.ref_version(ref)
	some l in v.limitations
	is_string(l)
}

_inherited_texts := {_normalized(l) | some [_, _, l] in _inherited}

_carried_limitations := {_normalized(l) | some l in object.get(lib.request, "limitations", []); is_string(l)}

_drops := [d | some d in object.get(lib.request, "limitations_dropped", []); is_object(d)]

# A limitation left out without a justified, validated drop is core's LIMITATION_DROPPED;
# the pack's handoff schema has limitations_dropped, which is what lets core allow one.

_reference_problems contains ["REFERENCE_NOT_FOUND", sprintf("limitations_dropped[%d].limitation", [i]), msg] if {
	lib.valid
	input.request.kind == "handoff"
	some i, d in _drops
	not _normalized(d.limitation) in _inherited_texts
	msg := sprintf("limitations_dropped[%d] names %q, which no input version records as a limitation", [i, d.limitation])
}

_reference_problems contains ["REFERENCE_MISMATCH", sprintf("limitations_dropped[%d].limitation", [i]), msg] if {
	lib.valid
	input.request.kind == "handoff"
	some i, d in _drops
	_normalized(d.limitation) in _carried_limitations
	msg := sprintf("limitations_dropped[%d] drops %q, which the handoff's limitations still carry", [i, d.limitation])
}

# METADATA
# title: Correction not linked to its version
# description: >-
#   A new version (2 or more) names the version it corrects (supersedes) and why
#   (justification): every version links to the previous one, and a handoff never alters
#   a recorded version (core refuses an overwrite).
# custom:
#   code: VERSION_UNLINKED
#   outcome: block
reasons contains r if {
	_judged
	lib.output.version > 1
	not is_number(object.get(lib.output, "supersedes", null))
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v does not name the version it supersedes", [lib.output.type, lib.output.version]), "output.supersedes")
}

# METADATA
# title: Correction without justification
# description: >-
#   A new version (2 or more) says why it corrects the previous one.
# custom:
#   code: VERSION_UNLINKED
#   outcome: block
reasons contains r if {
	_judged
	lib.output.version > 1
	not lib.non_blank(object.get(lib.output, "justification", ""))
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v does not say why it corrects the previous version (justification)", [lib.output.type, lib.output.version]), "output.justification")
}

# METADATA
# title: Same output again
# description: >-
#   The output's content hashes to a version already recorded for its type: the same
#   output hash repeated is a handoff without progress (seed section 17).
# custom:
#   code: OUTPUT_REPEATED
#   outcome: block
reasons contains r if {
	_judged
	some v in core.artifact(lib.output.type).versions
	v.ref.hash == input.derived.output_hash
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v repeats the content of v%v (%s): no progress", [lib.output.type, lib.output.version, v.ref.version, v.ref.hash]), "output.content")
}

# --- paths -----------------------------------------------------------------------------

_path_string(path) := lib.path_string(path)

# _rel_path is a walk path below a prefix: ".a[2].b".
_rel_path(path) := concat("", [_rel_segment(s) | some s in path])

_rel_segment(s) := sprintf("[%d]", [s]) if is_number(s)

else := sprintf(".%v", [s])
