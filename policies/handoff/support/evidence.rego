package handoff.support

import data.handoff.core
import data.handoff.lib

# T3: the order result and its evidence (seed phases 6, 7 and 10). Conflicting evidence
# is resolved by provenance (only what the tool gateway fetched counts), source authority
# (config.source_authority: the order management system is authoritative) and freshness,
# never by counting how many sources say what. When the best evidence still disagrees the
# result is UNKNOWN and the case goes to a person.

_evidence_of(content) := [e | some e in object.get(content, "evidence", []); is_object(e)]

_authority(e) := n if {
	n := lib.pack_config.source_authority[e.source]
	is_number(n)
} else := 0

_verified_provenance(e) if e.provenance.via in object.get(lib.pack_config, "verified_provenance", [])

_skew_ns := n * _ms if {
	n := _cfg("clock_skew_ms")
	is_number(n)
} else := 0

_not_future(t) if _ns(t) <= _now_ns + _skew_ns

# _candidates are the evidence entries that count: verified provenance, a source with
# authority, a time that is not in the future.
_candidates(content) := [e |
	some e in _evidence_of(content)
	_authority(e) > 0
	_verified_provenance(e)
	_not_future(e.observed_at)
]

# _winners are the candidates of the highest authority and, among them, the freshest.
_winners(content) := [e |
	cs := _candidates(content)
	top := max({_authority(c) | some c in cs})
	freshest := max({_ns(c.observed_at) | some c in cs; _authority(c) == top})
	some e in cs
	_authority(e) == top
	_ns(e.observed_at) == freshest
]

_facts(e) := {"status": e.status, "estimated_delivery": object.get(e, "estimated_delivery", null)}

# _prevailing is the evidence entry that decides: the winners agree on status and date.
_prevailing(content) := w if {
	ws := _winners(content)
	count(ws) > 0
	count({_facts(e) | some e in ws}) == 1
	w := sort([[e.source_reference, e] | some e in ws])[0][1]
}

_unresolved(content) if count({_facts(e) | some e in _winners(content)}) > 1

_date(t) := substring(t, 0, 10)

# _current_estimate is the prevailing estimated delivery, null when it already passed on
# the day the order system was read (an estimate in the past is not current).
_current_estimate(w, content) := d if {
	d := w.estimated_delivery
	is_string(d)
	d >= _date(content.retrieved_at)
} else := null

_order_problems contains msg if {
	w := _prevailing(lib.content)
	lib.content.order_status != w.status
	msg := sprintf("order_status %q, but the prevailing evidence (%s, authority %d, observed %s) says %q; other sources do not outvote it", [lib.content.order_status, w.source, _authority(w), w.observed_at, w.status])
}

_order_problems contains msg if {
	w := _prevailing(lib.content)
	lib.content.estimated_delivery != _current_estimate(w, lib.content)
	msg := sprintf("estimated_delivery %v, but the prevailing evidence's current estimate is %v", [lib.content.estimated_delivery, _current_estimate(w, lib.content)])
}

_order_problems contains msg if {
	w := _prevailing(lib.content)
	lib.content.source_reference != w.source_reference
	msg := sprintf("source_reference %q is not the prevailing evidence's %q", [lib.content.source_reference, w.source_reference])
}

_order_problems contains msg if {
	count(_candidates(lib.content)) == 0
	lib.content.order_status != "UNKNOWN"
	msg := sprintf("order_status %q rests on no evidence of verified provenance from a source with authority: report UNKNOWN", [lib.content.order_status])
}

# METADATA
# title: Claim not supported by the evidence
# description: >-
#   The order result states what the prevailing evidence does not: another status,
#   estimated delivery or source reference than the evidence that wins by verified
#   provenance, source authority and freshness (however many other sources agree with the
#   claim), or any status without evidence that counts.
# custom:
#   code: UNSUPPORTED_CLAIM
#   outcome: block
reasons contains r if {
	_order_result
	some msg in _order_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, "output.content.order_status", "EVIDENCE", "block")
}

# METADATA
# title: Unresolved evidence conflict
# description: >-
#   The best evidence (same authority, equally fresh, verified provenance) disagrees:
#   no status can be claimed. The result must say UNKNOWN; the case then goes to a person.
# custom:
#   code: EVIDENCE_CONFLICT
#   outcome: block
reasons contains r if {
	_order_result
	_unresolved(lib.content)
	lib.content.order_status != "UNKNOWN"
	r := lib.gate_reason(rego.metadata.rule(), sprintf("the best evidence disagrees (%v): report order_status UNKNOWN instead of %q", [[sprintf("%s: %s", [e.source, e.status]) | some e in _winners(lib.content)], lib.content.order_status]), "output.content.order_status", "EVIDENCE_CONFLICT", "block")
}

_stale_problems contains ["output.content.retrieved_at", msg] if {
	not _not_future(lib.content.retrieved_at)
	msg := sprintf("retrieved_at %s is in the future", [lib.content.retrieved_at])
}

_stale_problems contains [sprintf("output.content.evidence[%d].observed_at", [i]), msg] if {
	some i, e in _evidence_of(lib.content)
	not _not_future(e.observed_at)
	msg := sprintf("evidence from %s is observed at %s, in the future", [e.source, e.observed_at])
}

