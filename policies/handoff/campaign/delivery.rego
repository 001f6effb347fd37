package handoff.campaign

import data.handoff.core
import data.handoff.lib

# Client delivery (seed "Critical Architecture Rule"): the Client Delivery Agent receives
# only APPROVED artifacts, may not modify substantive content, may not deliver without
# final approval, and cannot turn DRAFT or REVISION_REQUIRED into FINAL (CTRL-5).

_delivery if {
	_by_producer
	lib.output.type == "CLIENT_PACKAGE"
}

_final_approval_recorded if lib.state.approvals.HUMAN_APPROVAL.decision == "APPROVE"

_delivery_without_approval if {
	_delivery
	not _final_approval_recorded
}

# METADATA
# title: Delivery without final approval
# description: >-
#   A CLIENT_PACKAGE arrives while no person's APPROVE of the final copy, visual prompts
#   and QA result is recorded (state.approvals.HUMAN_APPROVAL), or its APPROVAL_RECORD
#   input is not that approval.
# custom:
#   code: APPROVAL_REQUIRED
#   outcome: block
reasons contains r if {
	_delivery_without_approval
	r := lib.gate_reason(rego.metadata.rule(), sprintf("no final human approval is recorded (the workflow is in %s): delivery requires a person's APPROVE at HUMAN_APPROVAL", [lib.status]), "input_artifacts", "CTRL-5", "block")
}

# METADATA
# title: Delivery names an approval record that is not the final approval
# description: >-
#   The APPROVAL_RECORD a CLIENT_PACKAGE names records a person's APPROVE at
#   HUMAN_APPROVAL, not a strategy approval, a revision request or a rejection.
# custom:
#   code: APPROVAL_REQUIRED
#   outcome: block
reasons contains r if {
	_delivery
	some i, ref in lib.inputs
	ref.type == "APPROVAL_RECORD"
	c := core.artifact_version("APPROVAL_RECORD", ref.version).content
	not _final_approve_record(c)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("APPROVAL_RECORD v%v records %s at %s, not the final APPROVE", [ref.version, object.get(c, "decision", "nothing"), object.get(c, "stage", "no stage")]), sprintf("input_artifacts[%d]", [i]), "CTRL-5", "block")
}

_final_approve_record(c) if {
	c.decision == "APPROVE"
	c.stage == "HUMAN_APPROVAL"
}

# METADATA
# title: Delivery of an artifact that is not approved
# description: >-
#   Every input of a CLIENT_PACKAGE is an approved (or final) version, including the
#   types whose contract needs no approval before other consumers use them (QA_REPORT);
#   core checks the types that require approval. A DRAFT or REVISION_REQUIRED version
#   never becomes FINAL through delivery.
# custom:
#   code: ARTIFACT_NOT_APPROVED
#   outcome: block
reasons contains r if {
	_delivery
	some i, ref in lib.inputs
	not core.requires_approval(ref.type)
	v := core.artifact_version(ref.type, ref.version)
	not v.status in core.approved_statuses
	r := lib.gate_reason(rego.metadata.rule(), sprintf("%s v%v is %s; the Client Delivery Agent receives only approved artifacts", [ref.type, ref.version, v.status]), sprintf("input_artifacts[%d]", [i]), "CTRL-5", "block")
}

# _packaged are [package field, approved artifact type, its field]: what a CLIENT_PACKAGE
# carries over unchanged.
_packaged := [
	["copy", "COPY_PACKAGE", "deliverables"],
	["visual_prompts", "VISUAL_PACKAGE", "prompts"],
]

# METADATA
# title: Substantive content modified
# description: >-
#   The Client Delivery Agent may not modify substantive content: the package's copy and
#   visual prompts equal the approved COPY_PACKAGE deliverables and VISUAL_PACKAGE
#   prompts exactly.
# custom:
#   code: CONTENT_MODIFIED
#   outcome: block
reasons contains r if {
	_delivery
	some [field, type, source] in _packaged
	approved := _approved_content(type)
	count(approved) > 0
	object.get(lib.content, field, null) != object.get(approved, source, null)
	r := lib.gate_reason(rego.metadata.rule(), sprintf("CLIENT_PACKAGE %s differs from the approved %s v%v %s", [field, type, core.last_approved_number(type), source]), sprintf("output.content.%s", [field]), "CTRL-5", "block")
}

