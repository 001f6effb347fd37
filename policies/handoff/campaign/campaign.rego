# Package handoff.campaign decides every request of the campaign pack: Research →
# Research Validation (HG-2) → Strategy → Strategy Approval → Copy ∥ Visual Prompt → QA
# (at most two revision cycles, S1/S2/S3) → Human Approval → Client Delivery.
#
# The decision has the shape every pack's has: core.decide(_reasons,
# core.proposal(_answers, _unanswered)), the core guardrails and the pack's own reasons
# (each rule below with its code in METADATA) applied to the pack's proposal for the
# unblocked path. The proposal says where the workflow goes
# (status_after), who acts next with which context package, what to revise and which
# events to record. The pack's tables are data.handoff.campaign.contract and
# data.handoff.campaign.config, exported from contracts/campaign.
package handoff.campaign

import data.handoff.core
import data.handoff.lib

# METADATA
# title: Campaign decision
# description: >-
#   The decision for one request of a campaign workflow: the core guardrails and the
#   campaign rules decide together; any blocking reason blocks.
# entrypoint: true
decision := core.decide(_reasons, core.proposal(_answers, _unanswered))

# _reasons are core's reasons and the pack's.
_reasons := core.reasons | reasons

# _answers is the pack's answer (_propose) to a request it expects in the current
# status: the proposal for the unblocked path. core.proposal makes any other request a
# block that keeps the status.
_answers := {p | core.ready; _expected; p := _propose}

# _unanswered is OUT_OF_SEQUENCE for an expected request no rule answers; a request
# the pack does not expect is refused by the rule that explains it.
_unanswered := [_no_rule | core.ready; _expected]

_propose := _start_proposal if input.request.kind == "start"

_propose := _handoff_proposal if input.request.kind == "handoff"

_propose := _review_proposal if input.request.kind == "review"

_propose := _approval_proposal if input.request.kind == "approval"

_propose := _failure_proposal if input.request.kind == "failure"

_propose := _outcome_proposal if input.request.kind == "outcome"

_propose := _cancel_proposal if input.request.kind == "cancel"

_handoff_proposal := _research_handoff_proposal if lib.output.type == "RESEARCH_BRIEF"

_handoff_proposal := _strategy_handoff_proposal if lib.output.type == "STRATEGY_BRIEF"

_handoff_proposal := _production_handoff_proposal if lib.output.type in _deliverable_types

_handoff_proposal := _delivery_handoff_proposal if lib.output.type == "CLIENT_PACKAGE"

_review_proposal := _validation_proposal if lib.status == "RESEARCH_VALIDATION"

_review_proposal := _qa_proposal if lib.status == "QA"

# METADATA
# title: No campaign rule decides the request
# description: >-
#   The request is expected in the current status but no rule of the campaign pack
#   decides it: fail closed.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
_no_rule := lib.reason(rego.metadata.rule(), sprintf("no rule of the campaign pack decides %s request in status %s", [lib.with_article(lib.kind), lib.status]), "")

# --- input ---------------------------------------------------------------------

# _by_producer holds for a handoff whose source is the contract's producer of its output
# type. The campaign's content checks judge a producer's output; any other source is
# refused by core (SOURCE_NOT_AUTHORIZED) and its content is not judged.
_by_producer if {
	core.ready
	lib.request.source_agent == core.producer(lib.output.type, "unknown")
}

# --- contract tables -----------------------------------------------------------------

# _required_config are the configuration tables the policy reads, with their JSON type.
_required_config := {
	"deliverable_types": "array",
	"upstream_types": "array",
	"upstream_of": "object",
	"final_types": "array",
	"required_inputs": "object",
	"review_scope": "object",
	"cycle_counter": "object",
	"approval_stages": "object",
	"revisable": "object",
	"fixed": "object",
	"coverage": "object",
	"strategy_summary_fields": "array",
	"proven_checks": "object",
	"verbatim_min_words": "number",
	"clock_skew_ms": "number",
	"research_required_lists": "array",
	"research_declared_lists": "array",
	"research_evidence_sections": "array",
	"delivery_notes": "object",
}

