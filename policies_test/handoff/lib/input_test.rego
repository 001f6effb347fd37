package handoff.lib_test

import data.handoff.lib

_handoff := {
	"pack": "campaign",
	"request": {
		"kind": "handoff",
		"actor": {"type": "agent", "id": "researcher", "roles": ["writer"]},
		"input_artifacts": [{"type": "A", "version": 1}, {"type": "B", "version": 2}, "not a reference"],
		"output": {"type": "C", "content": {"x": 1}},
	},
	"validation": {"errors": []},
	"state": {"status": "RESEARCH"},
}

test_input_read if {
	lib.valid with input as _handoff
	lib.kind == "handoff" with input as _handoff
	lib.status == "RESEARCH" with input as _handoff
	lib.pack == "campaign" with input as _handoff
	lib.actor_id == "researcher" with input as _handoff
	lib.actor_type == "agent" with input as _handoff
	lib.actor_roles == {"writer"} with input as _handoff
	lib.content == {"x": 1} with input as _handoff
	lib.input_types == {"A", "B"} with input as _handoff
	lib.inputs_of("B") == [{"type": "B", "version": 2}] with input as _handoff
}

# Without a request or a workflow every value has its empty default, and nothing is valid.
test_input_defaults if {
	inp := {"validation": {"errors": [{"code": "X"}]}}
	not lib.valid with input as inp
	lib.request == {} with input as inp
	lib.state == {} with input as inp
	lib.kind == "" with input as inp
	lib.status == "NONE" with input as inp
	lib.pack == "" with input as inp
	lib.actor == {} with input as inp
	lib.actor_id == "" with input as inp
	lib.content == {} with input as inp
	lib.inputs == [] with input as inp
	not lib.output with input as inp
}

# A request that does not decode, or fails its definition, is not valid.
test_invalid_requests if {
	not lib.valid with input as object.union(_handoff, {"validation": {"errors": [{"code": "X"}]}})
	not lib.valid with input as object.remove(_handoff, ["request"])
	lib.kind == "" with input as object.union(_handoff, {"request": {"kind": 5}})
}