# --- delivery notes -----------------------------------------------------------------------

# A CLIENT_PACKAGE's delivery_notes describes the package, nothing else: every word is a
# packaging word, a number, or the name of a delivered item (the tables and the reading
# are config.delivery_notes in contracts/campaign/config.cue). The check only refuses:
# a note never allows, routes or changes anything.

_note_table := object.get(lib.pack_config, "delivery_notes", {})

_note_words := {w | some w in object.get(_note_table, "words", [])}

_note_numbers := object.get(_note_table, "numbers", {})

_note_kinds := object.get(_note_table, "kinds", {})

_note := n if {
	n := lib.content.delivery_notes
	lib.non_blank(n)
}

# _note_tokens are the note's words, lower-cased: letters and digits, with _ : . @ -
# inside one (email-1, 1:1, copy_package, p.s).
_note_tokens := regex.find_n(`[\p{L}\p{N}](?:[\p{L}\p{N}_:.@-]*[\p{L}\p{N}])?`, lower(_note), -1)

_package_items(field) := [x | some x in object.get(lib.content, field, []); is_object(x)]

# _delivered_names are the words that name a delivered item: the type, id and version
# of every input artifact, and the id, channel (and its plural), format and aspect ratio
# of every copy piece and visual prompt in the package.
_delivered_names := ((({lower(r.type) | some r in lib.inputs} | {lower(r.id) | some r in lib.inputs}) | {sprintf("v%v", [r.version]) | some r in lib.inputs}) | {lower(v) |
	some field in ["copy", "visual_prompts"]
	some x in _package_items(field)
	some key in ["id", "channel", "format", "aspect_ratio"]
	v := x[key]
	is_string(v)
}) | {sprintf("%ss", [lower(x.channel)]) | some x in _package_items("copy"); is_string(x.channel)}

# _note_number is the value of a number word or a number in digits.
_note_number(t) := to_number(t) if regex.match(`^[0-9]{1,6}$`, t)

else := n if {
	n := _note_numbers[t]
	is_number(n)
}

# _kind_count is how many items of the kind a word names the package delivers: copy
# pieces, visual prompts, or the copy of a channel or the prompts of a format it
# delivers.
_kind_count(word) := count(_package_items("copy")) if {
	word in object.get(_note_kinds, "copy", [])
} else := count(_package_items("visual_prompts")) if {
	word in object.get(_note_kinds, "visual_prompts", [])
} else := n if {
	n := count([x | some x in _package_items("copy"); word in {lower(x.channel), sprintf("%ss", [lower(x.channel)])}])
	n > 0
} else := n if {
	n := count([x | some x in _package_items("visual_prompts"); word == lower(x.format)])
	n > 0
}

_note_problems contains msg if {
	unknown := {t |
		some t in _note_tokens
		not t in _note_words
		not t in _delivered_names
		not _note_number(t)
	}
	count(unknown) > 0
	msg := sprintf("delivery_notes says %v, which name no delivered item and are no packaging words: a note describes the package (its items by id, type, version, channel, format and count, and how they are packed), never new copy or a claim", [array.slice(sort(unknown), 0, 8)])
}

# A number followed within three words by a word naming a kind of item counts that kind.
_note_problems contains msg if {
	some i, t in _note_tokens
	n := _note_number(t)
	kinds := [w | some j in numbers.range(i + 1, i + 3); w := _note_tokens[j]; _kind_count(w)]
	count(kinds) > 0
	want := _kind_count(kinds[0])
	n != want
	msg := sprintf("delivery_notes counts %v %s, but the package delivers %d", [n, kinds[0], want])
}

# METADATA
# title: Delivery note carries content
# description: >-
#   The Client Delivery Agent packages approved artifacts and may not add content: a
#   CLIENT_PACKAGE's delivery_notes only describes the package. Every word of it is a
#   packaging word (config.delivery_notes.words), a number, or the name of a delivered
#   item (the type, id or version of an input artifact; the id, channel, format or
#   aspect ratio of a delivered copy piece or visual prompt), and a count of a kind of
#   item is the package's count. Any other word is new content (a headline, body text,
#   a CTA, a claim, a sentence not about the package) and the package is refused, not
#   stripped: it is recorded and delivered as sent.
# custom:
#   code: CONTENT_MODIFIED
#   outcome: block
reasons contains r if {
	_delivery
	some msg in _note_problems
	r := lib.gate_reason(rego.metadata.rule(), msg, "output.content.delivery_notes", "CTRL-5", "block")
}

