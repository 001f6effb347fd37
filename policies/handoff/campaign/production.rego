package handoff.campaign

import data.handoff.core
import data.handoff.lib

# Production: Copy ∥ Visual Prompt from the same approved strategy version (seed
# "Parallel Execution": neither depends on the other's draft, both on the same approved
# strategy), then QA.

_production if {
	_by_producer
	lib.output.type in _deliverable_types
}

_other := "VISUAL_PACKAGE" if lib.output.type == "COPY_PACKAGE"

else := "COPY_PACKAGE"

_strategy_refs := lib.inputs_of("STRATEGY_BRIEF")

_strategy_ref_n := r.version if {
	count(_strategy_refs) == 1
	r := _strategy_refs[0]
}

# _strategy is the approved strategy: the single source of truth.
_strategy := _approved_content("STRATEGY_BRIEF")

# METADATA
# title: Strategy version not named
# description: >-
#   A COPY_PACKAGE or VISUAL_PACKAGE names exactly one STRATEGY_BRIEF version in its
#   input_artifacts: every strategy-dependent artifact records the strategy version it
#   was made from (CTRL-6).
# custom:
#   code: UNVERSIONED_DEPENDENCY
#   outcome: block
reasons contains r if {
	_production
	count(_strategy_refs) != 1
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s v%v names %d STRATEGY_BRIEF versions in input_artifacts; it must name exactly the one it was made from", [lib.output.type, lib.output.version, count(_strategy_refs)]), "input_artifacts", "CTRL-6", "block")
}

# METADATA
# title: Not the approved strategy version
# description: >-
#   Copy and Visual are made from the approved STRATEGY_BRIEF version and from the same
#   one (CTRL-2): a deliverable made from another version, or from a version other than
#   the one the other deliverable used, is refused.
# custom:
#   code: VERSION_MISMATCH
#   outcome: block
reasons contains r if {
	_production
	some i, ref in lib.inputs
	ref.type == "STRATEGY_BRIEF"
	ref.version != _approved_or_zero("STRATEGY_BRIEF")
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s v%v is made from STRATEGY_BRIEF v%v, but the approved strategy is %s", [lib.output.type, lib.output.version, ref.version, _approved_label]), sprintf("input_artifacts[%d].version", [i]), "CTRL-2", "block")
}

# METADATA
# title: Copy and visual on different strategy versions
# description: >-
#   The other deliverable's current version was made from another STRATEGY_BRIEF
#   version: copy and visual must share one approved strategy version (CTRL-2).
# custom:
#   code: VERSION_MISMATCH
#   outcome: block
reasons contains r if {
	_production
	o := core.latest_version(_other)
	o.status in {"draft", "under_review", "approved"}
	basis := _strategy_basis(o)
	count(basis) > 0
	some i, ref in lib.inputs
	ref.type == "STRATEGY_BRIEF"
	not ref.version in basis
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s v%v is made from STRATEGY_BRIEF v%v, but %s v%v was made from %v: copy and visual must share one approved strategy version", [lib.output.type, lib.output.version, ref.version, _other, o.ref.version, sort(basis)]), sprintf("input_artifacts[%d].version", [i]), "CTRL-2", "block")
}

_approved_label := sprintf("v%v", [core.last_approved_number("STRATEGY_BRIEF")]) if core.last_approved_number("STRATEGY_BRIEF")

else := "none"

# _fixed are the fields a deliverable restates from the approved strategy, unchanged:
# [deliverable field, strategy path].
# The table is config.fixed in contracts/campaign/config.cue.
_fixed := {t: [[f.field, f.strategy_path] | some f in fs] | some t, fs in object.get(lib.pack_config, "fixed", {})}

# METADATA
# title: Deliverable deviates from the approved strategy
# description: >-
#   The Copywriting Agent may not change target audience, offer or campaign promise; the
#   Visual Prompt Agent may not create a different campaign strategy (audience, core
#   proposition, product). Each restated field must equal the approved strategy's
#   (ignoring case and surrounding blanks).
# custom:
#   code: STRATEGY_DEVIATION
#   outcome: block
reasons contains r if {
	_production
	count(_strategy) > 0
	some [field, path] in _fixed[lib.output.type]
	_norm(object.get(lib.content, field, "")) != _norm(object.get(_strategy, path, ""))
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s %s %q differs from the approved strategy's %s %q", [lib.output.type, field, object.get(lib.content, field, ""), concat(".", path), object.get(_strategy, path, "")]), sprintf("output.content.%s", [field]), "CTRL-2", "block")
}

