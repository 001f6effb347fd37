package handoff.core

import data.handoff.lib

_reverse_edge := sprintf("%s>%s", [lib.request.target_agent, lib.request.source_agent]) if _handoff

# _alternate is the edge expected k places before the new one in a ping-pong run.
_alternate(k) := _edge if k % 2 == 0

else := _reverse_edge

# _ping_pong holds when the recent edges and the new one end in an alternating run
# A>B, B>A, A>B, B>A of the core table's ping_pong_edges length.
_ping_pong if {
	n := _guardrails.ping_pong_edges
	recent := object.get(_state, "recent_edges", [])
	seq := array.concat(recent, [_edge])
	count(seq) >= n
	tail := array.slice(seq, count(seq) - n, count(seq))
	every i, e in tail {
		e == _alternate((n - 1) - i)
	}
}

# METADATA
# title: Ping-pong loop
# description: >-
#   The new edge would make the accepted edges end in A>B, B>A, A>B, B>A: two agents
#   passing the same work back and forth without progress.
# custom:
#   code: LOOP_DETECTED
#   outcome: block
reasons contains r if {
	_handoff
	_ping_pong
	r := lib.reason(rego.metadata.rule(), sprintf("handoff %s would make the last %d handoffs alternate between %q and %q", [_edge, _guardrails.ping_pong_edges, lib.request.source_agent, lib.request.target_agent]), "target_agent")
}

# METADATA
# title: Edge visited too often
# description: The edge source>target was already accepted limits.max_edge_visits times.
# custom:
#   code: LOOP_DETECTED
#   outcome: block
reasons contains r if {
	_handoff
	visits := object.get(_state, ["edges", _edge], 0)
	visits >= limit("max_edge_visits")
	r := lib.reason(rego.metadata.rule(), sprintf("edge %s was already taken %d times; pack %q allows %d", [_edge, visits, lib.pack, limit("max_edge_visits")]), "target_agent")
}

# METADATA
# title: Too many handoffs in one stage
# description: >-
#   The workflow already accepted limits.max_handoffs_per_stage handoffs in its current
#   status: work circulates without the workflow moving on. (Reported as a loop, not as
#   REPEATED_HANDOFF, because it is the no-progress bound of loop prevention.)
# custom:
#   code: LOOP_DETECTED
#   outcome: block
reasons contains r if {
	_handoff
	stage := _state.status
	n := object.get(_state, ["stage_handoffs", stage], 0)
	n >= limit("max_handoffs_per_stage")
	r := lib.reason(rego.metadata.rule(), sprintf("status %s already accepted %d handoffs; pack %q allows %d per stage", [stage, n, lib.pack, limit("max_handoffs_per_stage")]), "")
}

# METADATA
# title: Repeated handoff
# description: >-
#   The same source agent already handed the same input (by input hash) to the same
#   target: a repetition, not progress.
# custom:
#   code: REPEATED_HANDOFF
#   outcome: block
reasons contains r if {
	_handoff
	key := sprintf("%s|%s", [_edge, input.derived.input_hash])
	_state.input_hashes[key] == true
	r := lib.reason(rego.metadata.rule(), sprintf("%q already handed these inputs (%s) to %q", [lib.request.source_agent, input.derived.input_hash, lib.request.target_agent]), "input_artifacts")
}
