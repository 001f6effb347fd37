package handoff.core

# _all_text is every string value and every object key of a decoded request, one per
# line: the text the content checks scan. Walking without paths keeps the common case
# (nothing found) cheap; paths are built only after a pattern matched somewhere.
# Forbidden content is looked for in every decoded request, valid or not, routed or not:
# the engine records every request, and one that carries a secret is recorded redacted
# (guardrails.redaction) only when a reason says so. Injection is judged on valid
# requests only.
_all_text := concat("\n", array.concat(
	[s | _request_object; walk(_request, [_, s]); is_string(s)],
	[k | _request_object; walk(_request, [_, v]); is_object(v); some k, _ in v],
))

# _texts are [walk path, text] for every string value and object key.
_texts contains [path, s] if {
	_request_object
	walk(_request, [path, s])
	is_string(s)
}

_texts contains [array.concat(path, [k]), k] if {
	_request_object
	walk(_request, [path, v])
	is_object(v)
	some k, _ in v
}

# _injection_hits and _forbidden_hits are the patterns that match somewhere in the
# request: one scan of an alternation of all patterns first (flags such as (?i) stay
# inside each pattern's group), then each pattern only when that scan found something.
_injection_patterns := _table("injection", [])

_forbidden_patterns := _table("forbidden", [])

_injection_hits contains p if {
	_valid
	regex.match(_table("injection_any", ""), _all_text)
	some p in _injection_patterns
	regex.match(p.regex, _all_text)
}

_forbidden_hits contains p if {
	regex.match(_table("forbidden_any", ""), _all_text)
	some p in _forbidden_patterns
	regex.match(p.regex, _all_text)
}

# METADATA
# title: Injection suspected
# description: >-
#   A string (or key) of the request matches one of the core table's injection
#   patterns: instructions smuggled into data, such as "ignore previous instructions"
#   or "bypass the policy". Text from agents, tools and customers is data, never a command.
# custom:
#   code: INJECTION_SUSPECTED
#   outcome: block
reasons contains r if {
	some pattern in _injection_hits
	some [path, s] in _texts
	regex.match(pattern.regex, s)
	p := _path_string(path)
	r := _reason("INJECTION_SUSPECTED", sprintf("%s matches injection pattern %q", [p, pattern.name]), p)
}

# METADATA
# title: Forbidden content
# description: >-
#   A string (or key) of the request matches one of the core table's forbidden patterns:
#   secrets, credentials, private keys, tokens, raw log lines or stack traces. Checked on
#   every decoded request, valid or not, so that the engine records it redacted
#   (guardrails.redaction). The message names the pattern, never the matched text.
# custom:
#   code: FORBIDDEN_CONTENT
#   outcome: block
reasons contains r if {
	some pattern in _forbidden_hits
	some [path, s] in _texts
	regex.match(pattern.regex, s)
	p := _path_string(path)
	r := _reason("FORBIDDEN_CONTENT", sprintf("%s matches forbidden pattern %q", [p, pattern.name]), p)
}

# METADATA
# title: Do-not-need context field
# description: >-
#   The handoff's context carries a field the edge's context package lists under
#   do_not_need: a target never receives those fields.
# custom:
#   code: FORBIDDEN_CONTENT
#   outcome: block
reasons contains r if {
	ctx := _request.context
	_handoff
	is_object(ctx)
	some field in object.get(_pack, ["context", _edge, "do_not_need"], [])
	field in object.keys(ctx)
	r := _reason("FORBIDDEN_CONTENT", sprintf("context field %q is do-not-need for edge %s", [field, _edge]), sprintf("context.%s", [field]))
}

# METADATA
# title: Context too large
# description: The handoff's context package is larger than limits.max_context_bytes (canonical JSON bytes).
# custom:
#   code: CONTEXT_TOO_LARGE
#   outcome: block
reasons contains r if {
	_valid
	size := input.derived.context_bytes
	size > _limit("max_context_bytes")
	r := _reason("CONTEXT_TOO_LARGE", sprintf("context is %d bytes; pack %q allows %d", [size, _pack_name, _limit("max_context_bytes")]), "context")
}