_approved_claim(c) if {
	some a in object.get(_strategy, "approved_claims", [])
	a.id == object.get(c, "id", "")
	_norm(a.statement) == _norm(object.get(c, "statement", ""))
}

# METADATA
# title: Claim not approved by the strategy
# description: >-
#   The copy makes a factual claim that is not one of the approved strategy's
#   approved_claims, verbatim: the Copywriting Agent may not change factual claims (for
#   example unsupported statistics).
# custom:
#   code: UNAPPROVED_CLAIM
#   outcome: block
reasons contains r if {
	_production
	lib.output.type == "COPY_PACKAGE"
	some i, c in object.get(lib.content, "claims_used", [])
	not _approved_claim(c)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("claim %q (%q) is not an approved claim of the strategy, verbatim", [object.get(c, "id", i), _short(object.get(c, "statement", ""))]), sprintf("output.content.claims_used[%d]", [i]), "unsupported_claims", "block")
}

_short(s) := sprintf("%s...", [substring(s, 0, 77)]) if count(s) > 80

else := s

# _coverage are [deliverable list, key, strategy list, gate] per deliverable type.
# The table is config.coverage in contracts/campaign/config.cue.
_coverage := {t: [c.list, c.key, c.strategy_list, c.gate] | some t, c in object.get(lib.pack_config, "coverage", {})}

_covered(content, list, key, want) if {
	some item in object.get(content, list, [])
	item[key] == want
}

# _engine_findings are [gate, path, message] for each QA check the policy decides itself
# on a deliverable's content against the approved strategy: the required channels or
# formats are covered (coverage) and the copy uses the approved CTA, as its cta and as
# the cta of every piece. At a handoff they refuse the deliverable; at QA they are the
# facts a defect may not contradict (DEFECT_CONTRADICTS_ENGINE).
_engine_findings(type, content) := _coverage_findings(type, content) | _cta_findings(type, content)

_coverage_findings(type, content) := {[gate, sprintf("output.content.%s", [list]), msg] |
	[list, key, kind, gate] := _coverage[type]
	some want in object.get(_strategy, ["required_deliverables", kind], [])
	not _covered(content, list, key, want)
	msg := sprintf("%s has no %s with %s %q required by the approved strategy", [type, list, key, want])
}

_cta_findings(type, content) := {["cta_compliance", "output.content.cta", msg] |
	type == "COPY_PACKAGE"
	count(_strategy) > 0
	_norm(object.get(content, "cta", "")) != _norm(object.get(_strategy, "cta", ""))
	msg := sprintf("copy CTA %q is not the approved CTA %q", [object.get(content, "cta", ""), object.get(_strategy, "cta", "")])
} | {["cta_compliance", sprintf("output.content.deliverables[%d].cta", [i]), msg] |
	type == "COPY_PACKAGE"
	count(_strategy) > 0
	some i, item in object.get(content, "deliverables", [])
	_norm(object.get(item, "cta", "")) != _norm(object.get(_strategy, "cta", ""))
	msg := sprintf("copy piece %q uses the CTA %q, not the approved CTA %q", [object.get(item, "id", i), object.get(item, "cta", ""), object.get(_strategy, "cta", "")])
}

# METADATA
# title: Required deliverable missing
# description: >-
#   A QA check the policy decides itself, at handoff: the copy covers every required
#   copy channel and the visual prompts cover every required format of the approved
#   strategy.
# custom:
#   code: QUALITY_GATE_FAILED
#   outcome: block
reasons contains r if {
	_production
	some [gate, path, msg] in _coverage_findings(lib.output.type, lib.content)
	r := lib.gate_reason(rego.metadata.rule(), msg, path, gate, "block")
}

