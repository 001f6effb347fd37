package handoff.core

import data.handoff.lib

# METADATA
# title: Stale state version
# description: >-
#   The request carries expected_version and the workflow has moved on (or the request
#   claims a version it never reached): optimistic concurrency refuses the write.
# custom:
#   code: STALE_STATE_VERSION
#   outcome: block
reasons contains r if {
	lib.valid
	expected := lib.request.expected_version
	is_number(expected)
	expected != _state.state_version
	r := lib.reason(rego.metadata.rule(), sprintf("expected state_version %v, but workflow %q is at %v", [expected, _workflow_id, _state.state_version]), "expected_version")
}

# METADATA
# title: Workflow terminal
# description: >-
#   The workflow reached a terminal status (state.terminal, or a status the pack lists
#   as terminal); only the kinds in the core table terminal_exempt_kinds are accepted.
# custom:
#   code: WORKFLOW_TERMINAL
#   outcome: block
reasons contains r if {
	lib.valid
	terminal
	not lib.kind in _guardrails.terminal_exempt_kinds
	r := lib.reason(rego.metadata.rule(), sprintf("workflow %q is in terminal status %q; %s request cannot change it", [_workflow_id, _state.status, lib.with_article(lib.kind)]), "")
}

# terminal holds for a workflow in a terminal status: state.terminal, or a status the
# pack's workflow.terminal lists.
terminal if _state.terminal == true

terminal if _state.status in object.get(lib.pack_contract, ["workflow", "terminal"], [])

# ready holds for a valid request with a workflow snapshot that still takes requests: a
# request a pack judges against its workflow.
ready if {
	lib.valid
	is_object(input.state)
	not terminal
}
