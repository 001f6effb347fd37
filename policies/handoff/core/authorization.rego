package handoff.core

import data.handoff.lib

# _agent is the registry entry of an agent; undefined when the agent (or the registry)
# is missing, so every "not _agent(x)" denies on missing tables.
_agent(id) := a if {
	a := _agents[id]
	is_object(a)
}

# _agent_list is one permission list of an agent, [] when missing.
_agent_list(id, field) := l if {
	l := _agent(id)[field]
	is_array(l)
} else := []

_role(id) := r if {
	r := _roles[id]
	is_object(r)
}

_source := object.get(lib.request, "source_agent", "") if _handoff

_target := object.get(lib.request, "target_agent", "") if _handoff

_actor_is_source if {
	_handoff
	lib.actor_id == _source
}

# METADATA
# title: Source agent not in the registry
# description: A handoff's source_agent is not an agent of the pack's registry.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_handoff
	not _agent(_source)
	r := lib.reason(rego.metadata.rule(), sprintf("source agent %q is not in the agent registry of pack %q", [_source, lib.pack]), "source_agent")
}

# METADATA
# title: Actor is not the source agent
# description: >-
#   An agent sent a handoff in another agent's name: actor.id must equal source_agent
#   when the actor is an agent.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_handoff
	lib.actor_type == "agent"
	lib.actor_id != _source
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q sent a handoff as source agent %q", [lib.actor_id, _source]), "actor.id")
}

# METADATA
# title: Person sends a handoff
# description: >-
#   A handoff is sent by its source agent or by the host (a system actor) on its
#   behalf, never by a person: people act through approvals and resolutions.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_handoff
	lib.actor_type == "human"
	r := lib.reason(rego.metadata.rule(), sprintf("person %q may not send a handoff as agent %q", [lib.actor_id, _source]), "actor.type")
}

# METADATA
# title: Person or host with an agent's id
# description: >-
#   Agents, people and the host are separate namespaces: an identity is its type and its
#   id. A person or a system actor whose id is the id of an agent of the pack's registry
#   is refused, so that no rule, log reader or person can take one for the other (a
#   person named "reviewer" is not the Reviewer agent, and never acts with its
#   permissions or in its place).
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	lib.valid
	lib.actor_type in {"human", "system"}
	_agent(lib.actor_id)
	r := lib.reason(rego.metadata.rule(), sprintf("%s %q carries the id of agent %q of pack %q: an identity is its type and its id, and an agent's id names the agent alone", [lib.actor_type, lib.actor_id, lib.actor_id, lib.pack]), "actor.id")
}

# METADATA
# title: Task not permitted
# description: The handoff's task_type is not among the source agent's tasks.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_handoff
	not object.get(lib.request, "task_type", "") in _agent_list(_source, "tasks")
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q may not perform task %q", [_source, lib.request.task_type]), "task_type")
}

# METADATA
# title: Output type not permitted
# description: The handoff's output type is not among the artifact types the source agent produces.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	t := _output.type
	not t in _agent_list(_source, "produces")
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q may not produce %s", [_source, t]), "output.type")
}

# METADATA
# title: Not the artifact's producer
# description: >-
#   The artifact contract of the output's type names another producer, or the pack has
#   no contract for the type: only the producer may create versions.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	t := _output.type
	not _artifact_contracts[t].producer == _source
	r := lib.reason(rego.metadata.rule(), sprintf("%s is produced only by %q under the contract of pack %q, not by %q", [t, object.get(_artifact_contracts, [t, "producer"], "nobody"), lib.pack, _source]), "output.type")
}

# METADATA
# title: Acting agent not in the registry
# description: >-
#   A request of any kind is sent by an agent the pack's registry does not know (the
#   handoff's own source is checked above).
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	lib.valid
	lib.actor_type == "agent"
	not _actor_is_source
	not _agent(lib.actor_id)
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q is not in the agent registry of pack %q", [lib.actor_id, lib.pack]), "actor.id")
}

# METADATA
# title: Review not permitted
# description: An agent reviews an artifact type its registry entry does not list under reviews.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	lib.valid
	input.request.kind == "review"
	lib.actor_type == "agent"
	some i, ref in lib.request.artifacts
	not object.get(ref, "type", "") in _agent_list(lib.actor_id, "reviews")
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q may not review %s", [lib.actor_id, ref.type]), sprintf("artifacts[%d]", [i]))
}

# METADATA
# title: Failing agent not in the registry
# description: A failure names an agent the pack's registry does not know.
# custom:
#   code: SOURCE_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	lib.valid
	input.request.kind == "failure"
	not _agent(object.get(lib.request, "agent", ""))
	r := lib.reason(rego.metadata.rule(), sprintf("failed agent %q is not in the agent registry of pack %q", [object.get(lib.request, "agent", ""), lib.pack]), "agent")
}

# METADATA
# title: Target not in hands_to
# description: The handoff's target_agent is not among the agents (or roles) the source agent may hand work to.
# custom:
#   code: TARGET_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_handoff
	not _target in _agent_list(_source, "hands_to")
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q may not hand work to %q", [_source, _target]), "target_agent")
}

# METADATA
# title: Unknown target
# description: The handoff's target_agent is neither an agent nor a role of the pack.
# custom:
#   code: TARGET_NOT_AUTHORIZED
#   outcome: block
reasons contains r if {
	_handoff
	not _agent(_target)
	not _role(_target)
	r := lib.reason(rego.metadata.rule(), sprintf("target %q is neither an agent nor a role of pack %q", [_target, lib.pack]), "target_agent")
}
