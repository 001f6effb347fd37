package handoff.core

# _pack_routable holds when input.pack names a pack whose tables may be looked up.
_pack_routable if {
	_pack_name != ""
	_pack_name != "core"
}

# _pack is the pack's contract tables, {} when they are missing.
_pack := p if {
	_pack_routable
	p := data.handoff[_pack_name].contract
	is_object(p)
} else := {}

_pack_loaded if count(_pack) > 0

# _guardrails is the core guardrail table, {} when it is missing.
_guardrails := g if {
	g := data.handoff.core.contract
	is_object(g)
} else := {}

_agents := a if {
	a := _pack.agents
	is_object(a)
} else := {}

_roles := r if {
	r := _pack.roles
	is_object(r)
} else := {}

_artifact_contracts := a if {
	a := _pack.artifacts
	is_object(a)
} else := {}

_transitions := t if {
	t := _pack.workflow.transitions
	is_array(t)
} else := []

# _limit is a numeric limit of the pack; undefined when missing (CONTRACT_MISSING blocks).
_limit(name) := n if {
	n := _pack.limits[name]
	is_number(n)
}

_table(name, default_value) := v if {
	v := _guardrails[name]
	type_name(v) == type_name(default_value)
} else := default_value

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

# _missing_pack_tables and _missing_guardrail_tables are the required tables that are
# absent or of the wrong JSON type.
_missing_pack_tables contains t if {
	some t in _required_pack_tables
	type_name(object.get(_pack, t.path, null)) != t.type
}

_missing_guardrail_tables contains t if {
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
	_valid
	not _pack_loaded
	r := _reason("CONTRACT_MISSING", sprintf("no contract tables for pack %q at data.handoff.%s.contract", [_pack_name, _pack_name]), "")
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
	_valid
	_pack_loaded
	some t in _missing_pack_tables
	r := _reason("CONTRACT_MISSING", sprintf("the contract of pack %q has no %s %s", [_pack_name, t.type, concat(".", t.path)]), "")
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
	_valid
	some t in _missing_guardrail_tables
	r := _reason("CONTRACT_MISSING", sprintf("the core guardrail tables have no %s %s", [t.type, concat(".", t.path)]), "")
}
