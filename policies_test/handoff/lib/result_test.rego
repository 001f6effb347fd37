package handoff.lib_test

import data.handoff.lib

# _meta stands for the METADATA a rule's rego.metadata.rule() gives.
_meta := {"title": "Something wrong", "description": "d", "custom": {"code": "X", "outcome": "block"}}

test_reason if {
	lib.reason(_meta, "m", "a.b") == {"code": "X", "title": "Something wrong", "message": "m", "path": "a.b", "outcome": "block"}
	lib.reason(_meta, "m", "") == {"code": "X", "title": "Something wrong", "message": "m", "outcome": "block"}
}

test_reason_outcome_and_gate if {
	lib.reason_outcome(_meta, "m", "p", "await_human") == {"code": "X", "title": "Something wrong", "message": "m", "path": "p", "outcome": "await_human"}
	lib.gate_reason(_meta, "m", "", "CTRL-3", "revise") == {"code": "X", "title": "Something wrong", "message": "m", "outcome": "revise", "gate": "CTRL-3"}
}

# A reason built without METADATA (a rule without it, or an else branch, gets {}) has a
# null code and title: the engine's check of #Reason then fails the decision closed.
test_reason_without_metadata_fails_closed if {
	lib.reason({}, "m", "") == {"code": null, "title": null, "message": "m", "outcome": "block"}
}

# METADATA
# title: Rule under test
# custom:
#   code: TEST_CODE
test_reason_reads_the_calling_rules_metadata if {
	r := lib.reason(rego.metadata.rule(), "m", "")
	r.code == "TEST_CODE"
	r.title == "Rule under test"
}

test_blocking if {
	lib.blocking({"code": "X"})
	lib.blocking({"code": "X", "outcome": "block"})
	not lib.blocking({"code": "X", "outcome": "await_human"})
}
