package handoff.support

import data.handoff.core
import data.handoff.lib

# T1 (classify) and T2 (verify authorization), the routing rules that choose the route,
# and the plan: the task graph T3..T7 the route runs (seed phases 4 and 5).

# --- routes ----------------------------------------------------------------------------

# _intent is the classified intent; a classification below the confidence threshold is
# ambiguous (routing rule "Ambiguous request → ask the customer for clarification").
_intent_of(c) := c.intent if {
	is_string(c.intent)
	threshold := _cfg("min_classification_confidence")
	is_number(threshold)
	c.confidence >= threshold
} else := "ambiguous"

_intent_route(c) := r if {
	r := lib.pack_config.intents[_intent_of(c)].route
	is_string(r)
} else := "clarification"

_t3_scope := s if {
	s := _task_cfg("T3").scope
	is_string(s)
} else := "order_status:read"

# _needs_orders holds when the case needs customer order records: an order-status intent,
# or a plan that includes T3 (a REASSIGN added it).
_needs_orders(c) if _intent_route(c) == "order_status"

_needs_orders(_) if {
	_task_status("T3") != "absent"
	_task_status("T3") != "cancelled"
}

_verified(a) if a.verified == true

_order_granted(a) if {
	_verified(a)
	is_string(a.order_ref)
	_t3_scope in a.scopes
}

_order_status := s if {
	s := core.latest_content("ORDER_RESULT").order_status
	is_string(s)
} else := ""

# _route_for is the route for a classification and an authorization (routing rules of
# seed phase 5, in this order): a refund dispute, complaint or sensitive action goes to a
# person; a case needing order records without a verified customer gets no access and is
# asked to verify; a verified customer without an authorized order is asked which order;
# an order the order system does not know is clarified, one whose evidence conflicts
# unresolvably goes to a person; an authorized order-status question is answered; a FAQ
# is answered from approved sources; anything else is clarified.
_route_for(c, a) := "human" if {
	_intent_route(c) == "human"
} else := "human" if {
	_needs_orders(c)
	_order_status == "UNKNOWN"
} else := "unauthorized" if {
	_needs_orders(c)
	not _verified(a)
} else := "clarification" if {
	_needs_orders(c)
	not _order_granted(a)
} else := "clarification" if {
	_needs_orders(c)
	_order_status == "NOT_FOUND"
} else := "order_status" if {
	_needs_orders(c)
} else := _intent_route(c)

_route := _route_for(_classification_content, _authorization_content)

_response_kinds := k if {
	k := lib.pack_config.routes[_route].response_kinds
	is_array(k)
} else := []

# --- T1: classification ------------------------------------------------------------------

# METADATA
# title: Classification of another order
# description: >-
#   The classification names an order other than the one the customer stated in the
#   case: its order_ref is the order as the customer stated it, and the gateway then
#   authorizes that order. When the case names no order, the classification may read
#   one from the message.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_classification
	o := lib.content.order_ref
	stated := _case.order_ref
	is_string(stated)
	o != stated
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the classification names order %q; the customer stated %q", [o, stated]), "output.content.order_ref", "ROUTING", "block")
}

_classification_proposal := {
	"outcome": "allow",
	"status_after": "PLANNED",
	"next": [_next("supervisor", "verify_authorization", _package("supervisor>supervisor", lib.content))],
	"events": array.concat(
		[
			core.artifact_event("approved"),
			_task_status_event("T1", "done"),
			_task_event("T2", "running", "supervisor", ["T1"]),
			core.handoff_event,
		],
		_usage_events,
	),
}

# --- T2: authorization -------------------------------------------------------------------

# METADATA
# title: Authorization not from the gateway
# description: >-
#   An AUTHORIZATION_RECORD is recorded only by the authorization gateway (a system
#   actor of config.authorization_services) on the Supervisor's behalf, for the case's
#   customer. An agent, the Supervisor included, cannot vouch for authorization: it is
#   enforced by the engine, not by prompts.
# custom:
#   code: AUTHORIZATION_UNVERIFIED
#   outcome: block
reasons contains r if {
	_authorization
	not _from_gateway
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s %q is not an authorization service (%v): only the gateway records an authorization", [lib.actor_type, lib.actor_id, object.get(lib.pack_config, "authorization_services", [])]), "actor", "SEC-GATEWAY", "block")
}

# METADATA
# title: Authorization for another customer
# description: >-
#   The AUTHORIZATION_RECORD verifies a customer other than the case's: access is
#   restricted to the verified customer's own records.
# custom:
#   code: AUTHORIZATION_UNVERIFIED
#   outcome: block
reasons contains r if {
	_authorization
	lib.content.customer_ref != object.get(_case, "customer_ref", "")
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the authorization names customer %q, not the case's customer", [lib.content.customer_ref]), "output.content.customer_ref", "SEC-GATEWAY", "block")
}

# _stated_orders are the orders the case is about: the one the customer stated, and the
# one the classification read from the message (the same one when the customer stated
# it).
_stated_orders := {o |
	some o in [object.get(_case, "order_ref", null), object.get(_classification_content, "order_ref", null)]
	is_string(o)
}

