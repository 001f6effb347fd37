package handoff.campaign

import data.handoff.core
import data.handoff.lib

# Rules every review obeys (research validation and QA): QA validates contract
# compliance, rejects specific defects, and never rewrites valid work (CTRL-4).

_review if {
	core.ready
	input.request.kind == "review"
	lib.status in {"RESEARCH_VALIDATION", "QA"}
}

# _review_scope is the artifact types a review in each status judges (config.review_scope
# in contracts/campaign/config.cue).
_review_scope := {s: {t | some t in types} | some s, types in object.get(lib.pack_config, "review_scope", {})}

# METADATA
# title: Review scope invalid
# description: >-
#   A research validation judges the RESEARCH_BRIEF; a QA review judges the current
#   COPY_PACKAGE and VISUAL_PACKAGE together. A review naming other types, or leaving
#   one out, is refused (core refuses versions that are not the latest).
# custom:
#   code: REVIEW_SCOPE_INVALID
#   outcome: block
reasons contains r if {
	_review
	_reviewed_types != _review_scope[lib.status]
	r := lib.reason(rego.metadata.rule(), sprintf("a review in %s judges %v, this one names %v", [lib.status, sort(_review_scope[lib.status]), sort(_reviewed_types)]), "artifacts")
}

_gate_of_reviewed(id) if {
	some t in _reviewed_types
	id in _checks(t)
}

_unknown_gates contains [i, g.id] if {
	some i, g in object.get(lib.request, "gates", [])
	not _gate_of_reviewed(object.get(g, "id", ""))
}

# METADATA
# title: Gate result of no reviewed artifact
# description: >-
#   A review reports a gate result for something that is no contract check of the
#   artifacts it judges (artifacts[type].gates): a result for an unknown gate passes or
#   fails nothing, and is refused rather than recorded.
# custom:
#   code: REVIEW_SCOPE_INVALID
#   outcome: block
reasons contains r if {
	_review
	some [i, id] in _unknown_gates
	r := lib.reason(rego.metadata.rule(), sprintf("gate result %q is no check of %v (checks: %v)", [id, sort(_reviewed_types), sort({c | some t in _reviewed_types; some c in _checks(t)})]), sprintf("gates[%d].id", [i]))
}

# METADATA
# title: Check performed on no reviewed artifact
# description: >-
#   A review's report lists the contract checks it ran (report.checks_performed): each
#   is a check of an artifact the review judges (artifacts[type].gates). A check the
#   review could not have run on what it judges is refused rather than recorded in the
#   QA_REPORT as performed.
# custom:
#   code: REVIEW_SCOPE_INVALID
#   outcome: block
reasons contains r if {
	_review
	some i, id in object.get(lib.request, ["report", "checks_performed"], [])
	not _gate_of_reviewed(id)
	r := lib.reason(rego.metadata.rule(), sprintf("check %q is no check of %v (checks: %v)", [id, sort(_reviewed_types), sort({c | some t in _reviewed_types; some c in _checks(t)})]), sprintf("report.checks_performed[%d]", [i]))
}

_subjective contains [sprintf("defects[%d]", [i]), msg] if {
	some i, d in _defects
	not d.artifact in _reviewed_types
	msg := sprintf("defect %q concerns %s, which this review does not judge", [d.id, d.artifact])
}

_subjective contains [sprintf("defects[%d].check", [i]), msg] if {
	some i, d in _defects
	d.artifact in _reviewed_types
	not object.get(d, "check", "") in _checks(d.artifact)
	msg := sprintf("defect %q names no contract check of %s (got %v; checks: %v)", [d.id, d.artifact, object.get(d, "check", null), sort(_checks(d.artifact))])
}

