package handoff.assessment

import data.handoff.core
import data.handoff.lib

# Sequence: which request the current status waits for, the start and the cancel. The
# pipeline is sequential (MVP): one agent works at a time; in a human status no agent
# acts at all.

# A start in the initial status.
_expected if {
	input.request.kind == "start"
	lib.status == object.get(lib.pack_contract, ["workflow", "initial"], "INTAKE")
}

# A handoff by the agent the current status routes, with the task it routes it to.
_expected if {
	input.request.kind == "handoff"
	core.routed(_source, object.get(lib.request, "task_type", ""))
}

# An enrichment: an agent of an earlier step adds context for the agent working now.
_expected if {
	input.request.kind == "handoff"
	_edge_kind == "enrichment"
}

# A person's decision in a human status; who may decide is core's check.
_expected if {
	input.request.kind == "approval"
	lib.status in (_gates | {"VALIDATION", "HUMAN_REVIEW"})
}

_expected if {
	input.request.kind == "resolution"
	lib.status == "CONFLICT_REVIEW"
}

# A failure of the task the current status routes to the failed agent.
_expected if {
	input.request.kind == "failure"
	core.routed(object.get(lib.request, "agent", ""), object.get(lib.request, "task", ""))
}

_expected if input.request.kind == "cancel"

# _sequence_explained holds when a more specific rule says why the request does not fit
# the current status (it then stands alone instead of OUT_OF_SEQUENCE).
_sequence_explained if _bypass_by_status

_sequence_explained if {
	lib.kind in {"handoff", "approval"}
	lib.status == "CONFLICT_REVIEW"
}

_sequence_explained if _waiting_for_human_review

# METADATA
# title: Request out of sequence
# description: >-
#   The request is not one the workflow's current status waits for: an agent or task
#   that workflow.actors does not route in this status (the pipeline runs one step at a
#   time), an enrichment that does not reach the agent working now, a resolution without
#   a conflict review, a review or an outcome (the pack has neither). A missing routing
#   table routes nothing.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
reasons contains r if {
	core.ready
	not _expected
	not _sequence_explained
	r := lib.reason(rego.metadata.rule(), sprintf("%s %s is not expected in status %s (routed now: %v)", [lib.kind, _request_label, lib.status, core.routed_now]), "")
}

_request_label := sprintf("%s>%s (%s) by %q", [_source, _target, object.get(lib.request, "task_type", ""), lib.actor_id]) if input.request.kind == "handoff"

else := sprintf("%s/%s", [object.get(lib.request, "agent", ""), object.get(lib.request, "task", "")]) if input.request.kind == "failure"

else := sprintf("by %q", [lib.actor_id])

# _bypass_by_status holds for a handoff while a person's decision is pending at a gate
# or the validation step.
_bypass_by_status if {
	core.ready
	input.request.kind == "handoff"
	lib.status in (_gates | {"VALIDATION"})
}

# METADATA
# title: Approval bypass while a person decides
# description: >-
#   A handoff arrives while the workflow waits at an approval gate (SOA_APPROVAL,
#   FINDINGS_APPROVAL, REPORT_APPROVAL) or the validation step: no handoff moves work past
#   a person's pending decision.
# custom:
#   code: APPROVAL_BYPASS
#   outcome: block
reasons contains r if {
	_bypass_by_status
	r := lib.gate_reason(rego.metadata.rule(), sprintf("handoff %s>%s while the workflow waits at %s for a person's decision", [_source, _target, lib.status]), "", "GR-APPROVAL", "block")
}

# _waiting_for_human_review holds for agent work reported while an escalation waits.
_waiting_for_human_review if {
	core.ready
	lib.kind in {"handoff", "failure"}
	lib.status == "HUMAN_REVIEW"
}

# METADATA
# title: Human review required
# description: >-
#   The workflow waits for human review after a limit was reached (retry exhausted, not
#   retryable, loop limit, repeated conflict): no agent work is accepted until a person
#   decides (retry_exhausted → block → human_review_required).
# custom:
#   code: HUMAN_REVIEW_REQUIRED
#   outcome: block
reasons contains r if {
	_waiting_for_human_review
	r := lib.reason(rego.metadata.rule(), sprintf("workflow %q waits for human review (%v); %s is not accepted until a person decides", [object.get(lib.state, "workflow_id", ""), _escalation_codes, lib.with_article(lib.kind)]), "")
}

