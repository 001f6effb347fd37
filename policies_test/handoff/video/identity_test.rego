# Identity is (type, id), and a person acts through the roles of the pack: a person or
# the host named like an agent is not that agent, an agent speaks only for itself, and a
# person decides only the stage one of their roles approves.
package handoff.video_test

# --- reviews are the agents' -----------------------------------------------------------

test_internal_review_by_a_person_named_like_the_agent if {
	req := object.union(internal_review("ACCEPT", []), {"actor": {"type": "human", "id": "internal-review-lead", "roles": ["production_lead"]}})
	d := decide(req, st_internal)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.outcome == "block"
	count(d.events) == 0
}

test_check_by_the_host_named_like_the_agent if {
	req := object.union(brief_check("ACCEPT", clear), {"actor": {"type": "system", "id": "screenwriter"}})
	d := decide(req, st_brief_intake)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.status_after == "BRIEF_INTAKE"
}

test_review_by_the_routed_agent_twin if {
	d := decide(internal_review("ACCEPT", []), st_internal)
	count(d.reasons) == 0
	d.status_after == "CLIENT_REVIEW"
	d2 := decide(brief_check("ACCEPT", clear), st_brief_intake)
	count(d2.reasons) == 0
}

# --- attestations are the agents' -----------------------------------------------------

test_skill_run_attested_by_the_host_under_the_producers_id if {
	req := object.union(deliver("A6"), {"actor": {"type": "system", "id": "screenwriter"}})
	d := decide(req, st_script_a3)

	# Core refuses the host carrying an agent's id at all; the pack refuses the attestation.
	codes(d) == {"ATTESTATION_INVALID", "UNAUTHORIZED_SUBJECT"}
	paths_of(d, "ATTESTATION_INVALID") == {"attestations[0]"}
}

test_skill_run_attested_by_the_producer_twin if {
	d := decide(deliver("A6"), st_script_a3)
	count(d.reasons) == 0
}

# --- failures are reported by the host, the failed agent or the production lead ----------

test_agent_reports_another_agents_failure if {
	req := object.union(failure("prompting", "vfx-supervisor", "timeout"), {"actor": agent("editor")})
	d := decide(req, st_prompting)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
	d.outcome == "block"
	count(d.events) == 0
}

test_person_without_the_lead_role_reports_a_failure if {
	d := decide(object.union(failure("prompting", "vfx-supervisor", "timeout"), {"actor": client}), st_prompting)
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_failure_reporters_twins if {
	every actor in [system, agent("vfx-supervisor"), lead] {
		d := decide(object.union(failure("prompting", "vfx-supervisor", "timeout"), {"actor": actor}), st_prompting)
		count(d.reasons) == 0
		d.outcome == "retry"
	}
}

# --- people act through the pack's roles ------------------------------------------------

test_start_by_a_person_without_a_role if {
	d := decide(object.union(start, {"actor": {"type": "human", "id": "walk.in", "roles": ["visitor"]}}), state("NEW", {}))
	codes(d) == {"UNAUTHORIZED_SUBJECT"}
}

test_start_by_a_person_with_a_role_twin if {
	d := decide(object.union(start, {"actor": client}), state("NEW", {}))
	count(d.reasons) == 0
}

# The client's role approves CLIENT_CONFIRMATION; naming it does not make the client the
# decider of an escalation.
test_client_decides_an_escalation_without_naming_the_stage if {
	st := with_state(st_awaiting, {"status": "ESCALATED", "counters": {"returns/A5": 3}})
	d := decide(approval(client, "REQUEST_REVISION", [ref("CLIENT_CONFIRMATION", 1)], ["A5"]), st)
	codes(d) == {"APPROVAL_REQUIRED"}
	d.outcome == "block"
	count(d.events) == 0
}

test_production_lead_decides_the_escalation_twin if {
	st := with_state(st_awaiting, {"status": "ESCALATED", "counters": {"returns/A5": 3}})
	d := decide(object.union(approval(lead, "REQUEST_REVISION", [], ["A5"]), {"stage": "ESCALATED"}), st)
	codes(d) == {"REVISION_REQUESTED"}
	d.status_after == "STORYBOARDING"
}

test_production_lead_confirms_for_the_client if {
	d := decide(object.union(approval(lead, "APPROVE", [], []), {"stage": "AWAITING_CLIENT"}), st_awaiting)
	"APPROVAL_REQUIRED" in codes(d)
	d.outcome == "block"
}
