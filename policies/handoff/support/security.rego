package handoff.support

import data.handoff.lib

# Security as policy (seed phase 12) beyond core's guardrails (secrets, injection,
# tenant and scope isolation): no unnecessary personal data in recorded events, and the
# customer's words and tool content passed on as labeled, untrusted data.

_personal_data_patterns := p if {
	p := lib.pack_config.personal_data
	is_array(p)
} else := []

# _texts are [walk path, text] of every string of the request.
_texts contains [path, s] if {
	walk(lib.request, [path, s])
	is_string(s)
}

_all_text := concat("\n", [s | walk(lib.request, [_, s]); is_string(s)])

_personal_data_hits contains p if {
	some p in _personal_data_patterns
	_may_match(p)
	regex.match(p.regex, _all_text)
}

# _may_match holds when the request's text may hold a match of a pattern: it has no
# keywords, or the text contains one of them (config.personal_data's keywords are ASCII
# without letters or white space, so case folding and spacing change nothing).
_may_match(p) if not p.keywords

_may_match(p) if {
	some k in p.keywords
	contains(_all_text, k)
}

# METADATA
# title: Personal data in a request
# description: >-
#   A string of the request matches one of config.personal_data (e-mail address, phone
#   number, payment card, bank account). Every request is recorded in the log, so the
#   host redacts them first: the workflow keeps a pseudonymous customer reference and
#   the order reference, and the order system keeps the rest. Checked on every decoded
#   request of the pack, valid or not, so that the engine records it redacted
#   (guardrails.redaction). The message names the pattern and the path, never the data.
# custom:
#   code: PERSONAL_DATA_EXPOSED
#   outcome: block
reasons contains r if {
	is_object(input.request)
	some pattern in _personal_data_hits
	some [path, s] in _texts
	regex.match(pattern.regex, s)
	p := _path_string(path)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s holds personal data (%s): redact it before it is recorded", [p, pattern.name]), p, "SEC-PII", "block")
}

_path_string(path) := lib.path_string(path)