# METADATA
# title: CTA not the approved one
# description: >-
#   The copy's call to action, and the call to action of every piece of copy, is the
#   approved strategy's CTA (QA check cta_compliance, decided by the policy at handoff).
# custom:
#   code: QUALITY_GATE_FAILED
#   outcome: block
reasons contains r if {
	_production
	some [gate, path, msg] in _cta_findings(lib.output.type, lib.content)
	r := lib.gate_reason(rego.metadata.rule(), msg, path, gate, "block")
}

_already_delivered if {
	lib.status == "PRODUCTION"
	v := core.latest_version(lib.output.type)
	v.status in {"draft", "under_review", "approved"}
	core.last_approved_number("STRATEGY_BRIEF") in _strategy_basis(v)
}

_not_returned if {
	lib.status == "TARGETED_REVISION"
	core.latest_status(lib.output.type) != "revision_required"
}

# METADATA
# title: Revision not requested
# description: >-
#   A new version of a deliverable nobody returned: in PRODUCTION, the deliverable was
#   already delivered on the approved strategy; in TARGETED_REVISION, QA or the person
#   returned only other artifacts (seed "Return affected artifact only ... do not rerun").
# custom:
#   code: REVISION_NOT_REQUESTED
#   outcome: block
reasons contains r if {
	_production
	_already_delivered
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v was already delivered on the approved strategy; only QA or a person returns it", [lib.output.type, core.latest_number(lib.output.type)]), "output.version")
}

# METADATA
# title: Deliverable already delivered or not returned
# description: >-
#   In TARGETED_REVISION only the artifacts QA or the person returned get a new version;
#   the others are not rerun.
# custom:
#   code: REVISION_NOT_REQUESTED
#   outcome: block
reasons contains r if {
	_production
	_not_returned
	r := lib.reason(rego.metadata.rule(), sprintf("%s was not returned for revision (returned: %v)", [lib.output.type, sort(_returned_now)]), "output.type")
}

_returned_now := {t | some t in _deliverable_types; core.latest_status(t) == "revision_required"}

# --- proposals -----------------------------------------------------------------------

_production_events := array.concat(
	array.concat(core.supersede_open(lib.output.type), [core.artifact_event("under_review")]),
	[core.handoff_event],
)

_other_ready if {
	o := core.latest_version(_other)
	o.status == "under_review"
	_strategy_ref_n in _strategy_basis(o)
}

_pending_returns := {t | some t in _returned_now; t != lib.output.type}

_deliverable_content(t) := lib.content if lib.output.type == t

else := core.latest_content(t)

_qa_next := core.next_with("QA", {"qa_agent": core.keyed({
	"STRATEGY_BRIEF": core.context_package("strategy_agent>qa_agent", _strategy),
	"COPY_PACKAGE": core.context_package("copywriter>qa_agent", _deliverable_content("COPY_PACKAGE")),
	"VISUAL_PACKAGE": core.context_package("visual_prompt_agent>qa_agent", _deliverable_content("VISUAL_PACKAGE")),
})})

# _revision_context is what the producer of a returned deliverable receives: the
# approved strategy and the defects of its own artifact.
_revision_context(t, report) := core.keyed({
	"STRATEGY_BRIEF": _strategy_package(core.producer(t, "unknown"), _strategy),
	"QA_REPORT": _qa_package(core.producer(t, "unknown"), report, t),
})

_production_handoff_proposal := {
	"outcome": "allow",
	"status_after": "QA",
	"next": _qa_next,
	"events": _production_events,
} if {
	lib.status == "PRODUCTION"
	_other_ready
} else := {
	"outcome": "allow",
	"status_after": "PRODUCTION",
	"next": core.next_with("PRODUCTION", {core.producer(_other, "unknown"): _strategy_package(core.producer(_other, "unknown"), _strategy)}),
	"events": _production_events,
} if {
	lib.status == "PRODUCTION"
} else := {
	"outcome": "allow",
	"status_after": "QA",
	"next": _qa_next,
	"events": _production_events,
} if {
	count(_pending_returns) == 0
} else := {
	"outcome": "allow",
	"status_after": "TARGETED_REVISION",
	"next": core.next_with("TARGETED_REVISION", {core.producer(t, "unknown"): _revision_context(t, core.latest_content("QA_REPORT")) | some t in _pending_returns}),
	"events": _production_events,
}
