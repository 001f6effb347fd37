package handoff.campaign

import data.handoff.core
import data.handoff.lib

# Strategy → Strategy Approval: one approved strategy version is the single source of
# truth (CTRL-2), grounded in the approved research (HG-2).

_strategy_handoff if {
	_by_producer
	lib.output.type == "STRATEGY_BRIEF"
}

_strategy_handoff_proposal := {
	"outcome": "await_human",
	"status_after": "STRATEGY_APPROVAL",
	"next": core.next_with("STRATEGY_APPROVAL", {"campaign_approver": core.context_package("strategy_agent>campaign_approver", lib.content)}),
	"events": array.concat(
		array.concat(core.supersede_open("STRATEGY_BRIEF"), [core.artifact_event("under_review")]),
		[core.handoff_event],
	),
	"requires_human_review": true,
}

# _research_refs are the RESEARCH_BRIEF versions the strategy names as its inputs.
_research_refs := lib.inputs_of("RESEARCH_BRIEF")

# _strategy_research is the content of the one RESEARCH_BRIEF version the strategy names
# as its input, {} when that version is not recorded. Nothing else stands in for it: the
# approved claims are checked against exactly the research the strategy says it was made
# from. Core refuses a named version that is not approved (ARTIFACT_NOT_APPROVED) or older
# than the approved one (VERSION_MISMATCH); INPUT_MISSING and UNVERSIONED_DEPENDENCY refuse
# a strategy that names none or several.
_strategy_research := c if {
	count(_research_refs) == 1
	c := core.artifact_version("RESEARCH_BRIEF", _research_refs[0].version).content
	is_object(c)
} else := {}

_research_label := sprintf("RESEARCH_BRIEF v%v", [_research_refs[0].version]) if count(_research_refs) == 1

else := "the approved RESEARCH_BRIEF"

_approved_claims := [c | some c in object.get(lib.content, "approved_claims", []); is_object(c)]

# _cited are the research claims an approved claim cites by id (more than one only when the
# brief repeats an id: each of them must then hold up).
_cited(c) := [rc |
	some rc in object.get(_strategy_research, "claims", [])
	is_object(rc)
	rc.id == object.get(c, "research_claim", "")
]

# _weakness says why a cited research claim is not evidence an approved claim may rest on:
# it cites no source, cites a source the brief's source_references do not define, or is a
# minor claim (approved claims are the facts copy states to customers: they rest only on
# the major claims HG-2 validated).
_weakness(rc) := ({"it cites no source" |
	count(object.get(rc, "sources", [])) == 0
} | {sprintf("its source %q is not among the brief's source_references", [s]) |
	some s in object.get(rc, "sources", [])
	not s in _source_ids(_strategy_research)
}) | {"it is a minor claim (major: false); an approved claim rests only on a major claim validated by HG-2" |
	object.get(rc, "major", false) != true
}

# _research_assumptions are the statements the research labeled as unverified.
_research_assumptions := {a.statement |
	some a in object.get(_strategy_research, "unsupported_assumptions", [])
	is_string(a.statement)
}

# _own_assumptions are the strategy's own labeled assumptions.
_own_assumptions := {a.statement |
	some a in object.get(lib.content, "assumptions", [])
	is_string(a.statement)
}

_claim_problems contains [i, "UNGROUNDED_CLAIM", msg] if {
	some i, c in _approved_claims
	count(_cited(c)) == 0
	msg := sprintf("approved claim %q rests on research claim %q, which %s does not have", [object.get(c, "id", i), object.get(c, "research_claim", ""), _research_label])
}

_claim_problems contains [i, "UNGROUNDED_CLAIM", msg] if {
	some i, c in _approved_claims
	some rc in _cited(c)
	some why in _weakness(rc)
	msg := sprintf("approved claim %q rests on research claim %q of %s, which is not evidence: %s", [object.get(c, "id", i), rc.id, _research_label, why])
}

_claim_problems contains [i, "ASSUMPTION_AS_FACT", msg] if {
	some i, c in _approved_claims
	some a in _research_assumptions
	_contains_words(object.get(c, "statement", ""), a)
	msg := sprintf("approved claim %q states %q, which %s lists as an unverified assumption (%q)", [object.get(c, "id", i), _short(object.get(c, "statement", "")), _research_label, _short(a)])
}

