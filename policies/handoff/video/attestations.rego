package handoff.video

import data.handoff.core
import data.handoff.lib

# Attestations: the gates no machine decides, and the skill runs a checklist requires,
# rest on someone's word, recorded with who gave it. A skill run is attested by the
# producer in the handoff of the artifact it ran on (kept in the version's meta); a
# judgement gate is attested by the receiving agent in its check. A missing attestation
# fails the gate.

# _judgement_gates are the seed's judgement gates by artifact type, with the checklist
# item each belongs to.
# The table is config.judgement_gates in contracts/video/config.cue.
_judgement_gates := object.get(lib.pack_config, "judgement_gates", {})

# _handoff_attestations are the attestations of the current handoff.
_handoff_attestations := [a | some a in object.get(lib.request, "attestations", []); is_object(a)] if input.request.kind == "handoff"

else := []

_review_attestations := [a | some a in object.get(lib.request, "attestations", []); is_object(a)] if input.request.kind == "review"

else := []

# _skill_attestations are the skill runs attested for an artifact: the current handoff's
# for the artifact it delivers, else those kept with its latest version.
_skill_attestations(type) := [a | some a in _handoff_attestations; a.gate == "skill_run"] if _delivered(type)

else := [a | some a in object.get(core.latest_version(type), ["meta", "attestations"], []); a.gate == "skill_run"]

# _required_skills are the skills an artifact's producer must attest: the checklist's
# skill for A6 and PROMPT, and every skill the skill routing gives it for the artifact.
_required_skills(type) := object.union(_routed_skills(type), _checklist_skill(type))

_checklist_skill(type) := {need.skill: need.item} if {
	need := _checklist_skills[type]
} else := {}

_routed_skills(type) := {trim_space(route.skill): "skill_routing" |
	some route in object.get(_doc("SKILL_ROUTING"), "routes", [])
	route.artifact == type
	route.agent == core.producer(type, "unknown")
	lib.non_blank(route.skill)
}

_skill_attested(type, skill) := [a |
	some a in _skill_attestations(type)
	trim_space(object.get(a, "skill", "")) == skill
	a.by == core.producer(type, "unknown")
]

# _attestation_failures are the skill runs missing or failed, for every artifact in
# scope, and, at a check, the judgement gates missing or failed.
_attestation_failures contains f if {
	some type in _scope
	some skill, item in _required_skills(type)
	count(_skill_attested(type, skill)) == 0
	f := _attestation_missing(type, item, sprintf("%s: %q did not attest running %s (skill_run)", [_label(type), core.producer(type, "unknown"), skill]), _attestation_path(type))
}

_attestation_failures contains f if {
	some type in _scope
	some skill, item in _required_skills(type)
	some a in _skill_attested(type, skill)
	a.passed == false
	f := _attested_failed(type, item, sprintf("%s: %s did not pass: %s", [_label(type), skill, object.get(a, "reason", "no reason given")]), _attestation_path(type))
}

_attestation_path(type) := "attestations" if _delivered(type)

else := sprintf("artifacts.%s.v%d.meta.attestations", [type, core.latest_number(type)])

# _judged are the judgement gates the receiving agent attests at the current check.
_judged contains [type, gate] if {
	_intake
	some type in _edge_types
	some gate, _ in _judgement_gates[type]
}

_judgement(gate) := [a | some a in _review_attestations; a.gate == gate; a.by == lib.actor_id]

_attestation_failures contains f if {
	some [type, gate] in _judged
	count(_judgement(gate)) == 0
	f := _attestation_missing(type, gate, sprintf("%s: judgement gate %s has no attestation by %q, who checks it: a missing attestation fails the gate", [_label(type), gate, lib.actor_id]), "attestations")
}

_attestation_failures contains f if {
	some [type, gate] in _judged
	some i, a in _review_attestations
	a.gate == gate
	a.by == lib.actor_id
	a.passed == false
	f := _attested_failed(type, gate, sprintf("%s: %s attested by %q as not passed: %s", [_label(type), gate, a.by, object.get(a, "reason", "")]), sprintf("attestations[%d]", [i]))
}

# METADATA
# title: Attestation missing
# description: >-
#   A gate that only an attestation decides has none: the receiving agent did not attest
#   a judgement gate (creative_brief_clear, humanize_dialogue_passed,
#   platform_language_correct) in its check, or the producer did not attest running a
#   skill the checklist or the skill routing requires (humanize-dialogue on A6,
#   prompt-schema on PROMPT). The gate fails and the work returns to its producer.
# custom:
#   code: ATTESTATION_MISSING
#   outcome: revise
_attestation_missing(type, gate, message, path) := _failure(rego.metadata.rule(), type, gate, message, path)

