package handoff.video

import data.handoff.lib

# Completeness: the seed's "标记具体缺失字段". Every field of an artifact is filled in: a
# blank string or an empty list is a missing field, reported with its exact path, one
# reason per field. The key itself is required by the CUE contract; what the policy
# checks is that it holds something.

# _completeness_gate names, per artifact type, the gate or checklist item a missing
# field fails.
# The table is config.completeness_gate in contracts/video/config.cue.
_completeness_gate := object.get(lib.pack_config, "completeness_gate", {})

# _may_be_blank are the fields the seed marks optional (可选, 如有): blank is allowed
# (negative prompts have their own checklist item).
# The table is config.may_be_blank in contracts/video/config.cue.
_may_be_blank := {f | some f in object.get(lib.pack_config, "may_be_blank", [])}

# _may_be_empty are the lists whose empty value is a declaration: no constraints, a
# scene without characters, a scene without dialogue, no client feedback.
# The table is config.may_be_empty in contracts/video/config.cue.
_may_be_empty := {f | some f in object.get(lib.pack_config, "may_be_empty", [])}

_missing_value(value, key) if {
	is_string(value)
	trim_space(value) == ""
	not key in _may_be_blank
}

_missing_value(value, key) if {
	is_array(value)
	count(value) == 0
	not key in _may_be_empty
}

_emptiness(value) := "blank" if is_string(value)

else := "empty list"

# _blankish holds for an artifact with a blank string or an empty list anywhere: found
# without building paths, so that a complete artifact never pays for them.
_blankish(type) if {
	walk(_doc(type), [_, value])
	_empty_value(value)
}

_empty_value(value) if {
	is_string(value)
	trim_space(value) == ""
}

_empty_value(value) if {
	is_array(value)
	count(value) == 0
}

# _incomplete are the missing fields of every artifact in scope.
_incomplete contains f if {
	some type in _scope
	gate := _completeness_gate[type]
	_blankish(type)
	walk(_doc(type), [path, value])
	count(path) > 0
	_missing_value(value, path[count(path) - 1])
	p := _path_string(path)
	f := _missing_field(type, gate, sprintf("%s: %s is missing (%s)", [_label(type), p, _emptiness(value)]), _at(type, p))
}

# _may_be_pending are the top-level fields of each type that may hold a pending value
# (the client's own words: "deadline: 待定").
# The table is config.may_be_pending in contracts/video/config.cue.
_may_be_pending := object.get(lib.pack_config, "may_be_pending", {})

# A field that says the work is still to be done (TBD, 待定, 待补充, "？？", "……") is
# as missing as a blank one: the producer has not filled it in.
_incomplete contains f if {
	some type in _scope
	gate := _completeness_gate[type]
	walk(_doc(type), [path, value])
	is_string(value)
	_pending(value)
	lib.non_blank(value)
	count(path) > 0
	not path[0] in object.get(_may_be_pending, type, [])
	p := _path_string(path)
	f := _missing_field(type, gate, sprintf("%s: %s is missing (%q says it is still to be done)", [_label(type), p, value]), _at(type, p))
}

# An artifact type the policy does not know how to check is incomplete by definition
# (fail closed).
_incomplete contains f if {
	some type in _scope
	not _completeness_gate[type]
	f := _missing_field(type, "required_fields_complete", sprintf("%s: the video pack has no completeness check for this artifact type", [_label(type)]), _prefix(type))
}

# METADATA
# title: Artifact incomplete
# description: >-
#   A field of an artifact is blank, an empty list, or a value that says the work is
#   still to be done (TBD, 待定, 待补充, "？？": config.pending_placeholders, compared
#   normalised) (工件不完整): one reason per missing field, with its path. At a
#   handoff the artifact is recorded and returned to its producer at once; at a check
#   the receiving agent's review returns it. The next agent never fills the gap
#   itself; the producer resubmits a new version.
# custom:
#   code: ARTIFACT_INCOMPLETE
#   outcome: revise
_missing_field(type, gate, message, path) := _failure(rego.metadata.rule(), type, gate, message, path)

reasons contains f.reason if some f in _incomplete

# --- paths ---------------------------------------------------------------------------

# _path_string turns a walk path into the request path notation: characters[1].visual_notes.
_path_string(path) := lib.path_string(path)

# _at is the full path of a field of an artifact: output.content.x or
# artifacts.T.vN.content.x.
_at(type, p) := _prefix(type) if p == ""

else := sprintf("%s%s", [_prefix(type), p]) if startswith(p, "[")

else := sprintf("%s.%s", [_prefix(type), p])

# _failure is one failed item: the artifact it returns and its reason, built from meta,
# the METADATA of the rule that names the kind of failure (_missing_field,
# _gate_failure, _attestation_missing, _attested_failed, _reported_failure,
# _defect_failure).
_failure(meta, type, gate, message, path) := {
	"artifact": type,
	"reason": lib.gate_reason(meta, message, path, gate, "revise"),
}
