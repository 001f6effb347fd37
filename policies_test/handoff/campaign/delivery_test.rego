# Client delivery: approved artifacts only, unmodified, after the final approval; the
# delivery's outcome is reconciled, retried within its budget, then escalated.
package handoff.campaign_test

import data.handoff.campaign

test_delivery_before_approval if {
	d := decide(delivery_handoff(array.concat(final_refs, [ref("APPROVAL_RECORD", 1)]), client_package), st_human)
	codes(d) == {"APPROVAL_REQUIRED", "ARTIFACT_NOT_APPROVED"}
	not "OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
}

test_delivery_with_a_record_that_is_not_the_final_approval if {
	inputs := [ref("COPY_PACKAGE", 1), ref("VISUAL_PACKAGE", 1), ref("QA_REPORT", 2), ref("APPROVAL_RECORD", 1)]
	d := decide(delivery_handoff(inputs, client_package), st_delivery)
	codes(d) == {"APPROVAL_REQUIRED", "VERSION_MISMATCH"}
	some r in d.reasons
	r.code == "APPROVAL_REQUIRED"
	r.path == "input_artifacts[3]"
}

test_delivery_after_a_revision_request if {
	st := with_state(st_delivery, {"approvals": {"HUMAN_APPROVAL": {"decision": "REQUEST_REVISION", "by": "maria.lopez", "artifacts": []}}})
	d := decide(delivery_handoff(delivery_inputs, client_package), st)
	codes(d) == {"APPROVAL_REQUIRED"}
}

test_approval_required_twin if {
	d := decide(delivery_handoff(delivery_inputs, client_package), st_delivery)
	count(d.reasons) == 0
}

test_delivery_of_a_report_that_is_not_approved if {
	reports := history("QA_REPORT", [object.union(report_v1, {"status": "superseded"}), final_report])
	st := with_state(state("DELIVERY", object.union(st_delivery.artifacts, {"QA_REPORT": reports})), {"approvals": st_delivery.approvals})
	d := decide(delivery_handoff(delivery_inputs, client_package), st)
	codes(d) == {"ARTIFACT_NOT_APPROVED"}
	d.reasons[0].path == "input_artifacts[2]"
}

test_delivery_of_a_draft_copy if {
	copies := history("COPY_PACKAGE", [copy_v(1, "superseded"), copy_v(2, "approved")])
	st := with_state(state("DELIVERY", object.union(st_delivery.artifacts, {"COPY_PACKAGE": copies})), {"approvals": st_delivery.approvals})
	d := decide(delivery_handoff(delivery_inputs, client_package), st)
	"ARTIFACT_NOT_APPROVED" in codes(d)
	d.outcome == "block"
}

