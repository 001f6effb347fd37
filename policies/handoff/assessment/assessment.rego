# Package handoff.assessment decides every request of the assessment pack: the nine-agent
# SCF assessment of the seed "Multi-Agent Handoff Protocol & Collaboration Model"
# (Knowledge Steward → SCF Control Analyst → Framework Mapper → SoA Architect → Evidence
# Analyst → Gap Analyst → Maturity Assessor → POA&M Planner → Report Writer).
#
# The engine is the Orchestrator: agents never hand work to each other directly. Each
# handoff is a structured HandoffPayload the engine validates (CUE), then the core
# guardrails and the rules below judge it; the decision names the next allowed agent and
# the context package it receives (references and statuses only). People approve at the
# gates, validate on request, resolve conflicts and take over escalations.
#
# The decision has the shape every pack's has: core.decide(_reasons,
# core.proposal(_answers, _unanswered)), core's reasons (loop limits regraded to an
# escalation when they are the only obstacle), the pack's reasons and the security audit
# reason applied to the pack's proposal for the unblocked path. The pack's tables
# are data.handoff.assessment.contract and data.handoff.assessment.config, exported from
# contracts/assessment.
package handoff.assessment

import data.handoff.core
import data.handoff.lib

# METADATA
# title: Assessment decision
# description: >-
#   The decision for one request of an assessment workflow: the core guardrails and the
#   assessment rules decide together; any blocking reason blocks.
# entrypoint: true
decision := core.decide(_reasons, core.proposal(_answers, _unanswered))

# _base_reasons are core's reasons (regraded, loops.rego), the pack's, and the await_human
# reasons of a conflict or an escalation.
_base_reasons := ((_core_reasons | reasons) | _conflict_reasons) | _escalation_reasons

# _reasons are the base reasons and the security audit reason.
_reasons := _base_reasons | _audit_reasons

# _answers is the pack's answer (_propose) to a request it expects in the current
# status: the proposal for the unblocked path. core.proposal makes any other request a
# block that keeps the status.
_answers := {p | core.ready; _expected; p := _propose}

# _unanswered is OUT_OF_SEQUENCE for an expected request no rule answers, unless another
# reason already blocks it; a request the pack does not expect is refused by the rule
# that explains it.
_unanswered := [_no_rule | core.ready; _expected; _clear]

_propose := _start_proposal if input.request.kind == "start"

_propose := _handoff_proposal if input.request.kind == "handoff"

_propose := _approval_proposal if input.request.kind == "approval"

_propose := _resolution_proposal if input.request.kind == "resolution"

_propose := _failure_proposal if input.request.kind == "failure"

_propose := _cancel_proposal if input.request.kind == "cancel"

# METADATA
# title: No assessment rule decides the request
# description: >-
#   The request is expected in the current status but no rule of the assessment pack
#   decides it: fail closed.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
_no_rule := lib.reason(rego.metadata.rule(), sprintf("no rule of the assessment pack decides %s request in status %s", [lib.with_article(lib.kind), lib.status]), "")

# --- input ---------------------------------------------------------------------------

_source := object.get(lib.request, "source_agent", "")

_target := object.get(lib.request, "target_agent", "")

_edge := sprintf("%s>%s", [_source, _target])

_handoff_type := object.get(lib.request, "handoff_type", "")

_handoff if {
	core.ready
	input.request.kind == "handoff"
}

# _judged holds for a handoff whose output the pack judges: ready, with an output made by
# the contract's producer of its type (any other source is refused by core).
_judged if {
	_handoff
	lib.output
	_source == core.producer(lib.output.type, "unknown")
}

# _input_version is the recorded version an input of the type names (the first such input).
_input_version(type) := v if {
	some r in lib.inputs
	r.type == type
	v := core.ref_version(r)
}

_trace := t if {
	t := lib.request.trace_id
	is_string(t)
} else := ""

# --- contract tables -------------------------------------------------------------------

# _required_config are the configuration tables the policy reads, with their JSON type.
_required_config := {
	"pipeline": "array",
	"approval_gates": "object",
	"trust": "object",
	"source_kinds": "object",
	"scf_catalogue": "object",
	"normative": "object",
	"conclusions": "object",
	"required_inputs": "object",
	"unique_keys": "object",
	"enrichment_additions": "object",
	"enrichment_common": "array",
	"retry_classes": "object",
	"restricted_retry_context": "array",
	"clock_skew_ms": "number",
	"forbidden_context": "array",
	"security_codes": "array",
}

