package handoff.core

import data.handoff.lib

_open_conflicts contains id if {
	some id, c in _state.conflicts
	c.status == "open"
}

_conflicts_open if _state.open_conflicts > 0

_conflicts_open if count(_open_conflicts) > 0

# METADATA
# title: Conflict open
# description: >-
#   A conflict waits for a person's resolution; requests of the kinds in the core table
#   conflict_blocked_kinds (handoffs and approvals) may not move the work on meanwhile.
# custom:
#   code: CONFLICT_OPEN
#   outcome: block
reasons contains r if {
	lib.valid
	lib.kind in _guardrails.conflict_blocked_kinds
	_conflicts_open
	r := lib.reason(rego.metadata.rule(), sprintf("workflow %q has open conflicts %v; a person must resolve them before %s", [_workflow_id, sort(_open_conflicts), lib.with_article(lib.kind)]), "")
}

# METADATA
# title: Conflict not found
# description: >-
#   A resolution names a conflict the workflow does not have, or one already resolved:
#   a conflict is resolved once.
# custom:
#   code: CONFLICT_NOT_FOUND
#   outcome: block
reasons contains r if {
	lib.valid
	input.request.kind == "resolution"
	id := lib.request.conflict_id
	not id in _open_conflicts
	r := lib.reason(rego.metadata.rule(), sprintf("workflow %q has no open conflict %q (status: %s)", [_workflow_id, id, object.get(_state, ["conflicts", id, "status"], "unknown")]), "conflict_id")
}