# METADATA
# title: Delivery still in flight
# description: >-
#   A delivery is pending (its outcome not reported yet): a second CLIENT_PACKAGE would
#   deliver twice. Core refuses new handoffs while an outcome is unknown.
# custom:
#   code: DELIVERY_UNRECONCILED
#   outcome: block
reasons contains r if {
	_delivery
	some id, status in lib.state.effects
	status == "pending"
	r := lib.reason(rego.metadata.rule(), sprintf("delivery %q is still pending; report its outcome first", [id]), "")
}

# _failed_delivery is the latest CLIENT_PACKAGE version when its delivery failed: a new
# CLIENT_PACKAGE is then its redelivery.
_failed_delivery := v if {
	v := core.latest_version("CLIENT_PACKAGE")
	lib.state.effects[sprintf("%s@v%v", [v.ref.id, v.ref.version])] == "failed"
}

# METADATA
# title: Redelivery does not name the failed delivery
# description: >-
#   A CLIENT_PACKAGE sent after a delivery failed is its redelivery: it names the failed
#   CLIENT_PACKAGE version in input_artifacts, so that every try is traceable to the
#   failure it answers.
# custom:
#   code: INPUT_MISSING
#   outcome: block
reasons contains r if {
	_delivery
	v := _failed_delivery
	count([ref | some ref in lib.inputs; ref.type == "CLIENT_PACKAGE"; ref.version == v.ref.version]) == 0
	r := lib.reason(rego.metadata.rule(), sprintf("the delivery of CLIENT_PACKAGE v%v failed; its redelivery names that version in input_artifacts", [v.ref.version]), "input_artifacts")
}

# METADATA
# title: Redelivery before its retry is due
# description: >-
#   A CLIENT_PACKAGE redelivery arrives before the retry delay the failure's decision
#   announced has passed since that decision (the engine's clock, the delay the decision
#   reported, its jitter included): the host retries when told to, not at once.
# custom:
#   code: RETRY_NOT_DUE
#   outcome: block
reasons contains r if {
	_delivery
	_failed_delivery
	due := lib.state.counters[_retry_due_counter]
	is_number(due)
	_now_ms < due
	r := lib.reason(rego.metadata.rule(), sprintf("the failed delivery may be tried again from %s; %d ms are left", [time.format(due * 1000000), due - _now_ms]), "output")
}

_effect_id := sprintf("%s@v%v", [lib.output.id, lib.output.version])

_delivery_handoff_proposal := {
	"outcome": "allow",
	"status_after": "DELIVERY",
	"next": [],
	"events": array.concat(
		array.concat(core.supersede_approved("CLIENT_PACKAGE", lib.output.version), [core.artifact_event("approved")]),
		[core.handoff_event, {"type": "effect", "id": _effect_id, "status": "pending"}],
	),
}

# --- outcome of the delivery ---------------------------------------------------------

_effect_status := lib.state.effects[lib.request.effect_id]

# A failed delivery is retried under the retry budget of _delivery_class (a transient
# failure of the delivery task).
_delivery_class := "timeout"

# _delivery_try is the try that just failed: the first is 1.
_delivery_try := core.counter(core.retry_counter("delivery")) + 1

_delivery_retry := object.union(core.retry_decision(_delivery_class, _delivery_try + 1, 0), {"task": "delivery"})

_delivery_retry_spent if not _delivery_retry

_delivery_retry_spent if _delivery_retry.attempt > _delivery_retry.max_attempts

_delivery_retry_spent if lib.pack_contract.limits.retry[_delivery_class].retryable != true

# _effect_open holds while the outcome of the reported delivery is still to be settled:
# pending, or unknown. A failed delivery is settled: its retry is a new CLIENT_PACKAGE
# version with an effect of its own.
_effect_open if _effect_status in {"pending", "unknown"}