# METADATA
# title: Defect without a contract violation
# description: >-
#   QA does not perform subjective rewrites without a contract violation: every defect
#   names the artifact reviewed and one of its contract checks (artifacts[type].gates:
#   strategy_alignment, unsupported_claims, cta_compliance, required_deliverables for
#   copy; strategy_alignment, product_consistency, required_format, brand_restrictions
#   for visual; HG-2 and the acceptance criteria for research). (A return without any
#   defect contradicts itself: core's VERDICT_INCONSISTENT.)
# custom:
#   code: SUBJECTIVE_DEFECT
#   outcome: block
reasons contains r if {
	_review
	some [path, msg] in _subjective
	r := lib.gate_reason(rego.metadata.rule(), msg, path, "CTRL-4", "block")
}

# _upstream_of are the types upstream of each artifact type (config.upstream_of in
# contracts/campaign/config.cue).
_upstream_of := object.get(lib.pack_config, "upstream_of", {})

_origin_problems contains [i, msg] if {
	some i, d in _defects
	o := d.origin
	o != d.artifact
	not o in object.get(_upstream_of, d.artifact, [])
	msg := sprintf("defect %q of %s names origin %s, which is not upstream of %s (upstream: %v)", [d.id, d.artifact, o, d.artifact, object.get(_upstream_of, d.artifact, [])])
}

_origin_problems contains [i, msg] if {
	some i, d in _defects
	o := d.origin
	o != d.artifact
	o in object.get(_upstream_of, d.artifact, [])
	not core.last_approved_number(o)
	msg := sprintf("defect %q of %s names origin %s, but workflow %q has no approved %s for it to originate in", [d.id, d.artifact, o, object.get(lib.state, "workflow_id", ""), o])
}

# METADATA
# title: Defect origin invalid
# description: >-
#   A defect's origin names the artifact it comes from when that is upstream of the
#   affected artifact (config.upstream_of: the research for the strategy; the strategy
#   or the research for copy and visual) and is an approved artifact of the workflow. An
#   origin downstream or beside the artifact (copy for a visual defect), of a type
#   outside the chain, or with no approved version is refused instead of being ignored.
# custom:
#   code: DEFECT_ORIGIN_INVALID
#   outcome: block
reasons contains r if {
	_review
	some [i, msg] in _origin_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, sprintf("defects[%d].origin", [i]), "CTRL-4", "block")
}

# METADATA
# title: Verdict not supported
# description: >-
#   The campaign pack has one QA agent: a REASSIGN verdict has nobody to go to. QA
#   returns work (REVISE), rejects it, accepts it or escalates to a person.
# custom:
#   code: VERDICT_NOT_SUPPORTED
#   outcome: block
reasons contains r if {
	_review
	lib.request.verdict == "REASSIGN"
	r := lib.reason(rego.metadata.rule(), "the campaign pack has a single QA agent; REASSIGN is not a campaign verdict", "verdict")
}

_branch := _validation_branch if lib.status == "RESEARCH_VALIDATION"

else := _qa_branch

# _defect_outcome is what one defect decides in a review that returns or fails work.
_defect_outcome(d) := "fail" if d.severity == "S3"

else := "revise"

# _proven_checks are the QA checks the policy decides itself on each deliverable type
# (config.proven_checks in contracts/campaign/config.cue).
_proven_checks := object.get(lib.pack_config, "proven_checks", {})

# _reviewed_content is the content of the reviewed version of a type.
_reviewed_content(type) := c if {
	some ref in _reviewed
	ref.type == type
	c := core.artifact_version(type, ref.version).content
	is_object(c)
}

# _contradicted are the defects (index, message) that fail a check the policy proved on
# the very version reviewed: it decided the check at the handoff, and deciding it again
# now against the approved strategy still finds nothing. An ESCALATE is not refused: the
# person it goes to weighs the defect against the policy's finding.
_contradicted contains [i, msg] if {
	lib.request.verdict != "ESCALATE"
	some i, d in _defects
	check := object.get(d, "check", "")
	check in object.get(_proven_checks, d.artifact, [])
	content := _reviewed_content(d.artifact)
	count([f | some f in _engine_findings(d.artifact, content); f[0] == check]) == 0
	msg := sprintf("defect %q says %s v%v fails %s, but the policy verified %s on that version against the approved strategy v%v and finds it met: a defect contradicts no fact the policy has proven (escalate to a person instead)", [d.id, d.artifact, _reviewed_version(d.artifact), check, check, _approved_or_zero("STRATEGY_BRIEF")])
}

