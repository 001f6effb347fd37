# The response draft (T4): the route's kind, claims equal to the verified order result,
# approved knowledge sources, supported promises, explicit authorization for sensitive
# actions.
package handoff.support_test

test_draft_unsupported_claim if {
	wrong := object.union(draft_content, {"order_claims": {"order_status": "delivered", "estimated_delivery": "2026-03-12"}})
	d := decide(draft(wrong), st_t4)
	codes(d) == {"UNSUPPORTED_CLAIM"}
	d.reasons[0].path == "output.content.order_claims"
}

test_draft_claims_without_naming_the_result if {
	req := object.union(draft(draft_content), {"input_artifacts": [ref("CASE", 1)], "input_refs": ["CASE.message"]})
	d := decide(req, st_t4)
	codes(d) == {"UNSUPPORTED_CLAIM"}
	d.reasons[0].path == "input_artifacts"
}

test_draft_order_status_without_claims if {
	d := decide(draft(object.remove(draft_content, ["order_claims"])), st_t4)
	"UNSUPPORTED_CLAIM" in codes(d)
}

test_draft_unsupported_claim_twin if {
	d := decide(draft(draft_content), st_t4)
	not "UNSUPPORTED_CLAIM" in codes(d)
}

test_route_mismatch if {
	faq := object.union(object.remove(draft_content, ["order_claims"]), {"kind": "faq", "promises": [], "knowledge_sources": ["kb-delivery-times"]})
	d := decide(draft(faq), st_t4)
	codes(d) == {"ROUTE_MISMATCH"}
}

test_route_mismatch_summary_without_escalation if {
	st := with_artifacts(st_t4, {"CLASSIFICATION": one("CLASSIFICATION", "approved", object.union(classification_content, {"intent": "complaint"}))})
	summary := object.union(object.remove(draft_content, ["order_claims"]), {"kind": "escalation_summary", "promises": []})
	d := decide(draft(summary), st)
	codes(d) == {"ROUTE_MISMATCH"}
	d.reasons[0].path == "output.content.escalation"
}

test_route_mismatch_twin if {
	d := decide(draft(draft_content), st_t4)
	not "ROUTE_MISMATCH" in codes(d)
}

faq_state := with_artifacts(st_t4, {"CLASSIFICATION": one("CLASSIFICATION", "approved", object.union(classification_content, {"intent": "faq"}))})

faq_answer(sources) := object.union(object.remove(draft_content, ["order_claims"]), {
	"kind": "faq", "promises": [], "knowledge_sources": sources,
	"message": "Standard delivery takes 3 to 5 working days after shipping.",
})

test_unapproved_source if {
	st := json.remove(faq_state, ["tasks/T3"])
	d := decide(draft(faq_answer(["forum-post-1182"])), st)
	codes(d) == {"UNAPPROVED_SOURCE"}
}

test_faq_without_sources if {
	st := json.remove(faq_state, ["tasks/T3"])
	d := decide(draft(faq_answer([])), st)
	codes(d) == {"UNAPPROVED_SOURCE"}
}

test_unapproved_source_twin if {
	st := json.remove(faq_state, ["tasks/T3"])
	d := decide(draft(faq_answer(["kb-delivery-times"])), st)
	count(d.reasons) == 0
}

test_unsupported_promise_other_date if {
	d := decide(draft(object.union(draft_content, {"promises": [{"type": "delivery_date", "detail": "Guaranteed by 2026-03-11"}]})), st_t4)
	codes(d) == {"UNSUPPORTED_PROMISE"}
	d.reasons[0].path == "output.content.promises[0]"
}

test_unsupported_promise_twin_follow_up if {
	d := decide(draft(object.union(draft_content, {"promises": [{"type": "follow_up", "detail": "We will write again if the date changes"}]})), st_t4)
	not "UNSUPPORTED_PROMISE" in codes(d)
}

test_sensitive_action_unauthorized if {
	d := decide(draft(object.union(draft_content, {"promises": [{"type": "refund", "detail": "Refund of the shipping fee"}]})), st_t4)
	codes(d) == {"SENSITIVE_ACTION_UNAUTHORIZED"}
}

test_sensitive_action_twin_with_explicit_scope if {
	st := with_artifacts(st_t4, {"AUTHORIZATION_RECORD": one("AUTHORIZATION_RECORD", "approved", object.union(auth_content, {"scopes": ["order_status:read", "refund:approve"]}))})
	d := decide(draft(object.union(draft_content, {"promises": [{"type": "refund", "detail": "Refund of the shipping fee"}]})), st)
	not "SENSITIVE_ACTION_UNAUTHORIZED" in codes(d)
}

test_sensitive_action_unauthorized_once_the_grant_expired if {
	expired := object.union(auth_content, {"scopes": ["order_status:read", "refund:approve"], "expires_at": "2026-03-10T09:59:00Z"})
	st := with_artifacts(st_t4, {"AUTHORIZATION_RECORD": one("AUTHORIZATION_RECORD", "approved", expired)})
	d := decide(draft(object.union(draft_content, {"promises": [{"type": "refund", "detail": "Refund of the shipping fee"}]})), st)
	codes(d) == {"SENSITIVE_ACTION_UNAUTHORIZED"}
}
