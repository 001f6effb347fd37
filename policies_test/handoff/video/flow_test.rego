# The video chain step by step, each request against the snapshot the previous steps
# leave: NEW → INTAKE → CREATIVE_DIRECTION → BRIEF_INTAKE → SCRIPTWRITING →
# SCRIPT_INTAKE → STORYBOARDING → STORYBOARD_INTAKE → PROMPTING → PROMPT_INTAKE → EDITING
# → INTERNAL_REVIEW → CLIENT_REVIEW → AWAITING_CLIENT → COMPLETED, with what each agent
# receives.
package handoff.video_test

test_start_routes_client_intake if {
	d := decide(start, state("NEW", {}))
	d.outcome == "allow"
	d.status_after == "INTAKE"
	next_agents(d) == {"client-intake"}
	d.next[0].context.must_know.client == "山岚茶饮"
	count(d.reasons) == 0
}

test_requirements_stand_once_complete if {
	d := decide(deliver("REQUIREMENTS"), st_intake)
	d.outcome == "allow"
	d.status_after == "CREATIVE_DIRECTION"
	recorded(d) == {"REQUIREMENTS v1 approved"}
	next_agents(d) == {"creative-director"}
	d.next[0].context.must_know.REQUIREMENTS.request == requirements.request
	"handoff_accepted" in event_types(d)
}

test_first_artifact_of_an_edge_keeps_the_producer if {
	d := decide(deliver("A1"), st_creative)
	d.outcome == "allow"
	d.status_after == "CREATIVE_DIRECTION"
	next_agents(d) == {"creative-director"}
	d.next[0].context.must_know.remaining == ["SKILL_ROUTING"]
	recorded(d) == {"A1 v1 under_review"}
}

test_gate_results_kept_with_the_version if {
	d := decide(deliver("A1"), st_creative)
	some e in d.events
	e.type == "artifact_recorded"
	{g.id | some g in e.meta.gates; g.passed == true} == {"required_fields_complete", "target_audience_defined", "cd-sw.a1_fields_complete", "cd-sw.references_substantive", "cd-sw.target_audience_defined"}
	e.meta.failed == []
}

test_last_artifact_of_an_edge_routes_the_check if {
	d := decide(deliver("SKILL_ROUTING"), st_creative_a1)
	d.outcome == "allow"
	d.status_after == "BRIEF_INTAKE"
	next_agents(d) == {"screenwriter"}
	d.next[0].task == "brief_check"
	must := d.next[0].context.must_know
	must.A1.creative_brief == a1.creative_brief
	must.SKILL_ROUTING.routes == skill_routing.routes
	d.next[0].context.may_know.SKILL_ROUTING.platform == "seedance"
}

test_brief_check_passes if {
	d := decide(brief_check("ACCEPT", clear), st_brief_intake)
	d.outcome == "allow"
	d.status_after == "SCRIPTWRITING"
	next_agents(d) == {"screenwriter"}
	status_events(d) == {"A1 v1 approved", "SKILL_ROUTING v1 approved"}
	recorded(d) == {"BRIEF_CHECK v1 approved"}
	c := recorded_content(d, "BRIEF_CHECK")
	c.result == "pass"
	c.edge == "creative-director>screenwriter"
	c.checked_by == "screenwriter"
	{i.id | some i in c.items; i.passed} == {"cd-sw.a1_fields_complete", "cd-sw.creative_brief_clear", "cd-sw.target_audience_defined", "cd-sw.references_substantive"}
	att("creative_brief_clear", "screenwriter", true, "") in c.attestations
}

test_script_handoffs_build_on_each_other if {
	d2 := decide(deliver("A2"), st_scriptwriting)
	d2.status_after == "SCRIPTWRITING"
	d3 := decide(deliver("A3"), st_script_a2)
	d3.status_after == "SCRIPTWRITING"
	d6 := decide(deliver("A6"), st_script_a3)
	d6.status_after == "SCRIPT_INTAKE"
	next_agents(d6) == {"director"}
	object.keys(d6.next[0].context.must_know) == {"A1", "A2", "A3", "A6"}
	d6.next[0].context.must_know.A6.scenes == a6.scenes
	not d6.next[0].context.must_know.A1.references
	d6.next[0].context.may_know.A1.references == a1.references
}

test_skill_run_kept_with_the_script if {
	d := decide(deliver("A6"), st_script_a3)
	some e in d.events
	e.type == "artifact_recorded"
	e.meta.attestations == [humanize]
}