_escalation_codes := c if {
	c := core.latest_version("ESCALATION_RECORD").content.reason_codes
} else := []

# METADATA
# title: Start by an agent
# description: >-
#   An assessment is started by the host (system) or a person, never by an agent.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "start"
	not lib.actor_type in {"system", "human"}
	r := lib.reason(rego.metadata.rule(), sprintf("%s %q may not start an assessment; the host or a person does", [lib.actor_type, lib.actor_id]), "actor.type")
}

# METADATA
# title: Start by a person without a role
# description: >-
#   A person starts an assessment only with a role of the pack: an identity is its type
#   and id, and a person's authority is a role of the pack, never a claim.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "start"
	lib.actor_type == "human"
	count(_pack_roles) == 0
	r := lib.reason(rego.metadata.rule(), sprintf("person %q holds no role of the assessment pack and may not start an assessment", [lib.actor_id]), "actor.roles")
}

# _pack_roles are the actor's roles the pack defines.
_pack_roles := {role | some role in lib.actor_roles; object.get(lib.pack_contract, ["roles", role], null) != null}

# METADATA
# title: Cancel by a person without a role
# description: >-
#   A person cancels an assessment only with a role of the pack; the host may always
#   cancel, an agent never (core).
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "cancel"
	lib.actor_type == "human"
	count(_pack_roles) == 0
	r := lib.reason(rego.metadata.rule(), sprintf("person %q holds no role of the assessment pack and may not cancel", [lib.actor_id]), "actor.roles")
}

# --- the engine's clock ---------------------------------------------------------------------

_skew_ns := n * 1000000 if {
	n := lib.pack_config.clock_skew_ms
	is_number(n)
} else := 0

# METADATA
# title: Request dated in the future
# description: >-
#   A request's created_at is later than the engine's clock (input.now) by more than
#   config.clock_skew_ms: the engine's clock dates every decision, and the handoff
#   latency and the recorded created_at are never taken from a time that has not come.
# custom:
#   code: TIMESTAMP_INVALID
#   outcome: block
reasons contains r if {
	lib.valid
	t := lib.request.created_at
	is_string(t)
	time.parse_rfc3339_ns(t) > time.parse_rfc3339_ns(input.now) + _skew_ns
	r := lib.reason(rego.metadata.rule(), sprintf("created_at %s is later than the engine's clock %s (allowed skew: %d ms)", [t, input.now, _skew_ns / 1000000]), "created_at")
}

# --- start and cancel ------------------------------------------------------------------

_brief := b if {
	b := lib.request.brief
	is_object(b)
} else := {}

# _scope_content is the ASSESSMENT_SCOPE the start records: the work order and the
# assessment's trace.
_scope_content := object.union(
	{
		"tenant_id": lib.request.tenant_id,
		"organization_id": lib.request.organization_id,
		"assessment_id": lib.request.assessment_id,
		"trace_id": _trace,
		"organization_name": _brief.organization_name,
		"objective": _brief.objective,
		"scf_version": _brief.scf_version,
		"frameworks": _brief.frameworks,
		"control_domains": _brief.control_domains,
		"requested_by": lib.actor_id,
	},
	{"deadline": d | d := _brief.deadline},
)

_scope_ref := {"id": "assessment-scope", "type": "ASSESSMENT_SCOPE", "version": 1, "hash": core.content_hash(_scope_content)}

# start: the ASSESSMENT_SCOPE is recorded (approved: it is the work order) and the
# Knowledge Steward receives it.
_start_proposal := {
	"outcome": "allow",
	"status_after": "KNOWLEDGE",
	"next": [_next_agent("knowledge_steward", "orchestrator", "KNOWLEDGE", [{"ref": _scope_ref, "status": "approved"}], {})],
	"events": [_record_event(_scope_ref, "approved", _scope_content, _record_meta(_scope_ref, "passed", "knowledge_steward", "KNOWLEDGE"))],
}

_cancel_proposal := {
	"outcome": "allow",
	"status_after": "CANCELLED",
	"next": [],
	"events": [],
}

# METADATA
# title: Start for another assessment
# description: >-
#   A start's assessment_id differs from its subject_id: the workflow's subject is the
#   assessment, and both name it.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "start"
	lib.request.assessment_id != lib.request.subject_id
	r := lib.gate_reason(rego.metadata.rule(), sprintf("start names assessment %q but subject %q", [lib.request.assessment_id, lib.request.subject_id]), "assessment_id", "S20-SCOPE", "block")
}
