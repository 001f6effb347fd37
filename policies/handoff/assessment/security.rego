package handoff.assessment

import data.handoff.lib

# Security audit (seed section 20): every security block generates a safe security
# audit event. A request the engine cannot route (unknown workflow, another tenant's
# workflow, undecodable) is refused by the engine and recorded in the tenant's security
# audit stream. A request the pack decides is recorded in the workflow's log: a block is
# recorded there too (without changing the state), and when one of its reasons is a
# security check (a GR-* or S20-* gate of pack.gates) it also carries SECURITY_AUDIT,
# which names the security codes and asks for human review. Messages quote field paths,
# pattern names and codes, never the offending content.

# _security_codes are the codes of the guardrails (GR-*) and security validations
# (S20-*) of pack.gates. The table is config.security_codes in
# contracts/assessment/config.cue, drawn from pack.gates there.
_security_codes := object.get(lib.pack_config, "security_codes", [])

_security_hits := {r.code |
	some r in _base_reasons
	lib.blocking(r)
	r.code in _security_codes
}

# METADATA
# title: Security audit event
# description: >-
#   The request is blocked by a security check of seed section 20 or a guardrail of
#   section 14 (tenant, organization or assessment divergence, an unauthorized agent or
#   target, another tenant's artifact, a change to an approved artifact or finding, a
#   schema failure, a guardrail failure, a missing required source, an instruction taken
#   as a command, forbidden content or context, a broken trace). The decision, recorded in
#   the workflow's log with these codes, is the security audit event; it requires human
#   review.
# custom:
#   code: SECURITY_AUDIT
#   outcome: block
_audit_reasons contains r if {
	count(_security_hits) > 0
	r := lib.gate_reason(rego.metadata.rule(), sprintf("security audit event: %s %q blocked by %v; requires_human_review: a security reviewer examines this record", [lib.kind, object.get(lib.request, "request_id", ""), sort(_security_hits)]), "", "S20-AUDIT", "block")
}
