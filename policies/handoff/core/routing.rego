package handoff.core

import data.handoff.lib

# empty_context is a context package with nothing in it.
empty_context := {"must_know": {}, "may_know": {}}

# actors are the agents and tasks workflow.actors[status] lets act, [] when none.
actors(status) := a if {
	a := lib.pack_contract.workflow.actors[status]
	is_array(a)
} else := []

# routed holds when workflow.actors lets agent perform task in the current status.
routed(agent, task) if {
	some a in actors(lib.status)
	a.agent == agent
	a.task == task
}

# next_for is the routing answer for a status: every agent workflow.actors[status] lets
# act, with its task and an empty context ({must_know: {}, may_know: {}}) for the pack
# to fill. [] when the status has no actors (or the table is missing).
next_for(status) := [{"agent": a.agent, "task": a.task, "context": empty_context} | some a in actors(status)]

# context_package is what the target of an edge ("source>target") receives from
# content, by the pack's context[edge]: {must_know: {field: value}, may_know: {...}}.
# Only listed fields present in content are copied; a do_not_need field never is, even
# when a list names it twice. Both parts are empty when the edge has no package.
context_package(edge, content) := {
	"must_know": _pick(p, "must_know", content),
	"may_know": _pick(p, "may_know", content),
} if {
	p := lib.pack_contract.context[edge]
	is_object(p)
} else := empty_context

_pick(p, part, content) := {f: content[f] |
	some f in object.get(p, part, [])
	not f in object.get(p, "do_not_need", [])
}

# edge_content is the content an edge's package is taken from: the current handoff's
# output when it is of the package's type, else the approved version of that type, else
# its latest version, else {}.
edge_content(edge) := _output.content if {
	_output.type == lib.pack_contract.context[edge].from
} else := v.content if {
	v := approved_version(lib.pack_contract.context[edge].from)
} else := v.content if {
	v := latest_version(lib.pack_contract.context[edge].from)
} else := {}

# edge_context is context_package(edge, edge_content(edge)).
edge_context(edge) := context_package(edge, edge_content(edge))

# next_with_context is next_for(status) with each agent's context filled from the
# package of the edge source>agent.
next_with_context(source, status) := [object.union(n, {"context": edge_context(sprintf("%s>%s", [source, n.agent]))}) |
	some n in next_for(status)
]

# routed_now are the "agent/task" pairs workflow.actors lets act in the current status,
# for messages.
routed_now := [sprintf("%s/%s", [a.agent, a.task]) | some a in actors(lib.status)]

# next_with is next_for(status) restricted to the agents contexts names, each with its
# context.
next_with(status, contexts) := [object.union(n, {"context": contexts[n.agent]}) |
	some n in next_for(status)
	contexts[n.agent]
]

# keyed merges the packages of several artifacts into one context, keyed by artifact
# type, so that equal field names of different artifacts never overwrite each other.
keyed(parts) := {
	"must_know": {t: p.must_know | some t, p in parts},
	"may_know": {t: p.may_know | some t, p in parts; count(p.may_know) > 0},
}
