package handoff.core

import data.handoff.lib

# _actor_pack_roles are the actor's roles the pack defines.
_actor_pack_roles contains role if {
	some role in object.get(lib.actor, "roles", [])
	_role(role)
}

_approval if {
	lib.valid
	input.request.kind == "approval"
}

_has_stage if is_string(lib.request.stage)

_approval_refs := object.get(lib.request, "artifacts", []) if _approval

# _may_approve holds when one of the actor's roles approves the artifact type or stage.
_may_approve(name) if {
	some role in _actor_pack_roles
	name in object.get(_roles[role], "approves", [])
}

_may_resolve if {
	some role in _actor_pack_roles
	_roles[role].resolves_conflicts == true
}

# METADATA
# title: Only a person decides
# description: >-
#   Approvals and resolutions (the core table human_only_kinds) are sent by a person;
#   an agent or the host may not send one.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	lib.valid
	lib.kind in _guardrails.human_only_kinds
	lib.actor_type != "human"
	r := lib.reason(rego.metadata.rule(), sprintf("%s %q may not send %s request; only a person with a role of pack %q may", [lib.actor_type, lib.actor_id, lib.with_article(lib.kind), lib.pack]), "actor.type")
}

# METADATA
# title: Only an agent reviews
# description: >-
#   The kinds of the core table agent_only_kinds (a review) are an agent's verdict: a
#   person or the host may not send one, under any id.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	lib.valid
	lib.kind in _guardrails.agent_only_kinds
	lib.actor_type != "agent"
	r := lib.reason(rego.metadata.rule(), sprintf("%s %q may not send %s request; only an agent of pack %q may", [lib.actor_type, lib.actor_id, lib.with_article(lib.kind), lib.pack]), "actor.type")
}

# METADATA
# title: Agent sends a forbidden kind
# description: >-
#   Agents never send the kinds in the core table agent_forbidden_kinds (approval,
#   resolution, cancel), whatever their registry entry says.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	lib.valid
	lib.kind in _guardrails.agent_forbidden_kinds
	not lib.kind in _guardrails.human_only_kinds
	lib.actor_type == "agent"
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q may not send %s request", [lib.actor_id, lib.with_article(lib.kind)]), "actor.type")
}

# METADATA
# title: Person without a role of the pack
# description: A person sends an approval or resolution but holds no role the pack defines.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	lib.valid
	lib.kind in _guardrails.human_only_kinds
	lib.actor_type == "human"
	count(_actor_pack_roles) == 0
	r := lib.reason(rego.metadata.rule(), sprintf("person %q holds no role of pack %q (roles given: %v)", [lib.actor_id, lib.pack, object.get(lib.actor, "roles", [])]), "actor.roles")
}

# METADATA
# title: Person may not resolve conflicts
# description: A person with roles of the pack resolves a conflict, but none of the roles resolves conflicts.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	lib.valid
	input.request.kind == "resolution"
	lib.actor_type == "human"
	count(_actor_pack_roles) > 0
	not _may_resolve
	r := lib.reason(rego.metadata.rule(), sprintf("no role of person %q in pack %q resolves conflicts", [lib.actor_id, lib.pack]), "actor.roles")
}

# METADATA
# title: Approver role required
# description: >-
#   A person with roles of the pack approves an artifact type or stage that none of the
#   roles approves: the approval of a role that approves it is still required.
# custom:
#   code: APPROVAL_REQUIRED
#   outcome: block
reasons contains r if {
	_approval
	lib.actor_type == "human"
	count(_actor_pack_roles) > 0
	some i, ref in _approval_refs
	not _may_approve(object.get(ref, "type", ""))
	r := lib.reason(rego.metadata.rule(), sprintf("%s needs the approval of a role that approves it; person %q has %v", [ref.type, lib.actor_id, sort(_actor_pack_roles)]), sprintf("artifacts[%d]", [i]))
}

# METADATA
# title: Stage approver role required
# description: >-
#   A person with roles of the pack approves a stage that none of the roles approves.
# custom:
#   code: APPROVAL_REQUIRED
#   outcome: block
reasons contains r if {
	_approval
	lib.actor_type == "human"
	count(_actor_pack_roles) > 0
	stage := lib.request.stage
	not _may_approve(stage)
	r := lib.reason(rego.metadata.rule(), sprintf("stage %s needs the approval of a role that approves it; person %q has %v", [stage, lib.actor_id, sort(_actor_pack_roles)]), "stage")
}

# METADATA
# title: Approval names nothing
# description: An approval names neither artifact versions nor a stage.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_approval
	count(_approval_refs) == 0
	not _has_stage
	r := lib.reason(rego.metadata.rule(), sprintf("%s names no artifact version and no stage", [lib.request.decision]), "artifacts")
}

# METADATA
# title: Approved version not recorded
# description: >-
#   An approval names a version the workflow has not recorded: a person's decision is
#   bound to exactly what was recorded.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_approval
	some i, ref in _approval_refs
	not ref_version(ref)
	r := lib.reason(rego.metadata.rule(), sprintf("%s is not recorded in workflow %q", [_ref_name(ref), _workflow_id]), sprintf("artifacts[%d]", [i]))
}

# METADATA
# title: Approved artifact id differs
# description: >-
#   An approval names a recorded type and version but another artifact id.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_approval
	some i, ref in _approval_refs
	v := ref_version(ref)
	v.ref.id != ref.id
	r := lib.reason(rego.metadata.rule(), sprintf("%s has id %q, not %q", [_ref_name(ref), v.ref.id, ref.id]), sprintf("artifacts[%d].id", [i]))
}

# METADATA
# title: Approved hash differs
# description: >-
#   An approval's hash differs from the recorded hash of that version: the person saw other content.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_approval
	some i, ref in _approval_refs
	v := ref_version(ref)
	v.ref.hash != ref.hash
	r := lib.reason(rego.metadata.rule(), sprintf("the approved hash of %s differs from the recorded hash %s", [_ref_name(ref), v.ref.hash]), sprintf("artifacts[%d].hash", [i]))
}

# METADATA
# title: Approved version not the latest
# description: >-
#   An approval names a version older than the latest recorded version of its type.
# custom:
#   code: APPROVAL_INVALID
#   outcome: block
reasons contains r if {
	_approval
	some i, ref in _approval_refs
	ref_version(ref)
	ref.version != _latest_number(ref.type)
	r := lib.reason(rego.metadata.rule(), sprintf("%s is not the latest version (v%v)", [_ref_name(ref), _latest_number(ref.type)]), sprintf("artifacts[%d].version", [i]))
}

# METADATA
# title: Self approval
# description: >-
#   The approver produced one of the versions being approved. A version's producer is
#   the agent that handed it off, so the approver is that agent (type agent, same id):
#   an identity is compared by type and id, never by id alone.
# custom:
#   code: SELF_APPROVAL
#   outcome: block
reasons contains r if {
	_approval
	lib.actor_type == "agent"
	some i, ref in _approval_refs
	v := ref_version(ref)
	v.producer == lib.actor_id
	r := lib.reason(rego.metadata.rule(), sprintf("agent %q produced %s and may not approve it", [lib.actor_id, _ref_name(ref)]), sprintf("artifacts[%d]", [i]))
}