_reviewed_version(type) := ref.version if {
	some ref in _reviewed
	ref.type == type
}

# METADATA
# title: Defect contradicts what the policy proved
# description: >-
#   A QA defect cites a check the policy decides itself on that artifact
#   (config.proven_checks: CTA compliance and required deliverables of the copy) and the
#   policy, checking the reviewed version against the approved strategy again, finds the
#   check met: the defect contradicts a proven fact. Acting on it would rework valid work,
#   so the review is refused; QA may still ESCALATE it to a person.
# custom:
#   code: DEFECT_CONTRADICTS_ENGINE
#   outcome: block
reasons contains r if {
	_review
	some [i, msg] in _contradicted
	r := lib.gate_reason(rego.metadata.rule(), msg, sprintf("defects[%d]", [i]), "CTRL-4", "block")
}

_id_problems contains [i, msg] if {
	some i, d in _defects
	rec := lib.state.defects[d.id]
	rec.defect.artifact != d.artifact
	msg := sprintf("defect id %q is recorded for %s (%s); a defect of %s takes an id of its own", [d.id, rec.defect.artifact, object.get(rec.defect, "check", "no check"), d.artifact])
}

# METADATA
# title: Defect id names another defect
# description: >-
#   A defect id names one defect of the workflow: a defect reuses the id recorded for a
#   defect of another artifact. A defect that remains after a repair keeps its id; a
#   different one takes a new id. (Two defects of one review with one id: core.)
# custom:
#   code: ID_NOT_UNIQUE
#   outcome: block
reasons contains r if {
	_review
	some [i, msg] in _id_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, sprintf("defects[%d].id", [i]), "CTRL-4", "block")
}

# _review_refused holds when a rule above refuses the review: its defects then decide
# nothing and are not reported as failed checks either.
_review_refused if count(_subjective) > 0

_review_refused if count(_origin_problems) > 0

_review_refused if count(_contradicted) > 0

_review_refused if core.review_refused

_review_refused if count(_id_problems) > 0

_review_refused if count(_unknown_gates) > 0

# METADATA
# title: QA defect
# description: >-
#   A defect QA found, naming the contract check it violates: S1 minor (targeted repair),
#   S2 material (the affected artifact only returns to its producer), S3 critical
#   (the workflow fails safe). Reported when the review returns, fails or escalates.
# custom:
#   code: QUALITY_GATE_FAILED
#   outcome: revise
reasons contains r if {
	_review
	_branch in {"revise", "upstream", "fail", "exhausted"}
	some i, d in _defects
	object.get(d, "check", "") in _checks(d.artifact)
	not _review_refused
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s defect %q of %s (%s): %s", [d.severity, d.id, d.artifact, d.check, _short(d.description)]), sprintf("defects[%d]", [i]), d.check, _defect_outcome(d))
}

# METADATA
# title: Review cycles exhausted
# description: >-
#   The workflow already used its limits.max_review_cycles revision cycles: any further
#   return (a repeated S2/S3 defect, a new S2, an S1 alone) escalates to a person, and the
#   QA_REPORT records the result escalate. No automatic loop beyond the limit (CTRL-3).
#   Research revisions have the same bound.
# custom:
#   code: REVIEW_CYCLES_EXHAUSTED
#   outcome: await_human
reasons contains r if {
	_review
	_branch == "exhausted"
	counter := _cycle_counter[lib.status]
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%d of %v revision cycles used (%s); escalating to a person instead of a third loop (repeated defects: %v)", [core.counter(counter), object.get(lib.pack_contract, ["limits", "max_review_cycles"], 0), counter, sort(_repeated)]), "defects", "CTRL-3", "await_human")
}

# The table is config.cycle_counter in contracts/campaign/config.cue.
_cycle_counter := object.get(lib.pack_config, "cycle_counter", {})
