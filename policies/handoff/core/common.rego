# Package handoff.core holds the generic guardrails every pack inherits and the helpers a
# pack builds its decision with. A pack imports it as data.handoff.core (and the input
# prelude and reason helpers as data.handoff.lib), and every pack's entrypoint has one
# shape:
#
#	decision := core.decide(_reasons, core.proposal(_answers, _unanswered))
#
# where _reasons holds core.reasons and the pack's own reasons, _answers the pack's
# answer to a request it expects, and _unanswered its OUT_OF_SEQUENCE reason for an
# expected request no rule answers.
#
# Every rule reads input (request, validation, state, derived, now) and two tables: the
# pack's contract at data.handoff[input.pack].contract and the core guardrail tables at
# data.handoff.core.contract. A deny rule never fails open: a missing table denies.
package handoff.core

import data.handoff.lib

# _state is the workflow snapshot; undefined when no workflow could be loaded.
_state := input.state if is_object(input.state)

_workflow_id := object.get(_state, "workflow_id", "") if _state

else := ""

# _handoff holds for a valid handoff request.
_handoff if {
	lib.valid
	input.request.kind == "handoff"
}

# _output is the new artifact a valid handoff delivers.
_output := o if {
	_handoff
	o := lib.request.output
	is_object(o)
}

# _edge is the handoff's "source>target".
_edge := sprintf("%s>%s", [lib.request.source_agent, lib.request.target_agent]) if _handoff

# The reason and text helpers live in data.handoff.lib. These names keep a pack that
# calls them through core (core.reason(rego.metadata.rule(), message, path), ...)
# working; the shipped packs call lib.
reason(meta, message, path) := lib.reason(meta, message, path)

reason_outcome(meta, message, path, outcome) := lib.reason_outcome(meta, message, path, outcome)

gate_reason(meta, message, path, gate, outcome) := lib.gate_reason(meta, message, path, gate, outcome)

path_string(path) := lib.path_string(path)

short(s) := lib.short(s)

with_article(word) := lib.with_article(word)
