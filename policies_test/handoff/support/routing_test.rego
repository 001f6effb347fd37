# Routing (seed phase 5): the priority authorization → capability → permission →
# availability → cost and deadline, only the first failing check reported; delegation
# depth and concurrency are configured limits.
package handoff.support_test

import data.handoff.support

unverified_state := with_artifacts(st_ready, {"AUTHORIZATION_RECORD": one("AUTHORIZATION_RECORD", "approved", unverified_content)})

test_authorization_required_unverified_customer if {
	d := decide(dispatch_t3, unverified_state)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
	d.outcome == "block"
	every r in d.reasons {
		r.gate == "SEC-AUTHZ"
	}
}

test_authorization_required_context_not_verified if {
	d := decide(object.union(dispatch_t3, {"authorization_context": not_required}), st_ready)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
}

test_authorization_required_expired_by_ttl if {
	old := json.patch(st_ready, [{"op": "replace", "path": "/artifacts/AUTHORIZATION_RECORD/versions/1/recorded_at", "value": "2026-03-10T09:20:00.000Z"}])
	d := decide(dispatch_t3, old)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
	contains(d.reasons[0].message, "expired")
}

test_authorization_required_expired_at if {
	d := decide_at(dispatch_t3, with_artifacts(st_ready, {"AUTHORIZATION_RECORD": one("AUTHORIZATION_RECORD", "approved", object.union(auth_content, {"expires_at": "2026-03-10T09:59:00Z"}))}), now)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
}

test_authorization_required_claimed_for_another_task if {
	bogus := object.union(verified_ctx, {"reference": object.union(ref("AUTHORIZATION_RECORD", 1), {"hash": hash("forged")})})
	req := object.union(dispatch_t4, {"authorization_context": bogus})
	st := with_tasks(with_artifacts(st_t4, {"TASK_ASSIGNMENT": assignments(["T3"])}), {"T4": task("ready", "support_agent", ["T3"])})
	d := decide(req, st)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
	d.reasons[0].path == "authorization_context.reference"
}

test_authorization_comes_first if {
	# Also the wrong agent and over the concurrency limit: only authorization is reported.
	st := with_tasks(unverified_state, {"X1": task("running", "support_agent", []), "X2": task("running", "support_agent", [])})
	d := decide(object.union(dispatch_t3, {"target_agent": "support_agent", "recipient": "support_agent"}), st)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
}

test_authorization_required_twin if {
	d := decide(dispatch_t3, st_ready)
	count(d.reasons) == 0
	d.outcome == "allow"
}

test_capability_missing if {
	d := decide(object.union(dispatch_t3, {"target_agent": "support_agent", "recipient": "support_agent"}), st_ready)
	codes(d) == {"CAPABILITY_MISSING"}
}

test_capability_comes_before_permission if {
	st := with_tasks(st_ready, {"T3": task("done", "order_research", ["T2"])})
	d := decide(object.union(dispatch_t3, {"target_agent": "reviewer", "recipient": "reviewer"}), st)
	codes(d) == {"CAPABILITY_MISSING"}
}

test_capability_twin if {
	d := decide(dispatch_t3, st_ready)
	not "CAPABILITY_MISSING" in codes(d)
}

test_dependency_not_met if {
	req := dispatch("T4", [ref("CASE", 1), ref("CLASSIFICATION", 1)], ["CASE.message", "CLASSIFICATION"])
	d := decide(req, st_ready)
	codes(d) == {"DEPENDENCY_NOT_MET"}
	contains(d.reasons[0].message, "T3 ready")
}

test_dependency_not_met_task_already_running if {
	d := decide(dispatch_t3, with_tasks(st_ready, {"T3": task("running", "order_research", ["T2"])}))
	codes(d) == {"DEPENDENCY_NOT_MET"}
}

test_dependency_not_met_other_agent_planned if {
	st := with_tasks(st_ready, {"T3": task("ready", "order_research_eu", ["T2"])})
	d := decide(dispatch_t3, st)
	codes(d) == {"DEPENDENCY_NOT_MET"}
}

test_dependency_twin if {
	d := decide(dispatch_t3, st_ready)
	not "DEPENDENCY_NOT_MET" in codes(d)
}

