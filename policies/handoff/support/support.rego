# Package handoff.support decides every request of the support pack: supervisor–worker–
# reviewer customer support for order-status questions. The Supervisor classifies (T1),
# the authorization gateway verifies (T2), the Order Research Agent retrieves the order
# (T3), the Support Agent drafts (T4), the Reviewer validates (T5, mandatory), and the
# Supervisor sends (T6) or the Human Escalation Gate takes over (T7).
#
# The decision has the shape every pack's has: core.decide(_reasons,
# core.proposal(_answers, _unanswered)), the core guardrails and the pack's own reasons
# (each rule with its code in METADATA) applied to the pack's proposal for the unblocked
# path. The pack's tables are data.handoff.support.contract (exported from the
# CUE value pack) and data.handoff.support.config (the task graph, routing rules and
# configuration values, exported from the CUE value config).
package handoff.support

import data.handoff.core
import data.handoff.lib

# METADATA
# title: Support decision
# description: >-
#   The decision for one request of a support workflow: the core guardrails and the
#   support rules decide together; any blocking reason blocks.
# entrypoint: true
decision := core.decide(_reasons, core.proposal(_answers, _unanswered))

# _reasons are core's reasons and the pack's.
_reasons := _core_reasons | reasons

# _core_reasons are core's reasons, less WORKFLOW_TERMINAL for the one request a terminal
# support workflow still takes: the acknowledgement of its human handoff (ESCALATED is
# terminal, and the Human Escalation Gate completes when a person acknowledges), and less
# the reason core gives for an outcome's unknown effect, which the pack states itself.
_core_reasons := {r | some r in core.reasons; not _exempt(r)}

_exempt(r) if {
	r.code == "WORKFLOW_TERMINAL"
	_handoff_ack
}

# Core's reason about an outcome's unknown effect id (DELIVERY_UNRECONCILED, which means
# something else in this pack) gives way to the pack's EFFECT_NOT_FOUND.
_exempt(r) if {
	r.path == "effect_id"
	_unknown_effect
}

# _answers is the pack's answer (_propose) to a request it expects in the current
# status: the proposal for the unblocked path. core.proposal makes any other request a
# block that keeps the status.
_answers := {p | _ready; _expected; p := _propose}

# _unanswered is OUT_OF_SEQUENCE for an expected request no rule answers; a request
# the pack does not expect is refused by the rule that explains it.
_unanswered := [_no_rule | _ready; _expected]

_propose := _stop_proposal if _stopping

_propose := _start_proposal if {
	not _stopping
	input.request.kind == "start"
}

_propose := _handoff_proposal if {
	not _stopping
	input.request.kind == "handoff"
}

_propose := _review_proposal if {
	not _stopping
	input.request.kind == "review"
}

_propose := _failure_proposal if {
	not _stopping
	input.request.kind == "failure"
}

_propose := _outcome_proposal if input.request.kind == "outcome"

_propose := _cancel_proposal if input.request.kind == "cancel"

_handoff_proposal := _classification_proposal if _classification

_handoff_proposal := _authorization_proposal if _authorization

_handoff_proposal := _dispatch_proposal if _dispatch

_handoff_proposal := _order_result_proposal if _order_result

_handoff_proposal := _draft_proposal if _draft

_handoff_proposal := _send_proposal if _send

# METADATA
# title: No support rule decides the request
# description: >-
#   The request is expected in the current status but no rule of the support pack
#   decides it: fail closed.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
_no_rule := lib.reason(rego.metadata.rule(), sprintf("no rule of the support pack decides %s request in status %s", [lib.with_article(lib.kind), lib.status]), "")

# --- input -------------------------------------------------------------------------

# _ready holds for a request core finds ready (core.ready), and for the acknowledgement
# of a human handoff, which a terminal support workflow still takes.
_ready if core.ready

_ready if {
	lib.valid
	_handoff_ack
}

# _live holds for a ready request judged on its own terms: one that does not stop the
# workflow (past its deadline or budget).
_live if {
	_ready
	not _stopping
}

_now_ns := time.parse_rfc3339_ns(input.now)

_ns(t) := time.parse_rfc3339_ns(t)

_ms := 1000000

# --- tables --------------------------------------------------------------------------

# _cfg is one configuration value; undefined when missing (CONTRACT_MISSING blocks).
_cfg(name) := v if {
	v := lib.pack_config[name]
	v != null
}

_task_cfg(id) := t if {
	t := lib.pack_config.tasks[id]
	is_object(t)
}

_agent_tasks(agent) := {t | some t in object.get(lib.pack_contract, ["agents", agent, "tasks"], [])}

_agent_consumes(agent) := {t | some t in object.get(lib.pack_contract, ["agents", agent, "consumes"], [])}

# --- the task graph in the state ---------------------------------------------------

_tasks := t if {
	t := lib.state.tasks
	is_object(t)
} else := {}

_task_status(id) := s if {
	s := _tasks[id].status
	is_string(s)
} else := "absent"

_task_agent(id) := a if {
	a := _tasks[id].agent
	is_string(a)
} else := ""

_done(id) if _task_status(id) == "done"

_open_task(id) if not _task_status(id) in {"done", "cancelled", "absent"}

_running_tasks := {id | some id, t in _tasks; t.status == "running"}

_task_event(id, status, agent, deps) := {"type": "task", "id": id, "status": status, "agent": agent, "depends_on": deps}

_task_status_event(id, status) := {"type": "task", "id": id, "status": status}

# _cancel_open_tasks cancels every task that is not done yet.
_cancel_open_tasks := [_task_status_event(id, "cancelled") | some id in sort(object.keys(_tasks)); _open_task(id)]

# --- artifacts in the state ----------------------------------------------------------

# _record is the artifact_recorded event of a version the policy makes itself (the
# engine seals its hash).
_record(type, default_id, status, content, based_on, meta) := {
	"type": "artifact_recorded",
	"ref": core.next_ref(type, default_id, content),
	"status": status,
	"producer": core.producer(type, "supervisor"),
	"based_on": based_on,
	"assumptions": [],
	"limitations": [],
	"content": content,
	"meta": meta,
}

# --- the case ------------------------------------------------------------------------

_case := core.latest_content("CASE")

_classification_content := core.latest_content("CLASSIFICATION")

_authorization_content := core.latest_content("AUTHORIZATION_RECORD")

# --- reasons -------------------------------------------------------------------------

_next(agent, task, context) := {"agent": agent, "task": task, "context": context}