test_script_check_passes if {
	d := decide(script_check("ACCEPT", humanized), st_script_intake)
	d.outcome == "allow"
	d.status_after == "STORYBOARDING"
	status_events(d) == {"A2 v1 approved", "A3 v1 approved", "A6 v1 approved"}
	recorded(d) == {"SCRIPT_CHECK v1 approved"}
	c := recorded_content(d, "SCRIPT_CHECK")
	humanize in c.attestations
	att("humanize_dialogue_passed", "director", true, "") in c.attestations
}

# Seed example 正常Handoff: the director completes A5, its gates pass, and the VFX
# supervisor is asked to write prompts from A5 and A4 for the target platform seedance.
test_seed_example_a5_to_vfx_supervisor if {
	d := decide(deliver("A5"), st_storyboard_a4)
	d.outcome == "allow"
	count(d.reasons) == 0
	d.status_after == "STORYBOARD_INTAKE"
	next_agents(d) == {"vfx-supervisor"}
	some e in d.events
	e.type == "artifact_recorded"
	{"id": "timestamps_correct", "passed": true} in e.meta.gates
	{"id": "camera_instructions_complete", "passed": true} in e.meta.gates
	must := d.next[0].context.must_know
	must.A5.shots == a5.shots
	must.A4.scenes == a4.scenes
	must.SKILL_ROUTING.platform == "seedance"
}

test_storyboard_check_passes if {
	d := decide(storyboard_check("ACCEPT"), st_storyboard_intake)
	d.outcome == "allow"
	d.status_after == "PROMPTING"
	next_agents(d) == {"vfx-supervisor"}
	d.next[0].task == "prompting"
	status_events(d) == {"A4 v1 approved", "A5 v1 approved"}
}

test_prompt_handoff_routes_the_editor if {
	d := decide(deliver("PROMPT"), st_prompting)
	d.outcome == "allow"
	d.status_after == "PROMPT_INTAKE"
	next_agents(d) == {"editor"}
	d.next[0].context.must_know.PROMPT.platform == "seedance"
	d.next[0].context.must_know.A5.shots == a5.shots
}

test_prompt_check_passes if {
	d := decide(prompt_check("ACCEPT", platform_ok), st_prompt_intake)
	d.outcome == "allow"
	d.status_after == "EDITING"
	status_events(d) == {"PROMPT v1 approved"}
	recorded(d) == {"PROMPT_CHECK v1 approved"}
}

test_edit_plan_goes_to_internal_review if {
	d := decide(deliver("EDIT_PLAN"), st_editing)
	d.outcome == "allow"
	d.status_after == "INTERNAL_REVIEW"
	next_agents(d) == {"internal-review-lead"}
	d.next[0].context.must_know.EDIT_PLAN.timeline == edit_plan.timeline
	ref("A5", 1) in d.next[0].context.may_know.versions
}

test_internal_review_accepts if {
	d := decide(internal_review("ACCEPT", []), st_internal)
	d.outcome == "allow"
	d.status_after == "CLIENT_REVIEW"
	next_agents(d) == {"client-review-lead"}
	status_events(d) == {"EDIT_PLAN v1 approved"}
	recorded(d) == {"REVIEW_OPINION v1 approved"}
	d.next[0].context.must_know.REVIEW_OPINION.result == "pass"
}

test_client_confirmation_awaits_the_client if {
	d := decide(deliver("CLIENT_CONFIRMATION"), st_client_review)
	d.outcome == "await_human"
	d.requires_human_review == true
	d.status_after == "AWAITING_CLIENT"
	next_agents(d) == {"client"}
	d.next[0].context.must_know.CLIENT_CONFIRMATION.presented == client_confirmation.presented
}

test_client_confirms_and_everything_is_final if {
	d := decide(approval(client, "APPROVE", [ref("CLIENT_CONFIRMATION", 1)], []), st_awaiting)
	d.outcome == "allow"
	d.status_after == "COMPLETED"
	"CLIENT_CONFIRMATION v1 approved" in status_events(d)
	"CLIENT_CONFIRMATION v1 final" in status_events(d)
	"A1 v1 final" in status_events(d)
	"PROMPT v1 final" in status_events(d)
	"REVIEW_OPINION v1 final" in status_events(d)
	"approval_recorded" in event_types(d)
}