_claim_problems contains [i, "ASSUMPTION_AS_FACT", msg] if {
	some i, c in _approved_claims
	some a in _own_assumptions
	_contains_words(object.get(c, "statement", ""), a)
	msg := sprintf("approved claim %q states %q, which the strategy itself lists as an assumption (%q)", [object.get(c, "id", i), _short(object.get(c, "statement", "")), _short(a)])
}

_claim_problems contains [i, "ASSUMPTION_AS_FACT", msg] if {
	some i, c in _approved_claims
	some rc in _cited(c)
	some a in _research_assumptions
	_contains_words(object.get(rc, "statement", ""), a)
	msg := sprintf("approved claim %q rests on research claim %q, whose statement %s itself lists as an unverified assumption (%q)", [object.get(c, "id", i), rc.id, _research_label, _short(a)])
}

_claim_problems contains [i, "CLAIM_NOT_SUPPORTED", msg] if {
	some i, c in _approved_claims
	some rc in _cited(c)
	_canon(object.get(c, "statement", "")) != _canon(object.get(rc, "statement", ""))
	msg := sprintf("approved claim %q states %q, but research claim %q of %s states %q: an approved claim restates the evidence it cites", [object.get(c, "id", i), _short(object.get(c, "statement", "")), rc.id, _research_label, _short(object.get(rc, "statement", ""))])
}

# METADATA
# title: Strategy claim without research evidence
# description: >-
#   An approved claim of the STRATEGY_BRIEF does not rest on evidence of the RESEARCH_BRIEF
#   version the strategy names as its input: the research claim it cites is not there, cites
#   no source, cites a source the brief's source_references do not define, or is a minor
#   claim. The Strategy Agent may not replace missing research with assumptions presented
#   as facts (HG-2). Assumptions go, labeled, under assumptions.
# custom:
#   code: UNGROUNDED_CLAIM
#   outcome: block
reasons contains r if {
	_strategy_handoff
	count(_research_refs) == 1
	some [i, "UNGROUNDED_CLAIM", msg] in _claim_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, sprintf("output.content.approved_claims[%d]", [i]), "HG-2", "block")
}

# METADATA
# title: Unverified assumption presented as fact
# description: >-
#   An approved claim equals or contains (ignoring case, spacing and punctuation) a
#   statement the research labeled as an unverified assumption or the strategy lists among
#   its own assumptions, or the research claim it cites does. The Strategy Agent may not
#   replace missing research with assumptions presented as facts (HG-2).
# custom:
#   code: ASSUMPTION_AS_FACT
#   outcome: block
reasons contains r if {
	_strategy_handoff
	count(_research_refs) == 1
	some [i, "ASSUMPTION_AS_FACT", msg] in _claim_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, sprintf("output.content.approved_claims[%d].statement", [i]), "HG-2", "block")
}

# METADATA
# title: Approved claim departs from its evidence
# description: >-
#   An approved claim's statement is not the statement of the research claim it cites
#   (compared ignoring case, spacing and a final full stop): citing a sourced claim does
#   not support a different statement. Copy uses approved claims verbatim, so an approved
#   claim restates its evidence exactly.
# custom:
#   code: CLAIM_NOT_SUPPORTED
#   outcome: block
reasons contains r if {
	_strategy_handoff
	count(_research_refs) == 1
	some [i, "CLAIM_NOT_SUPPORTED", msg] in _claim_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, sprintf("output.content.approved_claims[%d].statement", [i]), "HG-2", "block")
}

# _research_statements are the findings and claims of the research the strategy names:
# what "selected supporting research" may be selected from.
_research_statements := {x |
	some f in _evidence_sections
	some item in object.get(_strategy_research, f, [])
	x := _canon(object.get(item, "finding", ""))
} | {x |
	some c in object.get(_strategy_research, "claims", [])
	x := _canon(object.get(c, "statement", ""))
}

