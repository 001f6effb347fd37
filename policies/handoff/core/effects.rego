package handoff.core

import data.handoff.lib

# METADATA
# title: Outcome for an unknown effect
# description: >-
#   An outcome reports the result of a side effect the workflow never recorded: there is
#   nothing to reconcile, and nothing is believed about an effect the engine did not see
#   begin.
# custom:
#   code: EFFECT_NOT_FOUND
#   outcome: block
reasons contains r if {
	lib.valid
	input.request.kind == "outcome"
	id := lib.request.effect_id
	not _state.effects[id]
	r := lib.reason(rego.metadata.rule(), sprintf("workflow %q has no side effect %q to report on", [_workflow_id, id]), "effect_id")
}

# METADATA
# title: Handoff over an unreconciled effect
# description: >-
#   A side effect (a delivery) has an unknown outcome; no new handoff is accepted until
#   an outcome request reconciles it, so nothing is sent twice.
# custom:
#   code: DELIVERY_UNRECONCILED
#   outcome: block
reasons contains r if {
	_handoff
	some id, status in _state.effects
	status == "unknown"
	r := lib.reason(rego.metadata.rule(), sprintf("side effect %q has an unknown outcome; reconcile it before a new handoff", [id]), "")
}
