# Package handoff.lib is the library every policy of the bundle imports, core and packs
# alike (import data.handoff.lib): the one reading of the input, and the helpers a rule
# builds its reasons and messages with. It decides nothing and carries no reason code.
#
# input.rego reads the request the engine gives (request, validation, state, pack); a
# pack reads it through these rules, never through a copy of its own.
package handoff.lib

# request is the decoded request, {} when the engine could not decode one.
request := input.request if is_object(input.request)

else := {}

# state is the workflow snapshot, {} when no workflow could be loaded.
state := input.state if is_object(input.state)

else := {}

# valid holds when the request decoded and passed its CUE definition. Semantic checks
# run only on valid requests: an invalid one is blocked by its validation errors alone.
valid if {
	is_array(input.validation.errors)
	count(input.validation.errors) == 0
	is_object(input.request)
}

# kind is the request's kind (start, handoff, review, ...), "" when it has none.
kind := k if {
	k := request.kind
	is_string(k)
} else := ""

# status is the workflow's status, "NONE" when there is no workflow.
status := s if {
	s := input.state.status
	is_string(s)
} else := "NONE"

# pack is the name of the pack the request is routed to, "" when none.
pack := input.pack if is_string(input.pack)

else := ""

# pack_contract is the tables of the pack the request is routed to
# (data.handoff[input.pack].contract, exported from contracts/<pack>), {} when they are
# missing or the request is routed to no pack.
pack_contract := c if {
	_routed
	c := data.handoff[pack].contract
	is_object(c)
} else := {}

# pack_config is the pack's own configuration tables (data.handoff[input.pack].config,
# exported from the CUE value config of contracts/<pack>), {} when they are missing.
pack_config := c if {
	_routed
	c := data.handoff[pack].config
	is_object(c)
} else := {}

# _routed holds when input.pack names a pack whose tables may be looked up.
_routed if {
	pack != ""
	pack != "core"
}

# actor is the request's actor ({type, id, roles}), {} when it has none.
actor := a if {
	a := request.actor
	is_object(a)
} else := {}

actor_id := object.get(actor, "id", "")

actor_type := object.get(actor, "type", "")

# actor_roles are the roles the actor claims, as a set.
actor_roles := {r | some r in object.get(actor, "roles", [])}

# output is the new artifact a handoff request delivers (valid or not); undefined for
# any other request.
output := o if {
	input.request.kind == "handoff"
	o := request.output
	is_object(o)
}

# content is the content of the handoff's output, {} when there is none.
content := c if {
	c := output.content
	is_object(c)
} else := {}

# inputs are the artifact references the request names as its inputs.
inputs := [r | some r in object.get(request, "input_artifacts", []); is_object(r)]

input_types := {r.type | some r in inputs}

# inputs_of are the inputs of one artifact type.
inputs_of(type) := [r | some r in inputs; r.type == type]