# METADATA
# title: Supporting research not in the research
# description: >-
#   selected_supporting_research reaches Copy and Visual as research: each item is a
#   finding or a claim of the RESEARCH_BRIEF version the strategy names, restated
#   (ignoring case, spacing and a final full stop). Anything else, such as an unverified
#   assumption, would reach them presented as evidence. (A copy of the raw research
#   conversation or of a rejected alternative is CONTEXT_POLLUTION instead.)
# custom:
#   code: UNGROUNDED_CLAIM
#   outcome: block
reasons contains r if {
	_strategy_handoff
	count(_research_refs) == 1
	some i, item in object.get(lib.content, "selected_supporting_research", [])
	not _canon(item) in _research_statements
	path := sprintf("output.content.selected_supporting_research[%d]", [i])
	not path in _polluted_paths
	r := lib.gate_reason(rego.metadata.rule(), sprintf("selected_supporting_research[%d] %q is no finding or claim of %s", [i, _short(item), _research_label]), path, "HG-2", "block")
}

# METADATA
# title: Approved claim id used twice
# description: >-
#   Two approved claims of the STRATEGY_BRIEF share an id: copy cites approved claims by
#   id, so an id names exactly one claim.
# custom:
#   code: ID_NOT_UNIQUE
#   outcome: block
reasons contains r if {
	_strategy_handoff
	ids := [object.get(c, "id", "") | some c in _approved_claims]
	some id in {x | some x in ids}
	count([x | some x in ids; x == id]) > 1
	r := lib.gate_reason(rego.metadata.rule(), sprintf("approved_claims use id %q more than once; copy cites an approved claim by its id", [id]), "output.content.approved_claims", "HG-2", "block")
}

# METADATA
# title: Strategy names several research versions
# description: >-
#   A STRATEGY_BRIEF names exactly one RESEARCH_BRIEF version in its input_artifacts: the
#   approved one its claims rest on (CTRL-6). Several versions leave open which research
#   the strategy was made from.
# custom:
#   code: UNVERSIONED_DEPENDENCY
#   outcome: block
reasons contains r if {
	_strategy_handoff
	count(_research_refs) > 1
	r := lib.gate_reason(rego.metadata.rule(), sprintf("STRATEGY_BRIEF v%v names %d RESEARCH_BRIEF versions in input_artifacts; it must name exactly the approved one it was made from", [lib.output.version, count(_research_refs)]), "input_artifacts", "CTRL-6", "block")
}

# --- context pollution ---------------------------------------------------------------

# _passed_on_fields are the strategy fields Copy and Visual receive (must_know and
# may_know of their edges, never a do_not_need field). Without those context packages,
# every field but the rejected alternatives themselves is checked (fail closed).
_passed_on_fields := fields if {
	fields := {f |
		some edge in ["strategy_agent>copywriter", "strategy_agent>visual_prompt_agent"]
		p := object.get(lib.pack_contract, ["context", edge], {})
		some part in ["must_know", "may_know"]
		some f in object.get(p, part, [])
		not f in object.get(p, "do_not_need", [])
	}
	count(fields) > 0
} else := {f | some f, _ in lib.content} - {"rejected_alternatives"}

# _passed_on_texts are [field, walk path, canonical text, words] for every string of
# those fields (the request path is built only for a string that reproduces a source).
_passed_on_texts contains [f, p, _canon(s), _words(s)] if {
	some f in _passed_on_fields
	v := lib.content[f]
	walk(v, [p, s])
	is_string(s)
}

_passed_on_path(f, p) := concat("", array.concat([sprintf("output.content.%s", [f])], [_path_segment(x) | some x in p]))

_path_segment(x) := sprintf("[%d]", [x]) if is_number(x)

else := sprintf(".%v", [x])

# _research_log_lines are the lines of every recorded research brief's raw research
# conversation (research_log): the seed's DO NOT NEED "full raw research conversation".
_research_log_lines := {l |
	some v in object.get(core.artifact("RESEARCH_BRIEF"), "versions", {})
	some l in object.get(object.get(v, "content", {}), "research_log", [])
	lib.non_blank(l)
}

# _rejected_alternatives are the strategic alternatives this strategy rejected: DO NOT
# NEED for Copy and Visual.
_rejected_alternatives := {a | some a in object.get(lib.content, "rejected_alternatives", []); lib.non_blank(a)}