_delivery_failed if {
	core.ready
	input.request.kind == "outcome"
	lib.status == "DELIVERY"
	lib.request.result == "failed"
	_effect_open
}

# METADATA
# title: Delivery retries exhausted
# description: >-
#   The delivery failed and its retry budget (limits.retry of the delivery failure
#   class) is spent: the workflow escalates to a person.
# custom:
#   code: RETRY_EXHAUSTED
#   outcome: await_human
reasons contains r if {
	_delivery_failed
	_delivery_retry_spent
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("delivery %q failed on try %d; the %s retry budget is spent", [lib.request.effect_id, _delivery_try, _delivery_class]), "result", "await_human")
}

# METADATA
# title: Delivery outcome unknown
# description: >-
#   The host cannot tell whether the client received the delivery: the workflow stays in
#   DELIVERY, nothing is sent again, and a person reconciles (a later outcome of the same
#   effect settles it).
# custom:
#   code: DELIVERY_UNRECONCILED
#   outcome: await_human
reasons contains r if {
	core.ready
	input.request.kind == "outcome"
	lib.status == "DELIVERY"
	lib.request.result == "unknown"
	_effect_open
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("the outcome of delivery %q is unknown; reconcile before anything is delivered again", [lib.request.effect_id]), "result", "await_human")
}

_effect_event(status) := {"type": "effect", "id": lib.request.effect_id, "status": status}

# Acknowledged: the workflow completes and every approved version becomes final.
_outcome_proposal := {
	"outcome": "allow",
	"status_after": "COMPLETED",
	"next": [],
	"events": array.concat([_effect_event("acknowledged")], [core.status_event(t, v.ref.version, "final") |
		some t, h in lib.state.artifacts
		some v in h.versions
		v.status == "approved"
	]),
} if {
	_effect_open
	lib.request.result == "acknowledged"
}

_outcome_proposal := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": core.next_for("ESCALATED"),
	"events": [_effect_event("failed")],
	"requires_human_review": true,
} if {
	_delivery_failed
	_delivery_retry_spent
}

_outcome_proposal := {
	"outcome": "retry",
	"status_after": "DELIVERY",
	"retry": _delivery_retry,
	"next": core.next_with("DELIVERY", {"delivery_agent": core.empty_context}),
	"events": [
		_effect_event("failed"),
		{"type": "counter", "name": core.retry_counter("delivery"), "delta": 1},
		{"type": "counter", "name": _retry_due_counter, "value": _now_ms + _delivery_retry.delay_ms},
	],
} if {
	_delivery_failed
	not _delivery_retry_spent
}

# _retry_due_counter holds the time (Unix milliseconds, the engine's clock) from which the
# delivery may be tried again: the failure's decision time plus the retry delay the
# decision announced (core.retry_decision's, its jitter included).
_retry_due_counter := _retry_due_counter_of("delivery")

_outcome_proposal := {
	"outcome": "await_human",
	"status_after": "DELIVERY",
	"next": [],
	"events": [_effect_event("unknown")],
	"requires_human_review": true,
} if {
	_effect_open
	lib.request.result == "unknown"
}

# An outcome of an effect the workflow never recorded: core blocks it.
_outcome_proposal := {"outcome": "block", "status_after": lib.status} if not _effect_status

# An outcome of a settled effect: EFFECT_ALREADY_SETTLED blocks it.
_outcome_proposal := {"outcome": "block", "status_after": lib.status} if _effect_settled

_effect_settled if {
	_effect_status
	not _effect_open
}

# METADATA
# title: Outcome of a settled delivery
# description: >-
#   An outcome reports on a delivery that is already settled (reported failed, or
#   acknowledged): a duplicate of an event already counted, whatever its request_id. It is
#   refused and counts nothing: a failed delivery is tried again only by a new
#   CLIENT_PACKAGE version, whose effect gets its own outcome.
# custom:
#   code: EFFECT_ALREADY_SETTLED
#   outcome: block
reasons contains r if {
	core.ready
	input.request.kind == "outcome"
	_effect_settled
	r := lib.reason(rego.metadata.rule(), sprintf("delivery %q is already settled (%s); this %s outcome repeats a reported event and is not counted", [lib.request.effect_id, _effect_status, lib.request.result]), "effect_id")
}