# METADATA
# title: Attested as failed
# description: >-
#   The attester says a judgement gate or a skill run did not pass, with its reason (for
#   example: the dialogue still reads as written by AI). The gate fails and the work
#   returns to its producer.
# custom:
#   code: QUALITY_GATE_FAILED
#   outcome: revise
_attested_failed(type, gate, message, path) := _failure(rego.metadata.rule(), type, gate, message, path)

reasons contains f.reason if some f in _attestation_failures

# --- who may attest what -----------------------------------------------------------------

_bad_attestation contains [i, msg] if {
	_producer_handoff
	some i, a in _handoff_attestations
	a.gate != "skill_run"
	msg := sprintf("judgement gate %s is attested by the agent that receives %s at its check, not by its producer", [a.gate, lib.output.type])
}

_bad_attestation contains [i, msg] if {
	_producer_handoff
	some i, a in _handoff_attestations
	a.gate == "skill_run"
	not lib.non_blank(object.get(a, "skill", ""))
	msg := "a skill_run attestation names no skill"
}

_bad_attestation contains [i, msg] if {
	_producer_handoff
	some i, a in _handoff_attestations
	a.artifact
	a.artifact != lib.output.type
	msg := sprintf("the attestation is for %s, but the handoff delivers %s", [a.artifact, lib.output.type])
}

_bad_attestation contains [i, msg] if {
	_reviewing
	some i, a in _review_attestations
	a.gate == "skill_run"
	msg := "a skill run is attested by its producer in the handoff of the artifact, not in a review"
}

_bad_attestation contains [i, msg] if {
	_reviewing
	some i, a in _review_attestations
	a.gate != "skill_run"
	not a.gate in {g | some [_, g] in _judged}
	msg := sprintf("judgement gate %s is not checked in %s (checked here: %v)", [a.gate, lib.status, sort({g | some [_, g] in _judged})])
}

_bad_attestation contains [i, msg] if {
	_reviewing
	some i, a in _review_attestations
	a.gate != "skill_run"
	a.artifact
	not [a.artifact, a.gate] in _judged
	msg := sprintf("the attestation of %s is for %s, but %s is a judgement gate of %v here", [a.gate, a.artifact, a.gate, sort({t | some [t, g] in _judged; g == a.gate})])
}

# An attestation's time is when the attester checked: never later than the engine's
# clock (beyond config.clock_skew_ms), and at a check never before the version it
# judges was recorded.
_bad_attestation contains [i, msg] if {
	some i, a in _attestations_sent
	at := _time_ns(a.at)
	at > _now_ns + _skew_ns
	msg := sprintf("attested at %s, later than the decision time %s", [a.at, input.now])
}

_bad_attestation contains [i, msg] if {
	_reviewing
	some i, a in _review_attestations
	at := _time_ns(a.at)
	some [t, g] in _judged
	g == a.gate
	recorded := _time_ns(core.latest_version(t).recorded_at)
	at < recorded - _skew_ns
	msg := sprintf("attested at %s, before %s v%d was recorded (%s)", [a.at, t, core.latest_number(t), core.latest_version(t).recorded_at])
}

_bad_attestation contains [i, msg] if {
	some i, a in _attestations_sent
	lib.actor_type != "agent"
	msg := sprintf("attested in a request sent by %s %q: an attestation is given by the agent that ran the skill or checked the gate, in its own request", [lib.actor_type, lib.actor_id])
}

_bad_attestation contains [i, msg] if {
	some i, a in _attestations_sent
	a.by != lib.actor_id
	msg := sprintf("attested by %q but sent by %q: an attestation is given by its attester only", [a.by, lib.actor_id])
}

_bad_attestation contains [i, msg] if {
	some i, a in _attestations_sent
	a.passed == false
	not lib.non_blank(object.get(a, "reason", ""))
	msg := sprintf("%s is attested as not passed without a reason (说明不通过原因)", [a.gate])
}

_attestations_sent := _handoff_attestations if _producer_handoff

else := _review_attestations if _reviewing

else := []

# METADATA
# title: Attestation invalid
# description: >-
#   An attestation is not one its sender may give: a producer attests only the skills
#   it ran (skill_run) on the artifact it delivers; a receiving agent attests only the
#   judgement gates of the artifacts it checks; an attestation is sent by an agent
#   (never by a person or the host in its name) and names its sender as attester (by);
#   a failing attestation states its reason; an attestation that names its artifact
#   names the one whose gate it is; its time (at) is not later than the decision time
#   nor, at a check, earlier than the judged version.
# custom:
#   code: ATTESTATION_INVALID
#   outcome: block
reasons contains r if {
	some [i, msg] in _bad_attestation
	r := lib.reason(rego.metadata.rule(), msg, sprintf("attestations[%d]", [i]))
}