test_content_modified_copy if {
	edited := json.patch(client_package, [{"op": "replace", "path": "/copy/1/body", "value": "The best cold brew in Europe."}])
	d := decide(delivery_handoff(delivery_inputs, edited), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
	d.reasons[0].path == "output.content.copy"
}

test_content_modified_visual if {
	edited := json.patch(client_package, [{"op": "remove", "path": "/visual_prompts/1"}])
	d := decide(delivery_handoff(delivery_inputs, edited), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
}

# Delivery adds no content: a note describes the package (its delivered items by id,
# type, version, channel, format and count, and how they are packed), never new copy or
# a claim.

with_notes(notes) := delivery_handoff(delivery_inputs, object.union(client_package, {"delivery_notes": notes}))

# packaging_notes are ordinary packaging notes of the fixture's package (two copy pieces,
# email-1 and social-1; two visual prompts, v-1 instagram_square and v-2 web_banner).
packaging_notes := [
	"Two copy pieces, two image prompts",
	"Zip with two folders",
	"Includes the approved COPY_PACKAGE v1 and VISUAL_PACKAGE v1.",
	"1 email and 1 social post",
	"Prompts v-1 (instagram_square, 1:1) and v-2 (web_banner, 16:9) as PNG files; copy as DOCX",
	"email-1 and social-1 in one folder per channel",
	"Both prompts in a separate zip archive",
	"Final approved copy, unchanged.",
]

test_packaging_notes_twin_allowed if {
	every notes in packaging_notes {
		d := decide(with_notes(notes), st_delivery)
		count(d.reasons) == 0
		d.outcome == "allow"
	}
}

# A word that is not about the package is content, even among packaging words.
test_content_modified_word_not_about_the_package if {
	d := decide(with_notes("Two copy pieces, enjoy the launch"), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
	contains(d.reasons[0].message, `["enjoy", "launch"]`)
}

test_content_modified_new_copy_in_delivery_notes if {
	notes := "P.S. Flash sale: Brightbrew cures your Monday blues, 50% off today only!"
	d := decide(with_notes(notes), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
	d.reasons[0].path == "output.content.delivery_notes"
	d.reasons[0].title == "Delivery note carries content"
	d.outcome == "block"
}

test_content_modified_headline_in_delivery_notes if {
	d := decide(with_notes("Headline: Wake up to cafe-quality cold brew"), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
}

test_content_modified_cta_in_delivery_notes if {
	d := decide(with_notes("Two copy pieces; CTA: Order now and save"), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
}

test_content_modified_claim_in_delivery_notes if {
	d := decide(with_notes("Approved copy, clinically proven to boost focus"), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
}

# A count the package does not deliver misstates it.
test_content_modified_wrong_count if {
	d := decide(with_notes("Three copy pieces, two image prompts"), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
	contains(d.reasons[0].message, "counts 3 copy, but the package delivers 2")
	d2 := decide(with_notes("2 emails"), st_delivery)
	codes(d2) == {"CONTENT_MODIFIED"}
}

# A count of a channel's copy or a format's prompts is the package's count too.
test_content_modified_wrong_count_of_a_format if {
	d := decide(with_notes("2 web_banner prompts"), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
	contains(d.reasons[0].message, "counts 2 web_banner, but the package delivers 1")
	count(decide(with_notes("1 web_banner, 1 instagram_square"), st_delivery).reasons) == 0
}

# A reference to something the package does not deliver is not a packaging note.
test_content_modified_item_not_delivered if {
	d := decide(with_notes("Includes email-2 and STRATEGY_BRIEF v3"), st_delivery)
	codes(d) == {"CONTENT_MODIFIED"}
}

# Without the table, no note is a packaging note (fail closed).
test_content_modified_without_the_notes_table if {
	cfg := object.remove(data.handoff.campaign.config, ["delivery_notes"])
	d := campaign.decision with input as input_of(with_notes("Zip with two folders"), st_delivery)
		with data.handoff.campaign.config as cfg
	"CONTENT_MODIFIED" in codes(d)
	"CONTRACT_MISSING" in codes(d)
}

test_content_modified_twin_blank_notes if {
	d := decide(with_notes("  "), st_delivery)
	count(d.reasons) == 0
	d.outcome == "allow"
}

test_content_modified_twin_no_notes if {
	d := decide(delivery_handoff(delivery_inputs, client_package), st_delivery)
	not "CONTENT_MODIFIED" in codes(d)
}

test_input_missing_visual if {
	inputs := [ref("COPY_PACKAGE", 1), ref("QA_REPORT", 2), ref("APPROVAL_RECORD", 2)]
	d := decide(delivery_handoff(inputs, client_package), st_delivery)
	codes(d) == {"INPUT_MISSING"}
}

test_delivery_while_pending if {
	req := object.union(delivery_handoff(delivery_inputs, client_package), {"output": output("CLIENT_PACKAGE", 2, client_package)})
	d := decide(req, st_delivering("pending"))
	codes(d) == {"DELIVERY_UNRECONCILED"}
}

test_delivery_while_pending_twin_after_failure if {
	d := decide(redelivery(redelivery_inputs), st_delivering("failed"))
	not "DELIVERY_UNRECONCILED" in codes(d)
	status_events(d) == {"CLIENT_PACKAGE v1 superseded"}
}

# --- outcomes -----------------------------------------------------------------------------

test_failed_delivery_is_retried if {
	d := decide(outcome("client-package@v1", "failed"), st_delivering("pending"))
	d.outcome == "retry"
	d.status_after == "DELIVERY"
	d.retry == {"attempt": 2, "max_attempts": 3, "delay_ms": 4000, "task": "delivery"}
	{"type": "counter", "name": "retry/delivery", "delta": 1} in d.events
	{"type": "effect", "id": "client-package@v1", "status": "failed"} in d.events
	next_agents(d) == {"delivery_agent"}
}

test_retry_exhausted if {
	st := with_state(st_delivering("pending"), {"counters": {"retry/delivery": 2}})
	d := decide(outcome("client-package@v1", "failed"), st)
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	codes(d) == {"RETRY_EXHAUSTED"}
	next_agents(d) == {"campaign_approver"}
}

test_retry_exhausted_twin_last_retry if {
	st := with_state(st_delivering("pending"), {"counters": {"retry/delivery": 1}})
	d := decide(outcome("client-package@v1", "failed"), st)
	not "RETRY_EXHAUSTED" in codes(d)
	d.retry.attempt == 3
	d.retry.delay_ms == 8000
}

test_retry_without_a_retry_policy_escalates if {
	contract := json.remove(campaign_contract, ["limits/retry/timeout"])
	d := decide_with(outcome("client-package@v1", "failed"), st_delivering("pending"), contract)
	d.status_after == "ESCALATED"
	"RETRY_EXHAUSTED" in codes(d)
}

test_unknown_outcome_waits_for_reconciliation if {
	d := decide(outcome("client-package@v1", "unknown"), st_delivering("pending"))
	d.outcome == "await_human"
	d.status_after == "DELIVERY"
	codes(d) == {"DELIVERY_UNRECONCILED"}
	d.reasons[0].outcome == "await_human"
	{"type": "effect", "id": "client-package@v1", "status": "unknown"} in d.events
}

test_unknown_outcome_twin_acknowledged if {
	d := decide(outcome("client-package@v1", "acknowledged"), st_delivering("unknown"))
	not "DELIVERY_UNRECONCILED" in codes(d)
	d.status_after == "COMPLETED"
}

test_outcome_of_an_unknown_effect if {
	d := decide(outcome("client-package@v9", "acknowledged"), st_delivering("pending"))
	codes(d) == {"EFFECT_NOT_FOUND"}
	d.outcome == "block"
}

test_outcome_outside_delivery if {
	d := decide(outcome("client-package@v1", "acknowledged"), state("HUMAN_APPROVAL", st_delivering("pending").artifacts))
	"OUT_OF_SEQUENCE" in codes(d)
	d.outcome == "block"
}

# --- a delivery event is counted once; a retry is a redelivery, when it is due -------------

now_ms := time.parse_rfc3339_ns(now) / 1000000

redelivery_inputs := array.concat(delivery_inputs, [ref("CLIENT_PACKAGE", 1)])

redelivery(inputs) := object.union(delivery_handoff(inputs, client_package), {"output": output("CLIENT_PACKAGE", 2, client_package)})

test_failed_delivery_records_when_its_retry_is_due if {
	d := decide(outcome("client-package@v1", "failed"), st_delivering("pending"))
	{"type": "counter", "name": "retry_due_ms/delivery", "value": now_ms + 4000} in d.events
}

test_outcome_duplicate_failed_again if {
	st := with_state(st_delivering("failed"), {"counters": {"retry/delivery": 1}})
	d := decide(outcome("client-package@v1", "failed"), st)
	codes(d) == {"EFFECT_ALREADY_SETTLED"}
	d.outcome == "block"
	d.status_after == "DELIVERY"
	count(d.events) == 0
}

test_outcome_duplicate_acknowledged_after_failed if {
	d := decide(outcome("client-package@v1", "acknowledged"), st_delivering("failed"))
	codes(d) == {"EFFECT_ALREADY_SETTLED"}
}

test_outcome_duplicate_twin_first_report if {
	d := decide(outcome("client-package@v1", "failed"), st_delivering("pending"))
	not "EFFECT_ALREADY_SETTLED" in codes(d)
	d.outcome == "retry"
}

test_outcome_duplicate_twin_after_unknown if {
	d := decide(outcome("client-package@v1", "acknowledged"), st_delivering("unknown"))
	count(d.reasons) == 0
	d.status_after == "COMPLETED"
}

test_redelivery_names_the_failed_package if {
	d := decide(redelivery(delivery_inputs), st_delivering("failed"))
	codes(d) == {"INPUT_MISSING"}
}

test_redelivery_before_it_is_due if {
	st := with_state(st_delivering("failed"), {"counters": {"retry/delivery": 1, "retry_due_ms/delivery": now_ms + 4000}})
	d := decide(redelivery(redelivery_inputs), st)
	codes(d) == {"RETRY_NOT_DUE"}
	d.outcome == "block"
	contains(d.reasons[0].message, "4000 ms are left")
}

test_redelivery_twin_when_due if {
	st := with_state(st_delivering("failed"), {"counters": {"retry/delivery": 1, "retry_due_ms/delivery": now_ms}})
	d := decide(redelivery(redelivery_inputs), st)
	count(d.reasons) == 0
	d.outcome == "allow"
	{"type": "effect", "id": "client-package@v2", "status": "pending"} in d.events
}
