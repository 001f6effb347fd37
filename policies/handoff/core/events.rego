package handoff.core

import data.handoff.lib

# handoff_event is the handoff_accepted event of the current handoff: the bookkeeping
# behind edge counts, recent edges, input hashes and handoffs per stage.
handoff_event := {
	"type": "handoff_accepted",
	"source": lib.request.source_agent,
	"target": lib.request.target_agent,
	"input_hash": input.derived.input_hash,
	"stage": _state.status,
} if _handoff

# output_ref is the ref of the version the current handoff's output creates, with the
# engine's hash of its content.
output_ref := {
	"id": _output.id,
	"type": _output.type,
	"version": _output.version,
	"hash": input.derived.output_hash,
}

# artifact_event is the artifact_recorded event for the current handoff's output, with
# the given status ("draft", "under_review" or "approved").
artifact_event(status) := {
	"type": "artifact_recorded",
	"ref": output_ref,
	"status": status,
	"producer": lib.request.source_agent,
	"based_on": object.get(lib.request, "input_artifacts", []),
	"assumptions": object.get(lib.request, "assumptions", []),
	"limitations": object.get(lib.request, "limitations", []),
	"content": _output.content,
}
