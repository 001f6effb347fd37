# Package handoff.video decides every request of the video pack: client-intake →
# creative-director (A1, skill routing) → screenwriter (A2, A3, A6) → director (A4, A5)
# → vfx-supervisor (PROMPT) → editor (edit plan) → internal review → client confirmation.
#
# The decision has the shape every pack's has: core.decide(_reasons,
# core.proposal(_answers, _unanswered)), the core guardrails and the pack's own reasons
# (each rule below with its code in METADATA) applied to the pack's proposal for the
# unblocked path. At every handoff the policy computes the
# machine-decidable quality gates of the delivered artifact; at every check status the
# receiving agent's review adds the judgement gates (attestations) and its defects; an
# incomplete artifact or a failed gate returns the work to its producer with every
# missing field and failed item listed. The pack's tables are data.handoff.video.contract
# and data.handoff.video.config, exported from contracts/video.
package handoff.video

import data.handoff.core
import data.handoff.lib

# METADATA
# title: Video decision
# description: >-
#   The decision for one request of a video workflow: the core guardrails and the video
#   rules decide together; any blocking reason blocks.
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

_propose := _intake_proposal if {
	input.request.kind == "review"
	_check_status
}

_propose := _internal_proposal if {
	input.request.kind == "review"
	lib.status == "INTERNAL_REVIEW"
}

_propose := _client_proposal if {
	input.request.kind == "approval"
	lib.status == "AWAITING_CLIENT"
}

_propose := _escalation_proposal if {
	input.request.kind == "approval"
	lib.status == "ESCALATED"
}

_propose := _failure_proposal if input.request.kind == "failure"

_propose := _cancel_proposal if input.request.kind == "cancel"

# METADATA
# title: No video rule decides the request
# description: >-
#   The request is expected in the current status but no rule of the video pack
#   decides it: fail closed.
# custom:
#   code: OUT_OF_SEQUENCE
#   outcome: block
_no_rule := lib.reason(rego.metadata.rule(), sprintf("no rule of the video pack decides %s request in status %s", [lib.with_article(lib.kind), lib.status]), "")

# --- input -------------------------------------------------------------------------

# --- contract tables ---------------------------------------------------------------

# _required_config are the configuration tables the policy reads, with their JSON type.
_required_config := {
	"stages": "object",
	"stage_order": "array",
	"record_types": "array",
	"required_inputs": "object",
	"completeness_gate": "object",
	"may_be_blank": "array",
	"may_be_empty": "array",
	"pending_placeholders": "array",
	"may_be_pending": "object",
	"audience_placeholders": "array",
	"reference_placeholders": "array",
	"reference_labels": "array",
	"reference_placeholder_hosts": "array",
	"reference_min_chars": "number",
	"clock_skew_ms": "number",
	"uncarded_roles": "array",
	"placeholder_index": "object",
	"pending_shape": "string",
	"checklist_skills": "object",
	"judgement_gates": "object",
	"item_artifacts": "object",
	"item_of_gate": "object",
	"work_contexts": "object",
	"revisable": "object",
}

# METADATA
# title: Video configuration missing
# description: >-
#   The video configuration (data.handoff.video.config, exported from the CUE value
#   config) lacks a table the policy reads: the chain of edges, the checklists, the
#   completeness rules or the gates' placeholders. No table is optional: every request
#   is blocked until it is there.
# custom:
#   code: CONTRACT_MISSING
#   outcome: block
reasons contains r if {
	lib.valid
	not _config_complete
	some name, want in _required_config
	type_name(object.get(lib.pack_config, name, null)) != want
	r := lib.reason(rego.metadata.rule(), sprintf("the video configuration has no %s %s", [want, name]), "")
}

# _config_complete holds when every table of _required_config is there with its JSON
# type, asked table by table; only when one is not are the tables listed one by one.
_config_complete if {
	is_object(lib.pack_config.stages)
	is_array(lib.pack_config.stage_order)
	is_array(lib.pack_config.record_types)
	is_object(lib.pack_config.required_inputs)
	is_object(lib.pack_config.completeness_gate)
	is_array(lib.pack_config.may_be_blank)
	is_array(lib.pack_config.may_be_empty)
	is_array(lib.pack_config.pending_placeholders)
	is_object(lib.pack_config.may_be_pending)
	is_array(lib.pack_config.audience_placeholders)
	is_array(lib.pack_config.reference_placeholders)
	is_array(lib.pack_config.reference_labels)
	is_array(lib.pack_config.reference_placeholder_hosts)
	is_number(lib.pack_config.reference_min_chars)
	is_number(lib.pack_config.clock_skew_ms)
	is_array(lib.pack_config.uncarded_roles)
	is_object(lib.pack_config.placeholder_index)
	is_string(lib.pack_config.pending_shape)
	is_object(lib.pack_config.checklist_skills)
	is_object(lib.pack_config.judgement_gates)
	is_object(lib.pack_config.item_artifacts)
	is_object(lib.pack_config.item_of_gate)
	is_object(lib.pack_config.work_contexts)
	is_object(lib.pack_config.revisable)
}

