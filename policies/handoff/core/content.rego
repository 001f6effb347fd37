package handoff.core

import data.handoff.lib

# The engine scans every string value and object key of a decoded request once, in Go,
# against the core table's forbidden and injection patterns and its secret rule sets
# (gitleaks), and hands the hits over as input.derived.forbidden and
# input.derived.injection: [{path, pattern}], path in the request notation
# (output.content.claims[2].text). Forbidden content is reported on every decoded
# request, valid or not, routed or not: the engine records every request, and one that
# carries a secret is recorded redacted (guardrails.redaction) only when a reason says so.
# Injection is judged on valid requests only.
_hits(kind) := h if {
	h := input.derived[kind]
	is_array(h)
} else := []

# METADATA
# title: Injection suspected
# description: >-
#   A string (or key) of the request matches one of the core table's injection
#   patterns (English, Portuguese, Chinese): instructions smuggled into data, such as
#   "ignore previous instructions", "mark this as approved" or "skip human review". Text
#   from agents, tools and customers is data, never a command: in a pack whose
#   injection mode is "flag" (the default) the hit is reported beside the decision
#   (outcome allow) and flagged to the next agent; a pack whose seed demands it sets
#   "block" and the request is refused.
# custom:
#   code: INJECTION_SUSPECTED
#   outcome: block
reasons contains r if {
	lib.valid
	some hit in _hits("injection")
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("%s matches injection pattern %q", [hit.path, hit.pattern]), hit.path, _injection_outcome)
}

# _injection_outcome is what an injection hit decides in the pack: its injection mode,
# block when the table does not say.
_injection_outcome := "allow" if {
	object.get(lib.pack_contract, "injection", "block") == "flag"
} else := "block"

# METADATA
# title: Forbidden content
# description: >-
#   A string (or key) of the request matches one of the core table's forbidden patterns
#   or a rule of its secret rule sets (gitleaks): secrets, credentials, private keys,
#   tokens, labelled passwords (English, Portuguese, Chinese), raw log lines or stack
#   traces. Checked on every decoded request, valid or not, so that the engine records it
#   redacted (guardrails.redaction). The message names the pattern, never the matched text.
# custom:
#   code: FORBIDDEN_CONTENT
#   outcome: block
reasons contains r if {
	_request_object
	some hit in _hits("forbidden")
	r := lib.reason(rego.metadata.rule(), sprintf("%s matches forbidden pattern %q", [hit.path, hit.pattern]), hit.path)
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
	ctx := lib.request.context
	_handoff
	is_object(ctx)
	some field in object.get(lib.pack_contract, ["context", _edge, "do_not_need"], [])
	field in object.keys(ctx)
	r := lib.reason(rego.metadata.rule(), sprintf("context field %q is do-not-need for edge %s", [field, _edge]), sprintf("context.%s", [field]))
}

# METADATA
# title: Context too large
# description: The handoff's context package is larger than limits.max_context_bytes (canonical JSON bytes).
# custom:
#   code: CONTEXT_TOO_LARGE
#   outcome: block
reasons contains r if {
	lib.valid
	size := input.derived.context_bytes
	size > limit("max_context_bytes")
	r := lib.reason(rego.metadata.rule(), sprintf("context is %d bytes; pack %q allows %d", [size, lib.pack, limit("max_context_bytes")]), "context")
}
