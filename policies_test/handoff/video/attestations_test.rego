# Attestations: judgement gates rest on the receiving agent's word and skill runs on the
# producer's, each recorded with who gave it; a missing attestation fails the gate.
package handoff.video_test

# --- skill runs at the handoff ---------------------------------------------------------------

test_script_without_humanize_dialogue_run if {
	d := decide(without_attestations(deliver("A6")), st_script_a3)
	codes(d) == {"ATTESTATION_MISSING"}
	gates_of(d, "ATTESTATION_MISSING") == {"sw-dir.humanize_dialogue_invoked"}
	paths_of(d, "ATTESTATION_MISSING") == {"attestations"}
	returned_at_handoff(d, "A6")
	d.status_after == "SCRIPTWRITING"
}

test_humanize_dialogue_run_failed if {
	req := object.union(deliver("A6"), {"attestations": [object.union(humanize, {"passed": false, "reason": "第三场台词仍被判定为AI生成"})]})
	d := decide(req, st_script_a3)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"sw-dir.humanize_dialogue_invoked"}
}

test_humanize_dialogue_run_twin if {
	d := decide(deliver("A6"), st_script_a3)
	not "ATTESTATION_MISSING" in codes(d)
	d.status_after == "SCRIPT_INTAKE"
}

test_prompts_without_prompt_schema_run if {
	d := decide(without_attestations(deliver("PROMPT")), st_prompting)
	codes(d) == {"ATTESTATION_MISSING"}
	gates_of(d, "ATTESTATION_MISSING") == {"vfx-ed.prompt_schema_passed"}
}

test_routed_skill_must_be_attested if {
	routes := array.concat(skill_routing.routes, [{"agent": "director", "skill": "shot-list", "artifact": "A5"}])
	st := with_version(st_storyboard_a4, "SKILL_ROUTING", [version_with("SKILL_ROUTING", 1, "approved", patch(skill_routing, "/routes", routes), {})])
	d := decide(deliver("A5"), st)
	codes(d) == {"ATTESTATION_MISSING"}
	gates_of(d, "ATTESTATION_MISSING") == {"skill_routing"}
	d2 := decide(object.union(deliver("A5"), {"attestations": [skill("director", "shot-list")]}), st)
	count(d2.reasons) == 0
}

# --- judgement gates at the check ------------------------------------------------------------

test_creative_brief_clear_not_attested if {
	d := decide(brief_check("ACCEPT", []), st_brief_intake)
	codes(d) == {"ATTESTATION_MISSING"}
	gates_of(d, "ATTESTATION_MISSING") == {"creative_brief_clear"}
	d.outcome == "revise"
	d.status_after == "CREATIVE_DIRECTION"
	status_events(d) == {"A1 v1 revision_required"}
}

test_creative_brief_clear_twin_attested if {
	d := decide(brief_check("ACCEPT", clear), st_brief_intake)
	not "ATTESTATION_MISSING" in codes(d)
}

test_creative_brief_not_clear if {
	d := decide(brief_check("REVISE", [att("creative_brief_clear", "screenwriter", false, "核心创意与卖点脱节")]), st_brief_intake)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"creative_brief_clear"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"attestations[0]"}
	d.revise == [{"artifact": "A1", "producer": "creative-director", "defects": []}]
}

test_humanize_dialogue_passed_not_attested if {
	d := decide(script_check("ACCEPT", []), st_script_intake)
	gates_of(d, "ATTESTATION_MISSING") == {"humanize_dialogue_passed"}
	d.status_after == "SCRIPTWRITING"
}

test_humanize_skill_missing_from_the_recorded_script if {
	st := with_version(st_script_intake, "A6", [version_with("A6", 1, "under_review", a6, {})])
	d := decide(script_check("ACCEPT", humanized), st)
	gates_of(d, "ATTESTATION_MISSING") == {"sw-dir.humanize_dialogue_invoked"}
	paths_of(d, "ATTESTATION_MISSING") == {"artifacts.A6.v1.meta.attestations"}
}

test_platform_language_not_correct if {
	d := decide(prompt_check("REVISE", [att("platform_language_correct", "editor", false, "中英混用")]), st_prompt_intake)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"platform_language_correct"}
	d.status_after == "PROMPTING"
	next_agents(d) == {"vfx-supervisor"}
}

test_platform_language_not_attested if {
	d := decide(prompt_check("ACCEPT", []), st_prompt_intake)
	gates_of(d, "ATTESTATION_MISSING") == {"platform_language_correct"}
}

test_platform_language_twin if {
	d := decide(prompt_check("ACCEPT", platform_ok), st_prompt_intake)
	count(d.reasons) == 0
}

# --- who may attest ---------------------------------------------------------------------

test_producer_may_not_attest_its_own_judgement_gate if {
	req := object.union(deliver("A1"), {"attestations": [att("creative_brief_clear", "creative-director", true, "")]})
	d := decide(req, st_creative)
	codes(d) == {"ATTESTATION_INVALID"}
	paths_of(d, "ATTESTATION_INVALID") == {"attestations[0]"}
	d.outcome == "block"
}

test_attestation_in_another_name if {
	d := decide(brief_check("ACCEPT", [att("creative_brief_clear", "director", true, "")]), st_brief_intake)
	"ATTESTATION_INVALID" in codes(d)
}

test_failing_attestation_without_reason if {
	d := decide(brief_check("REVISE", [att("creative_brief_clear", "screenwriter", false, "")]), st_brief_intake)
	"ATTESTATION_INVALID" in codes(d)
	d.outcome == "block"
}

test_skill_run_in_a_review if {
	d := decide(script_check("ACCEPT", array.concat(humanized, [skill("director", "humanize-dialogue")])), st_script_intake)
	"ATTESTATION_INVALID" in codes(d)
}

test_judgement_gate_of_another_edge if {
	d := decide(script_check("ACCEPT", array.concat(humanized, [att("creative_brief_clear", "director", true, "")])), st_script_intake)
	codes(d) == {"ATTESTATION_INVALID"}
}

test_skill_run_without_skill if {
	req := object.union(deliver("A6"), {"attestations": [{"gate": "skill_run", "by": "screenwriter", "passed": true}]})
	d := decide(req, st_script_a3)
	"ATTESTATION_INVALID" in codes(d)
}

test_skill_run_for_another_artifact if {
	req := object.union(deliver("A6"), {"attestations": [object.union(humanize, {"artifact": "A2"})]})
	d := decide(req, st_script_a3)
	"ATTESTATION_INVALID" in codes(d)
}

test_attestation_invalid_twin if {
	d := decide(deliver("A6"), st_script_a3)
	not "ATTESTATION_INVALID" in codes(d)
}