_consumes(agent) := {t | some t in lib.pack_contract.agents[agent].consumes}

# --- reasons -----------------------------------------------------------------------

# --- clock -----------------------------------------------------------------------------

# _now_ns is the decision time, the engine's clock (input.now); undefined without it.
_now_ns := time.parse_rfc3339_ns(input.now) if is_string(input.now)

# _time_ns reads an RFC 3339 time; undefined for anything else.
_time_ns(t) := time.parse_rfc3339_ns(t) if is_string(t)

# _skew_ns is how far a sender's clock may run ahead of the engine's
# (config.clock_skew_ms); without the table, not at all.
_skew_ns := n * 1000000 if {
	n := lib.pack_config.clock_skew_ms
	is_number(n)
} else := 0

# --- placeholders ------------------------------------------------------------------------

# _normalized is the form every placeholder comparison uses, on both sides: lower-cased,
# full-width letters and digits read as ASCII (ＴＢＤ is TBD), and every space, control
# character, punctuation mark and symbol removed, ASCII and full-width alike (。，、！？
# ….:/-). "N/A.", "ｎ／ａ" and " n / a " all normalise to "na"; "-", "?" and "……" to "".
_normalized(s) := lower(regex.replace(_ascii(s), `[\s\p{Z}\p{C}\p{P}\p{S}]+`, "")) if is_string(s)

# _ascii reads the full-width letters and digits of s as ASCII; a string without one
# (nearly every string) is left as it is without building the replacement.
_ascii(s) := strings.replace_n(_fullwidth, s) if regex.match(`[Ａ-Ｚａ-ｚ０-９]`, s)

else := s

# _fullwidth maps the full-width forms of A-Z, a-z and 0-9 (U+FF21.., U+FF41.., U+FF10..)
# to ASCII: a constant of Unicode, written out so that no evaluation builds it.
_fullwidth := {
	"Ａ": "A", "Ｂ": "B", "Ｃ": "C", "Ｄ": "D", "Ｅ": "E", "Ｆ": "F", "Ｇ": "G", "Ｈ": "H",
	"Ｉ": "I", "Ｊ": "J", "Ｋ": "K", "Ｌ": "L", "Ｍ": "M", "Ｎ": "N", "Ｏ": "O", "Ｐ": "P",
	"Ｑ": "Q", "Ｒ": "R", "Ｓ": "S", "Ｔ": "T", "Ｕ": "U", "Ｖ": "V", "Ｗ": "W", "Ｘ": "X",
	"Ｙ": "Y", "Ｚ": "Z", "ａ": "a", "ｂ": "b", "ｃ": "c", "ｄ": "d", "ｅ": "e", "ｆ": "f",
	"ｇ": "g", "ｈ": "h", "ｉ": "i", "ｊ": "j", "ｋ": "k", "ｌ": "l", "ｍ": "m", "ｎ": "n",
	"ｏ": "o", "ｐ": "p", "ｑ": "q", "ｒ": "r", "ｓ": "s", "ｔ": "t", "ｕ": "u", "ｖ": "v",
	"ｗ": "w", "ｘ": "x", "ｙ": "y", "ｚ": "z", "０": "0", "１": "1", "２": "2", "３": "3",
	"４": "4", "５": "5", "６": "6", "７": "7", "８": "8", "９": "9",
}

# _placeholder_set is a configuration list of placeholders, normalised, as an object
# whose keys are the normalised values: config.placeholder_index[name], derived from
# the list in contracts/video/config.cue. Look a value up as _placeholder_set(name)[v].
_placeholder_set(name) := object.get(lib.pack_config, ["placeholder_index", name], {})

# _pending_placeholders are the values that say the work is still to be done.
# The table is config.pending_placeholders in contracts/video/config.cue.
_pending_placeholders := _placeholder_set("pending_placeholders")

# _pending_shape matches every string that may be pending: one that may normalise to a
# pending placeholder (its first character normalisation keeps is one a placeholder
# starts with, and it keeps no more characters than the longest has), or that holds
# only separators. config.pending_shape, derived from the placeholder list in
# contracts/video/config.cue. Any other string is not pending and is never normalised.
_pending_shape := s if {
	s := lib.pack_config.pending_shape
	is_string(s)
}

# _pending holds for a string that holds a pending value (TBD, 待定, 待补充, ...), or
# only question marks and ellipses.
_pending(s) if {
	regex.match(_pending_shape, s)
	_pending_form(s)
}

_pending_form(s) if _pending_placeholders[_normalized(s)]

_pending_form(s) if regex.match(`^[?？.。…⋯\s]+$`, s)
