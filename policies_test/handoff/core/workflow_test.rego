package handoff.core_test

import data.handoff.lib

test_stale_state_version if {
	inp := with_request(handoff_input, {"expected_version": 3})
	codes_for(inp) == {"STALE_STATE_VERSION"}
	contains(message_of(inp, "STALE_STATE_VERSION", "expected_version"), "expected state_version 3, but workflow \"wf-1\" is at 4")
}

test_stale_state_version_twin if {
	clean(with_request(handoff_input, {"expected_version": 4}))
	clean(set_request(handoff_input, object.remove(handoff_request, ["expected_version"])))
}

done_state := {"status": "DONE", "terminal": true}

test_workflow_terminal if {
	every kind in ["handoff", "review", "approval", "failure", "resolution", "outcome", "cancel"] {
		inp := with_state(all_inputs[kind], done_state)
		"WORKFLOW_TERMINAL" in codes_for(inp)
	}
	codes_for(with_state(cancel_input, done_state)) == {"WORKFLOW_TERMINAL"}
}

# A status the pack lists as terminal is terminal even if the flag lags behind.
test_workflow_terminal_by_status if {
	"WORKFLOW_TERMINAL" in codes_for(with_state(cancel_input, {"status": "CANCELLED", "terminal": false}))
}

test_workflow_terminal_twin if {
	clean(with_state(cancel_input, {"status": "QA", "terminal": false}))
}

test_workflow_terminal_start_exempt if {
	not "WORKFLOW_TERMINAL" in codes_for(with_state(start_input, done_state))
}

test_messages_use_the_right_article if {
	lib.with_article("approval") == "an approval"
	lib.with_article("outcome") == "an outcome"
	lib.with_article("enrichment") == "an enrichment"
	lib.with_article("handoff") == "a handoff"
}

test_terminal_message_article if {
	inp := with_state(approval_input, done_state)
	contains(message_of(inp, "WORKFLOW_TERMINAL", ""), "an approval request cannot change it")
}