# METADATA
# title: Assessment configuration missing
# description: >-
#   The assessment configuration (data.handoff.assessment.config, exported from the CUE
#   value config) lacks a table the policy reads: the pipeline, the approval gates, the
#   trust hierarchy, the required inputs, the consistency rules' lists or the retry
#   tables. No table is optional: every request is blocked until it is there.
# custom:
#   code: CONTRACT_MISSING
#   outcome: block
reasons contains r if {
	lib.valid
	some name, want in _required_config
	type_name(object.get(lib.pack_config, name, null)) != want
	r := lib.reason(rego.metadata.rule(), sprintf("the assessment configuration has no table %s (%s)", [name, lib.with_article(want)]), "")
}

_agents := a if {
	a := lib.pack_contract.agents
	is_object(a)
} else := {}

# _current_actor holds for the agent workflow.actors routes in the current status.
_current_actor(agent) if {
	some a in core.actors(lib.status)
	a.agent == agent
}

_produces(agent) := t if {
	t := _agents[agent].produces[0]
	is_string(t)
}

_consumes(agent) := {t | some t in _agents[agent].consumes}

_hands_to(agent) := {t | some t in _agents[agent].hands_to}

# _pipeline is the pipeline's agent statuses in order (contracts/assessment/workflow.cue).
# The table is config.pipeline in contracts/assessment/config.cue.
_pipeline := object.get(lib.pack_config, "pipeline", [])

# _approval_gates are the approval gates (config.approval_gates in
# contracts/assessment/config.cue): _gate_of maps a step whose output requires approval
# to its approval gate, and _after_gate the gate to the status an approval opens.
_approval_gates := object.get(lib.pack_config, "approval_gates", {})

_gate_of := {g.step: name | some name, g in _approval_gates}

_after_gate := {name: g.after | some name, g in _approval_gates}

_gates := {g | some g in _gate_of}

_human_statuses := _gates | {"VALIDATION", "CONFLICT_REVIEW", "HUMAN_REVIEW"}

# _stage_of is the pipeline status in which an agent works (from workflow.actors).
_stage_of := {a.agent: s |
	some s in _pipeline
	some a in core.actors(s)
}

_stage_index[s] := i if some i, s in _pipeline

# _stage_task is the task of the agent working in a pipeline status.
_stage_task(s) := t if {
	some a in core.actors(s)
	t := a.task
}

_stage_agent(s) := a if {
	some x in core.actors(s)
	a := x.agent
}

# _forward_target is where a step's output goes: the next step's agent, or for the last
# step the role approving the report.
_forward_target(s) := _stage_agent(_pipeline[_stage_index[s] + 1]) if {
	_stage_index[s] + 1 < count(_pipeline)
} else := a if {
	s == "REPORTING"
	some x in core.actors("REPORT_APPROVAL")
	a := x.agent
}

# _validator holds for a role that validates (approves the VALIDATION stage).
_validator(role) if "VALIDATION" in object.get(lib.pack_contract, ["roles", role, "approves"], [])

# --- artifacts in the state ------------------------------------------------------------

# _in_force is the version of a type consumers use: the approved one, else the latest
# one still open.
_in_force(type) := v if {
	v := core.last_approved(type)
} else := v if {
	v := core.latest_version(type)
	v.status in {"draft", "under_review"}
}

_content_of(v) := c if {
	c := v.content
	is_object(c)
} else := {}

_scope := c if {
	c := core.artifact_version("ASSESSMENT_SCOPE", 1).content
	is_object(c)
} else := {}

# _assessment_trace is the assessment's trace: the trace_id of its start.
_assessment_trace := t if {
	t := _scope.trace_id
	is_string(t)
}

_version_id(ref) := sprintf("%s@v%d", [ref.id, ref.version])

# _same_version holds when two refs name the same type and version.
_same_version(a, b) if {
	a.type == b.type
	a.version == b.version
}

# --- reasons ---------------------------------------------------------------------------