# The table is config.verbatim_min_words in contracts/campaign/config.cue.
_verbatim_min_words := n if {
	n := lib.pack_config.verbatim_min_words
	is_number(n)
} else := 1

# _source_form is [source, canonical text, words, word count] of a text that a passed-on
# string may not reproduce, computed once per source.
_source_form(source) := [source, _canon(source), w, count(split(trim_space(w), " "))] if {
	w := _words(source)
}

_log_forms := {_source_form(l) | some l in _research_log_lines}

_alternative_forms := {_source_form(a) | some a in _rejected_alternatives}

# _reproduces holds when a text (its canonical text and words) equals a source (ignoring
# case, spacing and a final full stop) or contains it as whole words and the source has
# at least verbatim_min_words words.
_reproduces(canon, _, [_, source_canon, _, _]) if canon == source_canon

_reproduces(_, words, [_, _, source_words, n]) if {
	n >= _verbatim_min_words
	source_words != "  "
	contains(words, source_words)
}

_pollution contains [path, sprintf("%s reproduces a line of the raw research conversation (research_log: %q)", [path, _short(form[0])])] if {
	some form in _log_forms
	some [f, p, canon, words] in _passed_on_texts
	_reproduces(canon, words, form)
	path := _passed_on_path(f, p)
}

_pollution contains [path, sprintf("%s reproduces the rejected strategic alternative %q", [path, _short(form[0])])] if {
	some form in _alternative_forms
	some [f, p, canon, words] in _passed_on_texts
	_reproduces(canon, words, form)
	path := _passed_on_path(f, p)
}

_polluted_paths := {p | some [p, _] in _pollution}

# METADATA
# title: Do-not-need content passed on
# description: >-
#   A string of the strategy that Copy or Visual receive (must know or may know, such as
#   selected_supporting_research or messaging_hierarchy) reproduces a line of a research
#   brief's raw research conversation (research_log) or one of the strategy's rejected
#   alternatives: the seed's DO NOT NEED list holds for copies of that text, not only for
#   the field names (context pollution).
# custom:
#   code: CONTEXT_POLLUTION
#   outcome: block
reasons contains r if {
	_strategy_handoff
	some [path, msg] in _pollution
	r := lib.reason(rego.metadata.rule(), msg, path)
}

# _strategy_change_attempt holds when a new STRATEGY_BRIEF version arrives while an
# approved one exists and the workflow is not on a revision path back to STRATEGY.
_strategy_change_attempt if {
	_strategy_handoff
	lib.status != "STRATEGY"
	core.last_approved_number("STRATEGY_BRIEF")
}

# METADATA
# title: Attempt to change the approved strategy
# description: >-
#   A new STRATEGY_BRIEF version arrives while an approved strategy is the source of
#   truth and the workflow is not in STRATEGY (where QA's upstream defect or a person's
#   revision request sends it). The approved strategy changes only through a revision
#   path (CTRL-2).
# custom:
#   code: ARTIFACT_IMMUTABLE
#   outcome: block
reasons contains r if {
	_strategy_change_attempt
	r := lib.gate_reason(rego.metadata.rule(), sprintf("attempt to change the approved strategy: STRATEGY_BRIEF v%v is approved and the workflow is in %s, not on a revision path", [core.last_approved_number("STRATEGY_BRIEF"), lib.status]), "output", "CTRL-2", "block")
}

# _required_inputs are the input artifact types each output needs (config.required_inputs
# in contracts/campaign/config.cue).
_required_inputs := {t: {i | some i in inputs} | some t, inputs in object.get(lib.pack_config, "required_inputs", {})}

# METADATA
# title: Required input missing
# description: >-
#   The handoff does not name an input its output is made from: a STRATEGY_BRIEF names
#   the approved RESEARCH_BRIEF; a CLIENT_PACKAGE names the approved COPY_PACKAGE,
#   VISUAL_PACKAGE and the APPROVAL_RECORD of the final approval.
# custom:
#   code: INPUT_MISSING
#   outcome: block
reasons contains r if {
	_by_producer
	some t in _required_inputs[lib.output.type]
	not t in lib.input_types
	r := lib.reason(rego.metadata.rule(), sprintf("%s v%v is made from %s, but input_artifacts names none", [lib.output.type, lib.output.version, t]), "input_artifacts")
}

