package handoff.core

import data.handoff.lib

_pack_loaded if count(lib.pack_contract) > 0

# _guardrails is the core guardrail table, {} when it is missing.
_guardrails := g if {
	g := data.handoff.core.contract
	is_object(g)
} else := {}

_agents := a if {
	a := lib.pack_contract.agents
	is_object(a)
} else := {}

_roles := r if {
	r := lib.pack_contract.roles
	is_object(r)
} else := {}

_artifact_contracts := a if {
	a := lib.pack_contract.artifacts
	is_object(a)
} else := {}

_transitions := t if {
	t := lib.pack_contract.workflow.transitions
	is_array(t)
} else := []

# limit is a numeric limit of the pack; undefined when missing (CONTRACT_MISSING blocks).
limit(name) := n if {
	n := lib.pack_contract.limits[name]
	is_number(n)
}

# _required_pack_tables are the pack tables the core rules read, with their JSON types.
_required_pack_tables := [
	{"path": ["agents"], "type": "object"},
	{"path": ["artifacts"], "type": "object"},
	{"path": ["workflow", "transitions"], "type": "array"},
	{"path": ["workflow", "terminal"], "type": "array"},
	{"path": ["limits", "max_review_cycles"], "type": "number"},
	{"path": ["limits", "max_handoffs_per_stage"], "type": "number"},
	{"path": ["limits", "max_edge_visits"], "type": "number"},
	{"path": ["limits", "loop_window"], "type": "number"},
	{"path": ["limits", "max_context_bytes"], "type": "number"},
	{"path": ["limits", "retry"], "type": "object"},
	{"path": ["verdicts", "blocking_severities"], "type": "array"},
	{"path": ["verdicts", "failed_items"], "type": "array"},
]

# _required_guardrail_tables are the core tables the core rules read.
_required_guardrail_tables := [
	{"path": ["claims", "fields"], "type": "array"},
	{"path": ["claims", "source_keys"], "type": "array"},
	{"path": ["scope_fields"], "type": "object"},
	{"path": ["trace_required_kinds"], "type": "array"},
	{"path": ["approved_statuses"], "type": "array"},
	{"path": ["conflict_blocked_kinds"], "type": "array"},
	{"path": ["human_only_kinds"], "type": "array"},
	{"path": ["agent_forbidden_kinds"], "type": "array"},
	{"path": ["agent_only_kinds"], "type": "array"},
	{"path": ["terminal_exempt_kinds"], "type": "array"},
	{"path": ["root_causes"], "type": "array"},
	{"path": ["ping_pong_edges"], "type": "number"},
]

# The tables are exported from CUE, which checks them against #Pack and #Guardrails
# when the engine loads them (every table above is required there, with its type), so
# the rules read them as they are. _pack_tables_complete and _guardrail_tables_complete
# say in one step each, by literal lookups, that every required table is there with its
# type; only when one is not are the tables listed one by one.
_pack_tables_complete if {
	is_object(lib.pack_contract.agents)
	is_object(lib.pack_contract.artifacts)
	is_array(lib.pack_contract.workflow.transitions)
	is_array(lib.pack_contract.workflow.terminal)
	is_number(lib.pack_contract.limits.max_review_cycles)
	is_number(lib.pack_contract.limits.max_handoffs_per_stage)
	is_number(lib.pack_contract.limits.max_edge_visits)
	is_number(lib.pack_contract.limits.loop_window)
	is_number(lib.pack_contract.limits.max_context_bytes)
	is_object(lib.pack_contract.limits.retry)
	is_array(lib.pack_contract.verdicts.blocking_severities)
	is_array(lib.pack_contract.verdicts.failed_items)
}

_guardrail_tables_complete if {
	is_array(_guardrails.claims.fields)
	is_array(_guardrails.claims.source_keys)
	is_object(_guardrails.scope_fields)
	is_array(_guardrails.trace_required_kinds)
	is_array(_guardrails.approved_statuses)
	is_array(_guardrails.conflict_blocked_kinds)
	is_array(_guardrails.human_only_kinds)
	is_array(_guardrails.agent_forbidden_kinds)
	is_array(_guardrails.agent_only_kinds)
	is_array(_guardrails.terminal_exempt_kinds)
	is_array(_guardrails.root_causes)
	is_number(_guardrails.ping_pong_edges)
}

# _missing_pack_tables and _missing_guardrail_tables are the required tables that are
# absent or of the wrong JSON type.
_missing_pack_tables contains t if {
	not _pack_tables_complete
	some t in _required_pack_tables
	type_name(object.get(lib.pack_contract, t.path, null)) != t.type
}

_missing_guardrail_tables contains t if {
	not _guardrail_tables_complete
	some t in _required_guardrail_tables
	type_name(object.get(_guardrails, t.path, null)) != t.type
}

# METADATA
# title: Pack contract missing
# description: >-
#   No contract tables were found for the request's pack at
#   data.handoff[input.pack].contract. Every pack-specific check would deny anyway;
#   this reason says why.
# custom:
#   code: CONTRACT_MISSING
#   outcome: block
reasons contains r if {
	lib.valid
	not _pack_loaded
	r := lib.reason(rego.metadata.rule(), sprintf("no contract tables for pack %q at data.handoff.%s.contract", [lib.pack, lib.pack]), "")
}

# METADATA
# title: Pack contract table missing
# description: >-
#   The pack's contract lacks a table or limit the core rules read (a limit, the
#   registry, the state machine). No limit is unlimited: a missing one blocks.
# custom:
#   code: CONTRACT_MISSING
#   outcome: block
reasons contains r if {
	lib.valid
	_pack_loaded
	not _pack_tables_complete
	some t in _missing_pack_tables
	r := lib.reason(rego.metadata.rule(), sprintf("the contract of pack %q has no %s %s", [lib.pack, t.type, concat(".", t.path)]), "")
}

# METADATA
# title: Core guardrail table missing
# description: >-
#   The core guardrail tables (data.handoff.core.contract, exported from
#   contracts/core/guardrails.cue) are missing or lack a table, so content, scope and
#   trace checks cannot run.
# custom:
#   code: CONTRACT_MISSING
#   outcome: block
reasons contains r if {
	lib.valid
	not _guardrail_tables_complete
	some t in _missing_guardrail_tables
	r := lib.reason(rego.metadata.rule(), sprintf("the core guardrail tables have no %s %s", [t.type, concat(".", t.path)]), "")
}