# METADATA
# title: Authorization for another order
# description: >-
#   The AUTHORIZATION_RECORD authorizes an order other than the one the case is about
#   (the order the customer stated, or the classification read): the workflow would
#   answer about an order nobody asked about. When the case names no order, the gateway
#   may authorize the one it finds. (A re-verification that changes the order is
#   ELEVATED_PRIVILEGES.)
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_authorization
	not _reverification
	o := lib.content.order_ref
	is_string(o)
	count(_stated_orders) > 0
	not o in _stated_orders
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the authorization names order %q; the case is about %v", [o, sort(_stated_orders)]), "output.content.order_ref", "SEC-AUTHZ", "block")
}

# METADATA
# title: Authorization already expired
# description: >-
#   The gateway records a verified authorization whose expires_at is not after the
#   decision time: it authorizes nothing, so the workflow would be routed as if the
#   customer were verified and then refused every lookup. The gateway verifies again (or
#   records the denial).
# custom:
#   code: AUTHORIZATION_UNVERIFIED
#   outcome: block
reasons contains r if {
	_authorization
	_verified(lib.content)
	not _now_ns < _ns(lib.content.expires_at)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the authorization expires at %v, not after now (%s): it authorizes nothing", [lib.content.expires_at, input.now]), "output.content.expires_at", "SEC-GATEWAY", "block")
}

_from_gateway if {
	lib.actor_type == "system"
	lib.actor_id in object.get(lib.pack_config, "authorization_services", [])
}

# _plan_events are the tasks of a route's plan after T2: ready when every dependency is
# done, pending otherwise.
_plan_events(route) := [_task_event(id, _initial_status(deps), _task_cfg(id).owner, deps) |
	some id, deps in lib.pack_config.routes[route].plan
]

_initial_status(deps) := "ready" if {
	every d in deps {
		d in {"T1", "T2"}
	}
} else := "pending"

_new_route := _route_for(_classification_content, lib.content)

_authorization_proposal := {
	"outcome": "allow",
	"status_after": "READY",
	"next": _supervisor_next(sort([id | some id, deps in lib.pack_config.routes[_new_route].plan; _initial_status(deps) == "ready"])),
	"events": array.concat(
		array.concat(
			[
				core.artifact_event("approved"),
				_task_status_event("T2", "done"),
				core.handoff_event,
			],
			_plan_events(_new_route),
		),
		_usage_events,
	),
} if {
	lib.status == "PLANNED"
	is_object(lib.pack_config.routes[_new_route].plan)
}

# --- T2 again: re-verification while BLOCKED ----------------------------------------------

_previous_authorization := _authorization_content

_elevations contains sprintf("scope %s was not granted before", [s]) if {
	some s in lib.content.scopes
	not s in object.get(_previous_authorization, "scopes", [])
}

_elevations contains sprintf("order %v was not the authorized order %v", [lib.content.order_ref, object.get(_previous_authorization, "order_ref", "none")]) if {
	is_string(lib.content.order_ref)
	lib.content.order_ref != object.get(_previous_authorization, "order_ref", "")
}

# METADATA
# title: Retry with elevated privileges
# description: >-
#   After an authorization failure, the gateway's re-verification (T2 while BLOCKED)
#   grants a scope or an order the first authorization did not: an authorization
#   failure is never retried with elevated privileges.
# custom:
#   code: ELEVATED_PRIVILEGES
#   outcome: block
reasons contains r if {
	_reverification
	some problem in _elevations
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the re-verification widens the authorization: %s", [problem]), "output.content", "SEC-PRIVILEGE", "block")
}

_blocked_tasks := sort([id | some id, t in _tasks; t.status == "blocked"])

# The re-verified customer: the blocked task is ready again (dependency recovered).
_authorization_proposal := {
	"outcome": "allow",
	"status_after": "READY",
	"next": _supervisor_next(_blocked_tasks),
	"events": array.concat(
		array.concat(
			[core.artifact_event("approved"), core.handoff_event],
			[_task_status_event(id, "ready") | some id in _blocked_tasks],
		),
		array.concat(_recovery_acknowledged, _usage_events),
	),
} if {
	_reverification
	_verified(lib.content)
}

# METADATA
# title: Re-verification denied
# description: >-
#   While BLOCKED after an authorization failure, the gateway could not verify the
#   customer again: recovery is exhausted and the workflow fails without data access.
# custom:
#   code: AUTHORIZATION_REQUIRED
#   outcome: fail
_reverification_denied := lib.gate_reason(rego.metadata.rule(), sprintf("the gateway did not verify the customer again (%v): the workflow fails without data access", [object.get(lib.content, "denial_reason", "no reason given")]), "output.content.verified", "SEC-AUTHZ", "fail")

_authorization_proposal := {
	"outcome": "fail",
	"status_after": "FAILED",
	"reasons": [_reverification_denied],
	"next": [],
	"events": array.concat(
		array.concat([core.artifact_event("approved"), core.handoff_event], _cancel_open_tasks),
		array.concat(_recovery_failed, _usage_events),
	),
} if {
	_reverification
	not _verified(lib.content)
}

_recovery_acknowledged := [{"type": "effect", "id": id, "status": "acknowledged"} |
	some id, status in lib.state.effects
	startswith(id, "recovery/")
	status in {"pending", "unknown"}
]

_recovery_failed := [{"type": "effect", "id": id, "status": "failed"} |
	some id, status in lib.state.effects
	startswith(id, "recovery/")
	status in {"pending", "unknown"}
]