# _config_complete holds when every table of _required_config is there with its type:
# the same test as CONTRACT_MISSING's, one table after the other, so that a complete
# configuration is not checked again table by table.
_config_complete if {
	is_array(lib.pack_config.deliverable_types)
	is_array(lib.pack_config.upstream_types)
	is_object(lib.pack_config.upstream_of)
	is_array(lib.pack_config.final_types)
	is_object(lib.pack_config.required_inputs)
	is_object(lib.pack_config.review_scope)
	is_object(lib.pack_config.cycle_counter)
	is_object(lib.pack_config.approval_stages)
	is_object(lib.pack_config.revisable)
	is_object(lib.pack_config.fixed)
	is_object(lib.pack_config.coverage)
	is_array(lib.pack_config.strategy_summary_fields)
	is_object(lib.pack_config.proven_checks)
	is_number(lib.pack_config.verbatim_min_words)
	is_number(lib.pack_config.clock_skew_ms)
	is_array(lib.pack_config.research_required_lists)
	is_array(lib.pack_config.research_declared_lists)
	is_array(lib.pack_config.research_evidence_sections)
	is_object(lib.pack_config.delivery_notes)
}

# METADATA
# title: Campaign configuration missing
# description: >-
#   The campaign configuration (data.handoff.campaign.config, exported from the CUE
#   value config) lacks a table the policy reads: the artifact groups, required inputs,
#   review scopes, approval stages, the fields deliverables restate from the strategy or
#   the research brief's sections. No table is optional: every request is blocked until
#   it is there.
# custom:
#   code: CONTRACT_MISSING
#   outcome: block
reasons contains r if {
	lib.valid
	not _config_complete
	some name, want in _required_config
	type_name(object.get(lib.pack_config, name, null)) != want
	r := lib.reason(rego.metadata.rule(), sprintf("the campaign configuration has no %s %s", [want, name]), "")
}

# _checks are the contract checks (gates) a review of an artifact type may cite.
_checks(type) := {c | some c in lib.pack_contract.artifacts[type].gates}

_cycles_spent(counter) if core.counter(counter) >= core.limit("max_review_cycles")

_cycles_spent(_) if not core.limit("max_review_cycles")

# --- artifacts in the state ----------------------------------------------------------

# The table is config.deliverable_types in contracts/campaign/config.cue.
_deliverable_types := {t | some t in object.get(lib.pack_config, "deliverable_types", [])}

# The table is config.upstream_types in contracts/campaign/config.cue.
_upstream_types := {t | some t in object.get(lib.pack_config, "upstream_types", [])}

_approved_or_zero(type) := n if {
	n := core.last_approved_number(type)
} else := 0

_approved_content(type) := c if {
	c := core.last_approved(type).content
	is_object(c)
} else := {}

# _strategy_basis is the set of STRATEGY_BRIEF versions a recorded version was made from.
_strategy_basis(v) := {r.version | some r in v.based_on; r.type == "STRATEGY_BRIEF"}

# --- reasons -------------------------------------------------------------------------

_norm(s) := lower(trim_space(s)) if is_string(s)

else := ""

# _canon is text compared ignoring case, runs of blanks and a final full stop.
_canon(s) := trim_right(regex.replace(lower(trim_space(s)), `\s+`, " "), ".") if is_string(s)

else := ""

# _words is text reduced to its words (letters and digits, lower case) with one space on
# each side, so that containment of _words is containment of whole words.
_words(s) := sprintf(" %s ", [trim_space(regex.replace(lower(s), `[^\p{L}\p{N}]+`, " "))]) if is_string(s)

else := "  "

# _contains_words holds when text contains part as whole words, ignoring case, spacing
# and punctuation ("Customers prefer eco-packaging!" contains "customers prefer eco
# packaging"). A part without any word is contained in nothing.
_contains_words(text, part) if {
	w := _words(part)
	w != "  "
	contains(_words(text), w)
}
