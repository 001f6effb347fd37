package handoff.support

import data.handoff.core
import data.handoff.lib

# T4: the response draft (seed phases 5, 10 and 12). A draft fits the workflow's route,
# states only the order facts of the verified order result, answers FAQs from approved
# knowledge sources, promises nothing unsupported and proposes no sensitive action
# without its explicit authorization.

_order_result_content := core.latest_content("ORDER_RESULT")

# _claim_problems are why a draft's order claims are not supported.
_claim_problems(draft) := ((_claims_outside_order(draft) | _claims_missing(draft)) | _claims_unverified(draft)) | _claims_differ(draft)

_claims_outside_order(draft) := {msg |
	draft.order_claims
	draft.kind != "order_status"
	msg := sprintf("%s response states no order facts: the order status is told only from a verified order result", [lib.with_article(draft.kind)])
}

_claims_missing(draft) := {"an order_status response states its order facts in order_claims" |
	draft.kind == "order_status"
	not draft.order_claims
}

_claims_unverified(draft) := {"no order result is recorded: the order status is not verified" |
	draft.order_claims
	not core.latest_version("ORDER_RESULT")
}

_claims_differ(draft) := {msg |
	draft.order_claims
	some field in ["order_status", "estimated_delivery"]
	claimed := object.get(draft, ["order_claims", field], null)
	verified := object.get(_order_result_content, field, null)
	claimed != verified
	msg := sprintf("order_claims.%s is %v; the verified order result (ORDER_RESULT v%d) says %v", [field, claimed, core.latest_number("ORDER_RESULT"), verified])
}

# METADATA
# title: Draft claim not supported
# description: >-
#   The draft states order facts the verified order result does not: another status or
#   estimated delivery, order facts in a response that is not an order-status answer
#   (an unknown order, a clarification, a missing authorization: no fabricated status),
#   or an order-status answer without its claims.
# custom:
#   code: UNSUPPORTED_CLAIM
#   outcome: block
reasons contains r if {
	_draft
	some msg in _claim_problems(lib.content)
	r := lib.gate_reason(rego.metadata.rule(), msg, "output.content.order_claims", "EVIDENCE", "block")
}

# METADATA
# title: Draft claim rests on another result
# description: >-
#   A draft stating order facts names the latest ORDER_RESULT among its
#   input_artifacts: it was made from the verified result it claims.
# custom:
#   code: UNSUPPORTED_CLAIM
#   outcome: block
reasons contains r if {
	_draft
	lib.content.order_claims
	core.latest_version("ORDER_RESULT")
	not "ORDER_RESULT" in lib.input_types
	r := lib.gate_reason(rego.metadata.rule(), "the draft states order facts without naming the ORDER_RESULT it rests on", "input_artifacts", "EVIDENCE", "block")
}

_kind_problems contains ["output.content.kind", msg] if {
	not lib.content.kind in _response_kinds
	msg := sprintf("%s response does not fit route %s (allowed: %v)", [lib.with_article(lib.content.kind), _route, _response_kinds])
}

_kind_problems contains ["output.content.escalation", "an escalation summary says why and summarizes the case for the person taking over"] if {
	lib.content.kind == "escalation_summary"
	not lib.content.escalation
}

# METADATA
# title: Response kind does not fit the route
# description: >-
#   The draft is not what the workflow's route asks for: an order-status answer for an
#   authorized order, a FAQ answer, a clarification (ambiguous request, unknown order,
#   no authorized order), an identity-verification request (missing authorization), or
#   an escalation summary for a person (refund dispute, complaint, sensitive action,
#   unresolved evidence).
# custom:
#   code: ROUTE_MISMATCH
#   outcome: block
reasons contains r if {
	_draft
	some [path, msg] in _kind_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "ROUTE_FIT", "block")
}

