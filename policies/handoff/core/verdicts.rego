package handoff.core

import data.handoff.lib

# Verdict consistency, one rule for every pack: a review's verdict agrees with what the
# same review reports. What counts as blocking, and what a return must name, is the
# pack's table verdicts (core.#Verdicts in contracts/core/pack.cue).

# _returning_verdicts return or refuse the work reviewed; ESCALATE hands it to a person
# and needs nothing, ACCEPT passes it.
_returning_verdicts := {"REVISE", "REJECT", "REASSIGN"}

_review_verdict := object.get(lib.request, "verdict", "")

_review_defects := [d | some d in object.get(lib.request, "defects", []); is_object(d)]

_review_gates := [g | some g in object.get(lib.request, "gates", []); is_object(g)]

_review_attestations := [a | some a in object.get(lib.request, "attestations", []); is_object(a)]

# _verdicts is the pack's table; CONTRACT_MISSING blocks when it is not there, and the
# lookups below read it on the strictest terms when a list is missing: every severity
# blocks an ACCEPT, and a return names a defect.
_verdicts := v if {
	v := lib.pack_contract.verdicts
	is_object(v)
} else := {}

_blocking_severities := {s | some s in object.get(_verdicts, "blocking_severities", ["S1", "S2", "S3"])}

_failed_item_kinds := {k | some k in object.get(_verdicts, "failed_items", ["defect"])}

# _failed_items are the failed items the review names, by kind.
_failed_items contains "defect" if count(_review_defects) > 0

_failed_items contains "gate" if {
	some g in _review_gates
	g.passed == false
}

_failed_items contains "attestation" if {
	some a in _review_attestations
	a.passed == false
}

_passed_gate_ids := {g.id | some g in _review_gates; g.passed == true}

_failed_gate_ids := {g.id | some g in _review_gates; g.passed == false}

_defect_checks := {c | some d in _review_defects; c := d.check; is_string(c)}

_severities(verdict) := object.get(_verdicts, ["severities", verdict], {})

_item_words := {"defect": "defect", "gate": "failed gate result", "attestation": "failed attestation"}

_contradictions contains [sprintf("defects[%d]", [i]), msg] if {
	_review_verdict == "ACCEPT"
	some i, d in _review_defects
	d.severity in _blocking_severities
	msg := sprintf("verdict ACCEPT lists %s defect %q of %s: a defect of severity %s is a failed check, and a review does not pass what it fails", [d.severity, d.id, d.artifact, concat(", ", sort(_blocking_severities))])
}

_contradictions contains [sprintf("gates[%d]", [i]), msg] if {
	_review_verdict == "ACCEPT"
	some i, g in _review_gates
	g.passed == false
	msg := sprintf("verdict ACCEPT reports gate %s as failed: a review does not pass what it fails", [g.id])
}

_contradictions contains [sprintf("attestations[%d]", [i]), msg] if {
	_review_verdict == "ACCEPT"
	some i, a in _review_attestations
	a.passed == false
	msg := sprintf("verdict ACCEPT attests %s as not passed: a review does not pass what it fails", [a.gate])
}

_contradictions contains ["verdict", msg] if {
	_review_verdict in _returning_verdicts
	count(_failed_items & _failed_item_kinds) == 0
	msg := sprintf("verdict %s names no failed item (%s): nothing is wrong to return", [_review_verdict, concat(" or ", [_item_words[k] | some k in sort(_failed_item_kinds)])])
}

_contradictions contains [sprintf("defects[%d].check", [i]), msg] if {
	some i, d in _review_defects
	d.check in _passed_gate_ids
	msg := sprintf("defect %q fails check %s, which the same review reports as passed", [d.id, d.check])
}

_contradictions contains ["gates", msg] if {
	some id in (_passed_gate_ids & _failed_gate_ids)
	msg := sprintf("gate %s is reported both passed and failed", [id])
}

_contradictions contains [sprintf("gates[%d]", [i]), msg] if {
	_verdicts.failed_gates_as_defects == true
	_review_verdict in _returning_verdicts
	some i, g in _review_gates
	g.passed == false
	not g.id in _defect_checks
	msg := sprintf("gate %s is reported failed but no defect names check %s: a failure is returned as a defect of the affected artifact, with its severity", [g.id, g.id])
}

_contradictions contains ["verdict", msg] if {
	requires := _severities(_review_verdict).requires
	want := {s | some s in requires}
	count(_review_defects) > 0
	count({d | some d in _review_defects; d.severity in want}) == 0
	msg := sprintf("verdict %s lists no defect of severity %s, which %s is for in pack %s", [_review_verdict, concat(" or ", sort(want)), _review_verdict, lib.pack])
}

_contradictions contains [sprintf("defects[%d].severity", [i]), msg] if {
	allows := _severities(_review_verdict).allows
	allowed := {s | some s in allows}
	some i, d in _review_defects
	not d.severity in allowed
	msg := sprintf("verdict %s lists %s defect %q: in pack %s a %s carries defects of severity %s only", [_review_verdict, d.severity, d.id, lib.pack, _review_verdict, concat(" or ", sort(allowed))])
}

# METADATA
# title: Review contradicts itself
# description: >-
#   A review's verdict agrees with what the same review reports, in every pack: an
#   ACCEPT lists no defect of a severity the pack's verdicts.blocking_severities names,
#   no failed gate result and no failed attestation; a REVISE, REJECT or REASSIGN names
#   at least one failed item (verdicts.failed_items: a defect, and where the pack counts
#   them a failed gate result or a failed attestation); no defect fails a check the
#   review reports as passed, and no gate is reported both passed and failed. Where the
#   pack's table says so, every failed gate of a return is returned as a defect naming
#   that check (verdicts.failed_gates_as_defects), and a verdict's defects have the
#   severities verdicts.severities gives it (campaign: REJECT is for a critical S3
#   defect, and an S3 defect is never a REVISE). A review that contradicts itself is
#   refused, never read one way or the other.
# custom:
#   code: VERDICT_INCONSISTENT
#   outcome: block
reasons contains r if {
	_review_request
	some [path, msg] in _contradictions
	r := _verdict_reason(rego.metadata.rule(), msg, path)
}

_verdict_reason(meta, msg, path) := lib.gate_reason(meta, msg, path, g, "block") if {
	g := _verdicts.gate
	is_string(g)
} else := lib.reason(meta, msg, path)

# METADATA
# title: Defect id used twice in one review
# description: >-
#   A defect id names one defect: two defects of one review sharing an id would be
#   recorded as one, the later overwriting the earlier, in every pack. (Whether an id may
#   name a defect already recorded is the pack's rule.)
# custom:
#   code: ID_NOT_UNIQUE
#   outcome: block
reasons contains r if {
	_review_request
	some i, d in _review_defects
	some j, other in _review_defects
	j < i
	other.id == d.id
	r := lib.reason(rego.metadata.rule(), sprintf("defects[%d] and defects[%d] both have id %q: a defect id names one defect", [j, i, d.id]), sprintf("defects[%d].id", [i]))
}

# review_refused holds for a review a rule of this file refuses (it contradicts itself,
# or gives two defects one id): a pack reports none of its defects as failed checks,
# since they decide nothing.
review_refused if {
	_review_request
	count(_contradictions) > 0
}

review_refused if {
	_review_request
	_duplicate_defect_ids
}

_review_request if {
	lib.valid
	lib.request.kind == "review"
}

_duplicate_defect_ids if count({d.id | some d in _review_defects}) < count(_review_defects)