test_input_not_permitted if {
	req := object.union(dispatch_t3, {"input_artifacts": [ref("AUTHORIZATION_RECORD", 1), ref("CASE", 1)]})
	d := decide(req, st_ready)
	codes(d) == {"INPUT_NOT_PERMITTED"}
	d.reasons[0].path == "input_artifacts[1]"
}

test_input_not_permitted_twin if {
	d := decide(dispatch_t3, st_ready)
	not "INPUT_NOT_PERMITTED" in codes(d)
}

test_concurrency_limit if {
	st := with_tasks(st_ready, {"X1": task("running", "support_agent", []), "X2": task("running", "reviewer", [])})
	d := decide(dispatch_t3, st)
	codes(d) == {"CONCURRENCY_LIMIT"}
}

test_concurrency_limit_twin if {
	st := with_tasks(st_ready, {"X1": task("running", "support_agent", [])})
	d := decide(dispatch_t3, st)
	not "CONCURRENCY_LIMIT" in codes(d)
}

test_concurrency_without_limit_refuses if {
	d := decide_without(dispatch_t3, st_ready, "max_concurrent_tasks")
	"CONCURRENCY_LIMIT" in codes(d)
}

test_delegation_limit_exceeded if {
	d := decide(dispatch_t3, with_state(st_ready, {"counters": {"delegations/T3": 3}}))
	codes(d) == {"DELEGATION_LIMIT_EXCEEDED"}
}

test_delegation_limit_twin if {
	d := decide(dispatch_t3, with_state(st_ready, {"counters": {"delegations/T3": 2}}))
	not "DELEGATION_LIMIT_EXCEEDED" in codes(d)
	d.next[0].context.must_know.assignment.delegation == 3
}

test_budget_exhausted_at_dispatch if {
	d := decide(dispatch_t3, with_state(st_ready, {"counters": {"usage/model_calls": 24}}))
	codes(d) == {"BUDGET_EXHAUSTED"}
	d.outcome == "block"
}

test_budget_twin_at_dispatch if {
	d := decide(dispatch_t3, with_state(st_ready, {"counters": {"usage/model_calls": 23, "usage/cost_micros": 499999}}))
	not "BUDGET_EXHAUSTED" in codes(d)
}

test_no_time_left_for_a_call if {
	d := decide(dispatch_t3, with_state(st_ready, {"created_at": "2026-03-10T09:30:05.000Z"}))
	codes(d) == {"WORKFLOW_DEADLINE_EXCEEDED"}
	d.outcome == "block"
}

test_time_left_twin if {
	d := decide(dispatch_t3, with_state(st_ready, {"created_at": "2026-03-10T09:30:30.000Z"}))
	not "WORKFLOW_DEADLINE_EXCEEDED" in codes(d)
}

test_availability_comes_before_cost if {
	st := with_state(st_ready, {"counters": {"delegations/T3": 3, "usage/model_calls": 24}})
	d := decide(dispatch_t3, st)
	codes(d) == {"DELEGATION_LIMIT_EXCEEDED"}
}

# --- least privilege: only granted scopes are passed on ----------------------------------

claiming(req, scopes) := object.union(req, {"authorization_context": object.union(req.authorization_context, {"scopes": scopes})})

over_claim := claiming(dispatch_t3, ["order_status:read", "address:change", "refund:approve"])

test_scope_not_granted_beyond_the_grant if {
	d := decide(over_claim, st_ready)
	codes(d) == {"SCOPE_NOT_GRANTED"}
	count(d.reasons) == 2
	d.outcome == "block"
	every r in d.reasons {
		r.path == "authorization_context.scopes"
		r.gate == "SEC-SCOPE"
	}
	count(d.events) == 0
}

test_scope_not_granted_twin_only_granted_scopes if {
	d := decide(dispatch_t3, st_ready)
	count(d.reasons) == 0
	d.next[0].context.must_know.assignment.authorization_context.scopes == ["order_status:read"]
	some e in d.events
	e.type == "artifact_recorded"
	e.content.authorization_context.scopes == ["order_status:read"]
}