_stale_problems contains ["output.content.retrieved_at", msg] if {
	a := _assignment("T3")
	_ns(lib.content.retrieved_at) < _ns(a.recorded_at) - _skew_ns
	msg := sprintf("retrieved_at %s is before T3 was dispatched (%s, TASK_ASSIGNMENT v%d): a result is retrieved for its own dispatch", [lib.content.retrieved_at, a.recorded_at, a.ref.version])
}

_stale_problems contains ["output.content.retrieved_at", msg] if {
	age := _now_ns - _ns(lib.content.retrieved_at)
	not _within_ms("max_result_age_ms", age)
	msg := sprintf("retrieved_at %s is %d ms ago; an order result is current for at most %v ms", [lib.content.retrieved_at, age / _ms, object.get(lib.pack_config, "max_result_age_ms", "not configured")])
}

_stale_problems contains [sprintf("output.content.evidence[%d].observed_at", [i]), msg] if {
	some i, e in _evidence_of(lib.content)
	_ns(e.observed_at) > _ns(lib.content.retrieved_at) + _skew_ns
	msg := sprintf("evidence from %s is observed at %s, after the order system was read (%s)", [e.source, e.observed_at, lib.content.retrieved_at])
}

_stale_problems contains ["output.content.evidence", msg] if {
	w := _prevailing(lib.content)
	age := _ns(lib.content.retrieved_at) - _ns(w.observed_at)
	not _within_ms("max_evidence_age_ms", age)
	msg := sprintf("the prevailing evidence (%s) was %d ms old when retrieved; at most %v ms is current", [w.source, age / _ms, object.get(lib.pack_config, "max_evidence_age_ms", "not configured")])
}

_stale_problems contains ["output.content.estimated_delivery", msg] if {
	d := lib.content.estimated_delivery
	is_string(d)
	d < _date(lib.content.retrieved_at)
	msg := sprintf("estimated_delivery %s had already passed when the order system was read (%s)", [d, lib.content.retrieved_at])
}

_within_ms(name, ns) if {
	limit := _cfg(name)
	is_number(limit)
	ns <= limit * _ms
}

# METADATA
# title: Stale or impossible evidence
# description: >-
#   The order result is not current, measured from its own retrieval and evidence times
#   against the decision time: it or its evidence is timed in the future (beyond
#   config.clock_skew_ms), it was retrieved before T3 was dispatched (beyond the skew) or
#   more than config.max_result_age_ms ago, a record was observed after the retrieval,
#   the prevailing record was older than config.max_evidence_age_ms when read, or it
#   states an estimated delivery that had already passed.
# custom:
#   code: STALE_EVIDENCE
#   outcome: block
reasons contains r if {
	_order_result
	some [path, msg] in _stale_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "EVIDENCE_FRESH", "block")
}

# METADATA
# title: Order not authorized
# description: >-
#   The order result is for an order other than the one the gateway authorized: order
#   access is restricted to verified customer permissions.
# custom:
#   code: SCOPE_MISMATCH
#   outcome: block
reasons contains r if {
	_order_result
	lib.content.order_ref != object.get(_authorization_content, "order_ref", "")
	r := lib.gate_reason(rego.metadata.rule(), sprintf("order %q is not the authorized order %q", [lib.content.order_ref, object.get(_authorization_content, "order_ref", "none")]), "output.content.order_ref", "SEC-AUTHZ", "block")
}

# --- the result ------------------------------------------------------------------------

_resolution(content) := "resolved" if _prevailing(content)

else := "unresolved" if _unresolved(content)

else := "no_evidence"

# An UNKNOWN status routes the case to a person: T7 replaces T6.
_route_change_events := [
	_task_status_event("T6", "cancelled"),
	_task_event("T7", "pending", object.get(_task_cfg("T7"), "owner", "human_escalation_gate"), ["T5"]),
] if {
	lib.content.order_status == "UNKNOWN"
	_task_status("T6") == "pending"
} else := []

_order_result_proposal := {
	"outcome": "allow",
	"status_after": "RUNNING",
	"next": _supervisor_next(_newly_ready("T3")),
	"events": array.concat(
		array.concat(
			core.supersede_open("ORDER_RESULT"),
			[
				object.union(core.artifact_event("under_review"), {"meta": {"task_id": "T3", "evidence": _resolution(lib.content), "retrieved_at": lib.content.retrieved_at}}),
				_task_status_event("T3", "done"),
				core.handoff_event,
			],
		),
		array.concat(
			array.concat(_ready_events("T3"), _route_change_events),
			array.concat(_retry_reset("T3"), _usage_events),
		),
	),
}

# --- after a task is done ------------------------------------------------------------------

# _newly_ready are the pending tasks whose dependencies are all done once id is.
_newly_ready(id) := sort([t |
	some t, task in _tasks
	task.status == "pending"
	every d in object.get(task, "depends_on", []) {
		_done_with(d, id)
	}
])

_done_with(d, id) if d == id

_done_with(d, _) if _done(d)

_ready_events(id) := [_task_status_event(t, "ready") | some t in _newly_ready(id)]

# _retry_reset zeroes a task's retry counter once it succeeded: max_attempts counts the
# tries of one run of the task.
_retry_reset(id) := [{"type": "counter", "name": core.retry_counter(id), "value": 0}] if {
	core.counter(core.retry_counter(id)) != 0
} else := []