# METADATA
# title: Knowledge source not approved
# description: >-
#   A FAQ answer rests on approved knowledge sources only
#   (config.approved_knowledge_sources), and names at least one.
# custom:
#   code: UNAPPROVED_SOURCE
#   outcome: block
reasons contains r if {
	_draft
	lib.content.kind == "faq"
	some msg in _source_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, "output.content.knowledge_sources", "ROUTE_FIT", "block")
}

_source_problems contains "a FAQ answer names the approved knowledge sources it rests on" if {
	count(object.get(lib.content, "knowledge_sources", [])) == 0
}

_source_problems contains sprintf("%q is not an approved knowledge source", [s]) if {
	some s in object.get(lib.content, "knowledge_sources", [])
	not s in object.get(lib.pack_config, "approved_knowledge_sources", [])
}

# --- promises ----------------------------------------------------------------------------

_sensitive(type) if lib.pack_config.sensitive_actions[type]

_promise_problems(draft) := _promises_not_allowed(draft) | _dates_unsupported(draft)

_promises_not_allowed(draft) := {[i, msg] |
	some i, p in object.get(draft, "promises", [])
	not _sensitive(p.type)
	not p.type in object.get(lib.pack_config, "allowed_promises", [])
	msg := sprintf("promise %q is not one a response may make", [p.type])
}

_dates_unsupported(draft) := {[i, msg] |
	some i, p in object.get(draft, "promises", [])
	p.type == "delivery_date"
	not _date_supported(p)
	msg := sprintf("delivery_date promise %q does not state the verified estimated delivery %v", [p.detail, object.get(_order_result_content, "estimated_delivery", null)])
}

_date_supported(p) if {
	d := _order_result_content.estimated_delivery
	is_string(d)
	contains(p.detail, d)
}

# METADATA
# title: Unsupported promise
# description: >-
#   The draft commits to something the workflow cannot support: a delivery date other
#   than the verified estimated delivery (or none is known), or a commitment outside
#   config.allowed_promises.
# custom:
#   code: UNSUPPORTED_PROMISE
#   outcome: block
reasons contains r if {
	_draft
	some [i, msg] in _promise_problems(lib.content)
	r := lib.gate_reason(rego.metadata.rule(), msg, sprintf("output.content.promises[%d]", [i]), "REVIEW_CHECKS", "block")
}

_sensitive_promises(draft) := {p.type | some p in object.get(draft, "promises", []); _sensitive(p.type)}

# METADATA
# title: Sensitive action without explicit authorization
# description: >-
#   The draft proposes a refund, cancellation, address change, compensation or
#   replacement and the verified, unexpired authorization does not grant that action's
#   explicit scope (config.sensitive_actions). With the scope, the review still escalates: a
#   person decides sensitive actions.
# custom:
#   code: SENSITIVE_ACTION_UNAUTHORIZED
#   outcome: block
reasons contains r if {
	_draft
	some action in _sensitive_promises(lib.content)
	scope := lib.pack_config.sensitive_actions[action].scope
	not _grants(scope)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s needs the explicit scope %s, which the verified authorization does not grant", [action, scope]), "output.content.promises", "SEC-SENSITIVE", "block")
}

# _grants holds when the workflow's latest authorization grants scope now: verified and
# not expired (expires_at and config.authorization_ttl_ms against the decision time).
_grants(scope) if {
	v := core.latest_version("AUTHORIZATION_RECORD")
	_verified(v.content)
	scope in v.content.scopes
	_unexpired(v)
}

# --- the draft -----------------------------------------------------------------------------

_draft_proposal := {
	"outcome": "allow",
	"status_after": "RUNNING",
	"next": _supervisor_next(_newly_ready("T4")),
	"events": array.concat(
		array.concat(
			core.supersede_open("RESPONSE_DRAFT"),
			[
				object.union(core.artifact_event("under_review"), {"meta": {"task_id": "T4", "route": _route}}),
				_task_status_event("T4", "done"),
				core.handoff_event,
			],
		),
		array.concat(_ready_events("T4"), array.concat(_retry_reset("T4"), _usage_events)),
	),
}
