# Package handoff.core holds the generic guardrails every pack inherits and the helpers a
# pack builds its decision with. A pack imports it as data.handoff.core and returns
# core.decide(reasons, proposal) from its decision rule, where reasons holds core.reasons
# and the pack's own reasons.
#
# Every rule reads input (request, validation, state, derived, now) and two tables: the
# pack's contract at data.handoff[input.pack].contract and the core guardrail tables at
# data.handoff.core.contract. A deny rule never fails open: a missing table denies.
package handoff.core

# _request is the decoded request, or {} when the engine could not decode one.
_request := input.request if is_object(input.request)

else := {}

# _state is the workflow snapshot; undefined when no workflow could be loaded.
_state := input.state if is_object(input.state)

# _valid holds when the request decoded and passed its CUE definition. Semantic checks
# run only on valid requests: an invalid one is blocked by its validation errors alone.
_valid if {
	is_array(input.validation.errors)
	count(input.validation.errors) == 0
	is_object(input.request)
}

_kind := k if {
	k := _request.kind
	is_string(k)
} else := ""

_actor := a if {
	a := _request.actor
	is_object(a)
} else := {}

_actor_type := object.get(_actor, "type", "")

_actor_id := object.get(_actor, "id", "")

_pack_name := input.pack if is_string(input.pack)

else := ""

_workflow_id := object.get(_state, "workflow_id", "") if _state

else := ""

# _handoff holds for a valid handoff request.
_handoff if {
	_valid
	input.request.kind == "handoff"
}

# _output is the new artifact a valid handoff delivers.
_output := o if {
	_handoff
	o := _request.output
	is_object(o)
}

# _edge is the handoff's "source>target".
_edge := sprintf("%s>%s", [_request.source_agent, _request.target_agent]) if _handoff

# _reason builds a reason that blocks; path "" leaves the path out. meta is the METADATA
# of the rule that produces the reason, rego.metadata.rule() called in that rule (OPA
# makes it a constant when it compiles the policy): the reason's code is its
# custom.code and its title its title, so a reason always names the rule that produced
# it and its code cannot disagree with that rule's METADATA.
_reason(meta, message, path) := _reason_outcome(meta, message, path, "block")

_reason_outcome(meta, message, path, outcome) := object.union(_reason_head(meta), {"message": message, "path": path, "outcome": outcome}) if {
	path != ""
} else := object.union(_reason_head(meta), {"message": message, "outcome": outcome})

# _reason_head is the code and title of a reason. A rule without METADATA (or an else
# branch, for which rego.metadata.rule() is {}) gives null for both: the decision then
# fails the engine's check of #Reason and the request is blocked (POLICY_ERROR), never
# allowed for want of a code.
_reason_head(meta) := {
	"code": object.get(meta, ["custom", "code"], null),
	"title": object.get(meta, "title", null),
}

# _path_string turns a walk path into the request path notation: output.content.claims[2].
_path_string(path) := concat("", [_segment(i, s) | some i, s in path])

_segment(i, s) := sprintf("[%d]", [s]) if is_number(s)

else := s if i == 0

else := sprintf(".%v", [s])

# _short cuts quoted text down to 80 characters for messages.
_short(s) := sprintf("%s...", [substring(s, 0, 77)]) if count(s) > 80

else := s

# with_article puts "a" or "an" before a word for messages: "an approval", "a handoff".
with_article(word) := sprintf("an %s", [word]) if {
	regex.match(`^[aeiouAEIOU]`, word)
} else := sprintf("a %s", [word])