_consumes(agent) := {t | some t in lib.pack_contract.agents[agent].consumes}

# METADATA
# title: Input the agent may not consume
# description: >-
#   A handoff names an input artifact type its source agent does not consume (the
#   registry's consumes list): copy and visual never depend on each other's draft, and
#   every agent works only from the artifacts its permissions name. A missing registry
#   permits nothing.
# custom:
#   code: INPUT_NOT_PERMITTED
#   outcome: block
reasons contains r if {
	_by_producer
	some i, ref in lib.inputs
	not ref.type in _consumes(lib.request.source_agent)
	r := lib.reason(rego.metadata.rule(), sprintf("%s does not consume %s (consumes %v)", [lib.request.source_agent, ref.type, sort(_consumes(lib.request.source_agent))]), sprintf("input_artifacts[%d]", [i]))
}

# METADATA
# title: Correction not linked to its version
# description: >-
#   A new version (2 or more) of an artifact must say which version it corrects
#   (supersedes) and why (justification): every strategy-dependent artifact is versioned
#   and traceable (CTRL-6). Core checks that supersedes is the latest version.
# custom:
#   code: VERSION_UNLINKED
#   outcome: block
reasons contains r if {
	_by_producer
	lib.output.version > 1
	not is_number(object.get(lib.output, "supersedes", null))
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s v%v does not name the version it supersedes", [lib.output.type, lib.output.version]), "output.supersedes", "CTRL-6", "block")
}

# METADATA
# title: Correction without justification
# description: >-
#   A new version (2 or more) says why it corrects the previous one (justification), so
#   that every version of a strategy-dependent artifact is traceable (CTRL-6).
# custom:
#   code: VERSION_UNLINKED
#   outcome: block
reasons contains r if {
	_by_producer
	lib.output.version > 1
	not lib.non_blank(object.get(lib.output, "justification", ""))
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s v%v does not say why it corrects the previous version (justification)", [lib.output.type, lib.output.version]), "output.justification", "CTRL-6", "block")
}

# --- strategy approval ---------------------------------------------------------------

_strategy_n := core.latest_number("STRATEGY_BRIEF")

_approval_proposal := _strategy_approval_proposal if lib.status == "STRATEGY_APPROVAL"

_approval_proposal := _final_approval_proposal if lib.status == "HUMAN_APPROVAL"

_approval_proposal := _escalation_proposal if lib.status == "ESCALATED"

# Approved: Copy and Visual start in parallel from the same approved version; older
# approved versions and deliverables made from them are superseded.
_strategy_approval_proposal := {
	"outcome": "allow",
	"status_after": "PRODUCTION",
	"next": core.next_with("PRODUCTION", {
		"copywriter": _strategy_package("copywriter", core.latest_content("STRATEGY_BRIEF")),
		"visual_prompt_agent": _strategy_package("visual_prompt_agent", core.latest_content("STRATEGY_BRIEF")),
	}),
	"events": array.concat(
		array.concat(_approval_events("STRATEGY_APPROVAL"), [core.status_event("STRATEGY_BRIEF", _strategy_n, "approved")]),
		array.concat(
			core.supersede_approved("STRATEGY_BRIEF", _strategy_n),
			array.concat(core.supersede_open("COPY_PACKAGE"), core.supersede_open("VISUAL_PACKAGE")),
		),
	),
} if {
	lib.request.decision == "APPROVE"
}

_strategy_approval_proposal := _revision_request_proposal("STRATEGY_APPROVAL") if lib.request.decision == "REQUEST_REVISION"

_strategy_approval_proposal := {
	"outcome": "fail",
	"status_after": "FAILED_SAFE",
	"events": array.concat(_approval_events("STRATEGY_APPROVAL"), _set_latest("STRATEGY_BRIEF", core.open_statuses, "rejected")),
} if {
	lib.request.decision == "REJECT"
}
