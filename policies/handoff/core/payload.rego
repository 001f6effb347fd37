package handoff.core

import data.handoff.lib

# METADATA
# title: Missing assumptions
# description: >-
#   A handoff with an output must carry assumptions; an empty list declares "none", an
#   absent field is an error.
# custom:
#   code: MISSING_ASSUMPTIONS
#   outcome: block
reasons contains r if {
	_output
	not is_array(object.get(lib.request, "assumptions", null))
	r := lib.reason(rego.metadata.rule(), sprintf("handoff of %s v%v from %q carries no assumptions (send [] to declare none)", [_output.type, _output.version, _source]), "assumptions")
}

# METADATA
# title: Missing limitations
# description: >-
#   A handoff with an output must carry limitations; an empty list declares "none", an
#   absent field is an error.
# custom:
#   code: MISSING_LIMITATIONS
#   outcome: block
reasons contains r if {
	_output
	not is_array(object.get(lib.request, "limitations", null))
	r := lib.reason(rego.metadata.rule(), sprintf("handoff of %s v%v from %q carries no limitations (send [] to declare none)", [_output.type, _output.version, _source]), "limitations")
}

# METADATA
# title: Missing confidence
# description: A handoff with an output must carry the source agent's confidence_score.
# custom:
#   code: MISSING_CONFIDENCE
#   outcome: block
reasons contains r if {
	_output
	not is_number(object.get(lib.request, "confidence_score", null))
	r := lib.reason(rego.metadata.rule(), sprintf("handoff of %s v%v from %q carries no confidence_score", [_output.type, _output.version, _source]), "confidence_score")
}

# claim_fields are the output content fields holding claims that need sources: the core
# table's claims.fields plus, when a pack's contract has one, its claim_fields list.
claim_fields := {f | some f in _guardrails.claims.fields} | {f | some f in object.get(lib.pack_contract, "claim_fields", [])}

_source_keys := {k | some k in _guardrails.claims.source_keys}

# unsourced_claims are the paths (relative to content) of the claims in the given fields
# of content that name no source: a field holding a list or object of claims checks each
# claim; a field holding one string is one claim without sources.
unsourced_claims(content, fields) := {p |
	some field in fields
	some p in _unsourced_in(field, content[field])
}

_unsourced_in(field, claims) := {field} if {
	is_string(claims)
	trim_space(claims) != ""
} else := {sprintf("%s%s", [field, _claim_key(k)]) |
	_is_collection(claims)
	some k, claim in claims
	not _sourced(claim)
}

_is_collection(x) if is_array(x)

_is_collection(x) if is_object(x)

_claim_key(k) := sprintf("[%d]", [k]) if is_number(k)

else := sprintf(".%v", [k])

# _sourced holds when a claim object names a source under one of the source keys.
_sourced(claim) if {
	some key in _source_keys
	_non_empty(claim[key])
}

_non_empty(v) if {
	is_array(v)
	count(v) > 0
}

_non_empty(v) if {
	is_string(v)
	trim_space(v) != ""
}

# METADATA
# title: Claims without sources
# description: >-
#   An output's content states conclusions (the fields in the core table claims.fields,
#   by default claims and conclusions) and one of them names no source: an output that
#   supports a conclusion without sources is invalid.
# custom:
#   code: MISSING_SOURCES
#   outcome: block
reasons contains r if {
	content := _output.content
	is_object(content)
	some p in unsourced_claims(content, claim_fields)
	r := lib.reason(rego.metadata.rule(), sprintf("output.content.%s in %s v%v states a conclusion without sources (one of %v)", [p, _output.type, _output.version, sort(_source_keys)]), sprintf("output.content.%s", [p]))
}

_normalized(s) := lower(trim_space(s))

_carried_limitations := {_normalized(l) | some l in lib.request.limitations; is_string(l)}

# _drops are the handoff's limitations_dropped entries: a pack whose handoff schema has
# the field lets a limitation be dropped with a justification; any other pack's closed
# schema refuses it, so there none is.
_drops := [d | some d in object.get(lib.request, "limitations_dropped", []); is_object(d)]

_declared_drop(l) if {
	some d in _drops
	_normalized(object.get(d, "limitation", "")) == _normalized(l)
}

_justified_drop(l) if {
	some d in _drops
	_normalized(object.get(d, "limitation", "")) == _normalized(l)
	trim_space(object.get(d, "justification", "")) != ""
}

# _dropped are the limitations of input versions the handoff's limitations leave out.
_dropped contains [ref, l] if {
	some [_, ref] in _input_refs
	v := ref_version(ref)
	some l in v.limitations
	is_string(l)
	not _normalized(l) in _carried_limitations
}

_limitation_problems contains sprintf("limitation %q of %s is missing from the handoff's limitations; to drop it, name it in limitations_dropped with a justification", [lib.short(l), _ref_name(ref)]) if {
	some [ref, l] in _dropped
	not _declared_drop(l)
}

_limitation_problems contains sprintf("limitation %q of %s is dropped without a justification", [lib.short(l), _ref_name(ref)]) if {
	some [ref, l] in _dropped
	_declared_drop(l)
	not _justified_drop(l)
}

_limitation_problems contains sprintf("limitation %q of %s is dropped but requires_validation is not true: a person validates the removal", [lib.short(l), _ref_name(ref)]) if {
	some [ref, l] in _dropped
	_declared_drop(l)
	object.get(lib.request, "requires_validation", false) != true
}

# METADATA
# title: Limitation dropped
# description: >-
#   Every limitation recorded on an input artifact version travels on (compared without
#   case and surrounding blanks), unless the handoff names it in limitations_dropped with
#   a justification and asks for a person's validation (requires_validation true): an
#   inherited limitation is never removed without justification. Only a pack whose
#   handoff schema has limitations_dropped allows a drop at all.
# custom:
#   code: LIMITATION_DROPPED
#   outcome: block
reasons contains r if {
	some msg in _limitation_problems
	r := lib.reason(rego.metadata.rule(), msg, "limitations")
}