test_scope_never_passed_on_even_past_the_rule if {
	# The assignment the dispatch would record keeps only the granted scope.
	p := support._dispatch_proposal with input as input_of(over_claim, st_ready)
	some e in p.events
	e.type == "artifact_recorded"
	e.content.authorization_context.scopes == ["order_status:read"]
	p.next[0].context.must_know.assignment.authorization_context.scopes == ["order_status:read"]
}

wide_grant := with_artifacts(st_ready, {"AUTHORIZATION_RECORD": one("AUTHORIZATION_RECORD", "approved", object.union(auth_content, {"scopes": ["order_status:read", "refund:approve"]}))})

test_scope_not_granted_beyond_the_task if {
	d := decide(claiming(dispatch_t3, ["order_status:read", "refund:approve"]), wide_grant)
	codes(d) == {"SCOPE_NOT_GRANTED"}
	contains(d.reasons[0].message, "does not need")
}

test_scope_twin_the_task_scope_of_a_wider_grant if {
	d := decide(dispatch_t3, wide_grant)
	count(d.reasons) == 0
	d.next[0].context.must_know.AUTHORIZATION_RECORD.must_know.scopes == ["order_status:read"]
}

t4_ready := with_tasks(with_artifacts(st_t4, {"TASK_ASSIGNMENT": assignments(["T3"])}), {"T4": task("ready", "support_agent", ["T3"])})

test_scope_not_granted_for_a_task_without_records if {
	d := decide(claiming(dispatch_t4, ["refund:approve"]), t4_ready)
	codes(d) == {"SCOPE_NOT_GRANTED"}
}

test_scope_twin_a_task_without_records_claims_none if {
	d := decide(dispatch_t4, t4_ready)
	count(d.reasons) == 0
	d.next[0].context.must_know.assignment.authorization_context == not_required
}

reverified := with_state(
	with_artifacts(st_ready, {"AUTHORIZATION_RECORD": history("AUTHORIZATION_RECORD", [
		version("AUTHORIZATION_RECORD", 1, "approved", auth_content),
		version("AUTHORIZATION_RECORD", 2, "approved", auth_content),
	])}),
	{"counters": {"delegations/T3": 1, "retry/T3": 1}, "effects": {"recovery/T3": "acknowledged"}},
)

after_reverification(scopes) := claiming(
	object.union(dispatch_t3, {
		"input_artifacts": [ref("AUTHORIZATION_RECORD", 2)],
		"authorization_context": object.union(verified_ctx, {"reference": ref("AUTHORIZATION_RECORD", 2)}),
	}),
	scopes,
)

test_scope_not_granted_on_the_retry_after_an_authorization_failure if {
	d := decide(after_reverification(["order_status:read", "address:change"]), reverified)
	codes(d) == {"SCOPE_NOT_GRANTED"}
}

test_scope_twin_on_the_retry_after_an_authorization_failure if {
	d := decide(after_reverification(["order_status:read"]), reverified)
	count(d.reasons) == 0
	d.status_after == "RUNNING"
}

test_authorization_required_comes_before_scope if {
	d := decide(claiming(dispatch_t3, ["order_status:read", "refund:approve"]), unverified_state)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
}

# --- the Supervisor's own tasks (T1, T2, T6) claim no authority either ------------------------

test_own_task_claims_a_forged_authorization if {
	forged := {"status": "verified", "reference": object.union(ref("AUTHORIZATION_RECORD", 1), {"hash": hash("forged")})}
	d := decide(object.union(send(response_content), {"authorization_context": forged}), st_accepted)
	codes(d) == {"AUTHORIZATION_REQUIRED"}
	d.reasons[0].path == "authorization_context.reference"
}

test_own_task_claims_a_scope if {
	d := decide(object.union(classify(classification_content), {"authorization_context": {"status": "not_required", "scopes": ["refund:approve"]}}), st_created)
	codes(d) == {"SCOPE_NOT_GRANTED"}
}

test_own_task_twin_names_the_recorded_authorization if {
	d := decide(object.union(send(response_content), {"authorization_context": {"status": "verified", "reference": ref("AUTHORIZATION_RECORD", 1)}}), st_accepted)
	count(d.reasons) == 0
	d.outcome == "allow"
}

test_own_task_twin_claims_nothing if {
	d := decide(classify(classification_content), st_created)
	count(d.reasons) == 0
}
