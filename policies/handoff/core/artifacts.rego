package handoff.core

import data.handoff.lib

# artifact is the history of one artifact type in the workflow state:
# {id, latest, approved, versions}. Undefined when the type has no version yet.
artifact(type) := h if {
	h := _state.artifacts[type]
	is_object(h)
}

# artifact_version is version n of an artifact type as the state records it:
# {ref, status, producer, based_on, assumptions, limitations, content, recorded_at}.
artifact_version(type, n) := v if {
	is_number(n)
	v := artifact(type).versions[format_int(n, 10)]
	is_object(v)
}

# latest_version is the highest recorded version of an artifact type.
latest_version(type) := artifact_version(type, artifact(type).latest)

# approved_version is the highest approved version of an artifact type; undefined when
# none is approved.
approved_version(type) := v if {
	n := artifact(type).approved
	n > 0
	v := artifact_version(type, n)
}

# ref_version is the recorded version a ref points at by type and version (id and hash
# are not compared; see ref_matches).
ref_version(ref) := artifact_version(ref.type, ref.version)

# ref_matches holds when a ref names a recorded version with the same id and hash.
ref_matches(ref) if {
	v := ref_version(ref)
	v.ref.id == ref.id
	v.ref.hash == ref.hash
}

# is_approved holds when a recorded version's status counts as approved.
is_approved(version) if version.status in _guardrails.approved_statuses

# requires_approval holds when the type's contract requires approval; a type without a
# contract requires it (fail closed).
requires_approval(type) if object.get(_artifact_contracts, [type, "requires_approval"], true) != false

_latest_number(type) := n if {
	n := artifact(type).latest
	is_number(n)
} else := 0

# _input_refs are the handoff's input refs with their request paths.
_input_refs contains [sprintf("input_artifacts[%d]", [i]), ref] if {
	_handoff
	some i, ref in lib.request.input_artifacts
}

_review_refs contains [sprintf("artifacts[%d]", [i]), ref] if {
	lib.valid
	input.request.kind == "review"
	some i, ref in lib.request.artifacts
}

_resolution_refs contains ["chosen", ref] if {
	lib.valid
	input.request.kind == "resolution"
	ref := lib.request.chosen
	is_object(ref)
}

# _state_refs are the refs checked against the recorded versions (approvals are checked
# as APPROVAL_INVALID).
_state_refs := (_input_refs | _review_refs) | _resolution_refs

_ref_name(ref) := sprintf("%s v%v", [ref.type, ref.version])

# _embedded_refs are the artifact references the engine found anywhere else in the
# request (input.derived.refs: in a context, a source list, a claim, a report), each a
# claim about the workflow's recorded versions: the output itself, the inputs, the
# reviewed and approved versions and a resolution's choice have rules of their own.
_embedded_refs contains [ref.path, ref] if {
	lib.valid
	input.state
	some ref in _derived_refs
	not _dedicated_ref_path(ref.path)
}

_derived_refs := r if {
	r := input.derived.refs
	is_array(r)
} else := []

_dedicated_ref_path(path) if path == "output"

_dedicated_ref_path(path) if path == "chosen"

_dedicated_ref_path(path) if regex.match(`^(input_artifacts|artifacts)\[[0-9]+\]$`, path)

# METADATA
# title: Embedded reference not recorded
# description: >-
#   An artifact reference anywhere in the request ({id, type, version, hash}: in a
#   context, a source list, a claim, a report) names a version this workflow has not
#   recorded, another artifact id, or another hash: a reference is believed only when it
#   resolves to this tenant's recorded version, whatever the field calls it.
# custom:
#   code: ARTIFACT_NOT_FOUND
#   outcome: block
reasons contains r if {
	some [path, ref] in _embedded_refs
	not ref_version(ref)
	r := lib.reason(rego.metadata.rule(), sprintf("%s is not recorded in workflow %q", [_ref_name(ref), _workflow_id]), path)
}

# METADATA
# title: Embedded reference names another id
# description: >-
#   An artifact reference anywhere in the request names a recorded type and version but
#   another artifact id.
# custom:
#   code: ARTIFACT_NOT_FOUND
#   outcome: block
reasons contains r if {
	some [path, ref] in _embedded_refs
	v := ref_version(ref)
	v.ref.id != ref.id
	r := lib.reason(rego.metadata.rule(), sprintf("%s has id %q, not %q", [_ref_name(ref), v.ref.id, ref.id]), sprintf("%s.id", [path]))
}

# METADATA
# title: Embedded reference hash differs
# description: >-
#   An artifact reference anywhere in the request names a recorded version with another
#   hash than the one recorded.
# custom:
#   code: HASH_MISMATCH
#   outcome: block
reasons contains r if {
	some [path, ref] in _embedded_refs
	v := ref_version(ref)
	v.ref.hash != ref.hash
	r := lib.reason(rego.metadata.rule(), sprintf("hash of %s differs from the recorded hash %s", [_ref_name(ref), v.ref.hash]), sprintf("%s.hash", [path]))
}

# METADATA
# title: Artifact version not recorded
# description: >-
#   A handoff input, a reviewed artifact or a resolution's chosen version names a type
#   and version the workflow has not recorded.
# custom:
#   code: ARTIFACT_NOT_FOUND
#   outcome: block
reasons contains r if {
	some [path, ref] in _state_refs
	not ref_version(ref)
	r := lib.reason(rego.metadata.rule(), sprintf("%s is not recorded in workflow %q (latest recorded version: %d)", [_ref_name(ref), _workflow_id, _latest_number(ref.type)]), path)
}

# METADATA
# title: Artifact id differs
# description: A ref names a recorded type and version but another artifact id.
# custom:
#   code: ARTIFACT_NOT_FOUND
#   outcome: block
reasons contains r if {
	some [path, ref] in _state_refs
	v := ref_version(ref)
	v.ref.id != ref.id
	r := lib.reason(rego.metadata.rule(), sprintf("%s has id %q, not %q", [_ref_name(ref), v.ref.id, ref.id]), sprintf("%s.id", [path]))
}

# METADATA
# title: Input hash differs
# description: A ref's hash differs from the hash recorded for that version.
# custom:
#   code: HASH_MISMATCH
#   outcome: block
reasons contains r if {
	some [path, ref] in _state_refs
	v := ref_version(ref)
	v.ref.hash != ref.hash
	r := lib.reason(rego.metadata.rule(), sprintf("hash of %s differs from the recorded hash %s", [_ref_name(ref), v.ref.hash]), sprintf("%s.hash", [path]))
}

# METADATA
# title: Output hash differs
# description: The output names a hash and it differs from the engine's hash of output.content.
# custom:
#   code: HASH_MISMATCH
#   outcome: block
reasons contains r if {
	given := _output.hash
	given != input.derived.output_hash
	r := lib.reason(rego.metadata.rule(), sprintf("output %s v%v gives hash %s but its content hashes to %s", [_output.type, _output.version, given, input.derived.output_hash]), "output.hash")
}

# METADATA
# title: Input older than the approved version
# description: >-
#   A handoff works from a version older than the approved one of a type whose contract
#   requires approval.
# custom:
#   code: VERSION_MISMATCH
#   outcome: block
reasons contains r if {
	some [path, ref] in _input_refs
	ref_version(ref)
	requires_approval(ref.type)
	approved := artifact(ref.type).approved
	ref.version < approved
	r := lib.reason(rego.metadata.rule(), sprintf("%s is older than the approved version %v", [_ref_name(ref), approved]), sprintf("%s.version", [path]))
}

# METADATA
# title: Superseded input version
# description: >-
#   A handoff works from a version older than the latest of a type whose contract does not require approval.
# custom:
#   code: VERSION_MISMATCH
#   outcome: block
reasons contains r if {
	some [path, ref] in _input_refs
	ref_version(ref)
	not requires_approval(ref.type)
	ref.version < _latest_number(ref.type)
	r := lib.reason(rego.metadata.rule(), sprintf("%s is superseded by version %v", [_ref_name(ref), _latest_number(ref.type)]), sprintf("%s.version", [path]))
}

# METADATA
# title: Outdated reviewed version
# description: A review judges a version older than the latest recorded one.
# custom:
#   code: VERSION_MISMATCH
#   outcome: block
reasons contains r if {
	some [path, ref] in _review_refs
	ref_version(ref)
	ref.version < _latest_number(ref.type)
	r := lib.reason(rego.metadata.rule(), sprintf("review of %s, but the latest version is %v", [_ref_name(ref), _latest_number(ref.type)]), sprintf("%s.version", [path]))
}

# METADATA
# title: Output supersedes the wrong version
# description: The output's supersedes is not the latest recorded version of its type.
# custom:
#   code: VERSION_MISMATCH
#   outcome: block
reasons contains r if {
	s := _output.supersedes
	s != _latest_number(_output.type)
	r := lib.reason(rego.metadata.rule(), sprintf("output %s v%v supersedes version %v, but the latest recorded version is %v", [_output.type, _output.version, s, _latest_number(_output.type)]), "output.supersedes")
}

# METADATA
# title: Input artifact not approved
# description: >-
#   A handoff works from a version whose contract requires approval (or whose type has
#   no contract) and that version is not approved or final.
# custom:
#   code: ARTIFACT_NOT_APPROVED
#   outcome: block
reasons contains r if {
	some [path, ref] in _input_refs
	v := ref_version(ref)
	requires_approval(ref.type)
	not is_approved(v)
	r := lib.reason(rego.metadata.rule(), sprintf("%s is %s; pack %q requires an approved version before use", [_ref_name(ref), v.status, lib.pack]), path)
}

# METADATA
# title: Version would be overwritten
# description: >-
#   An output's version is not above the latest recorded version of its type: recorded
#   versions are immutable, and a correction is a new version.
# custom:
#   code: ARTIFACT_IMMUTABLE
#   outcome: block
reasons contains r if {
	v := _output.version
	latest := _latest_number(_output.type)
	v <= latest
	r := lib.reason(rego.metadata.rule(), sprintf("output %s v%v would overwrite a recorded version (latest is v%v); send v%v", [_output.type, v, latest, latest + 1]), "output.version")
}

# METADATA
# title: Version numbers skipped
# description: >-
#   An output's version is more than one above the latest recorded version of its type.
# custom:
#   code: ARTIFACT_IMMUTABLE
#   outcome: block
reasons contains r if {
	v := _output.version
	latest := _latest_number(_output.type)
	v > latest + 1
	r := lib.reason(rego.metadata.rule(), sprintf("output %s v%v skips versions: the next version is v%v", [_output.type, v, latest + 1]), "output.version")
}

# METADATA
# title: Artifact id changes
# description: An output gives a new version of a type another id than its recorded versions carry.
# custom:
#   code: ARTIFACT_IMMUTABLE
#   outcome: block
reasons contains r if {
	h := artifact(_output.type)
	_output.id != h.id
	r := lib.reason(rego.metadata.rule(), sprintf("output %s has id %q, but the artifact's id is %q", [_output.type, _output.id, h.id]), "output.id")
}
