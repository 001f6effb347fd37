# The machine-decidable gates and checklist items, computed from the artifacts: each
# failing case returns the work to its producer at the handoff (outcome revise, the
# version recorded as revision_required, no handoff_accepted), and its twin passes.
package handoff.video_test

import data.handoff.video

# returned_at_handoff holds for a decision that returns the delivered version at once.
returned_at_handoff(d, type) if {
	d.outcome == "revise"
	some r in d.revise
	r.artifact == type
	sprintf("%s v1 revision_required", [type]) in status_events(d)
	not "handoff_accepted" in event_types(d)
	sprintf("returns/%s 1", [type]) in counter_events(d)
}

# --- completeness (ARTIFACT_INCOMPLETE) -----------------------------------------------------

test_required_fields_one_reason_per_missing_field if {
	bad := patch(patch(patch(a1, "/key_message", " "), "/deliverables", []), "/visual_direction", "")
	d := decide(deliver_with("A1", bad), st_creative)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.key_message", "output.content.deliverables", "output.content.visual_direction"}
	count(d.reasons) == 3
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"required_fields_complete"}
	returned_at_handoff(d, "A1")
	d.status_after == "CREATIVE_DIRECTION"
	next_agents(d) == {"creative-director"}
	count(d.next[0].context.must_know.failed) == 3
}

test_required_fields_twin_complete if {
	d := decide(deliver("A1"), st_creative)
	not "ARTIFACT_INCOMPLETE" in codes(d)
	d.outcome == "allow"
}

test_constraints_may_be_empty if {
	d := decide(deliver_with("A1", patch(a1, "/constraints", [])), st_creative)
	count(d.reasons) == 0
}

test_incomplete_nested_field_with_path if {
	d := decide(deliver_with("A2", patch(a2, "/characters/0/motivation", "")), st_scriptwriting)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.characters[0].motivation"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"sw-dir.a2_complete"}
	returned_at_handoff(d, "A2")
}

test_incomplete_act_duration if {
	d := decide(deliver_with("A3", patch(a3, "/act_structure/act2/duration", "")), st_script_a2)
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.act_structure.act2.duration"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"sw-dir.a3_complete"}
}

test_script_optional_fields_may_be_blank if {
	content := patch(patch(a6, "/scenes/2/dialogue", []), "/scenes/0/dialogue/0/parenthetical", "")
	d := decide(deliver_with("A6", content), st_script_a3)
	count(d.reasons) == 0
	d.status_after == "SCRIPT_INTAKE"
}

test_incomplete_script_field if {
	d := decide(deliver_with("A6", patch(a6, "/writer", "")), st_script_a3)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"sw-dir.a6_draft_complete"}
}

test_scene_without_characters_is_complete if {
	d := decide(deliver_with("A4", patch(a4, "/scenes/1/characters_present", [])), st_storyboarding)
	count(d.reasons) == 0
}

# A field that says it is still to be done is missing, whatever its punctuation or case.
test_pending_values_are_missing_fields if {
	bad := patch(patch(patch(a1, "/key_message", "TBD."), "/tone_of_voice", "待定！"), "/visual_direction", "？？")
	d := decide(deliver_with("A1", bad), st_creative)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.key_message", "output.content.tone_of_voice", "output.content.visual_direction"}
	returned_at_handoff(d, "A1")
}

test_pending_nested_field if {
	d := decide(deliver_with("A5", patch(a5, "/shots/2/camera/angle", "待补充。")), st_storyboard_a4)
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.shots[2].camera.angle"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"dir-vfx.a5_complete"}
}

# The twin: "无" (none) declares that a shot has no notes; it is not a pending value.
test_pending_twin_none_is_a_value if {
	d := decide(deliver_with("A5", patch(a5, "/shots/2/notes", "无")), st_storyboard_a4)
	count(d.reasons) == 0
}

# The raw requirements keep the client's own words: a deadline the client left open is
# written down as said; the request itself must be there.
test_pending_client_words_may_stay_open if {
	d := decide(deliver_with("REQUIREMENTS", patch(requirements, "/deadline", "待定")), st_intake)
	count(d.reasons) == 0
	d2 := decide(deliver_with("REQUIREMENTS", patch(requirements, "/request", "TBD")), st_intake)
	paths_of(d2, "ARTIFACT_INCOMPLETE") == {"output.content.request"}
}

test_incomplete_scene_location if {
	d := decide(deliver_with("A4", patch(a4, "/scenes/0/location", "")), st_storyboarding)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"dir-vfx.a4_complete"}
	returned_at_handoff(d, "A4")
}

test_shot_without_dialogue_is_complete if {
	d := decide(deliver_with("A5", drop(a5, "/shots/3/dialogue")), st_storyboard_a4)
	count(d.reasons) == 0
}

test_incomplete_storyboard if {
	d := decide(deliver_with("A5", patch(a5, "/color_direction", "")), st_storyboard_a4)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"dir-vfx.a5_complete"}
}

test_incomplete_prompt_text if {
	d := decide(deliver_with("PROMPT", patch(prompt, "/scene_prompts/2/prompt_text", "")), st_prompting)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"vfx-ed.prompts_generated"}
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.scene_prompts[2].prompt_text"}
}

test_incomplete_requirements if {
	d := decide(deliver_with("REQUIREMENTS", patch(requirements, "/request", "")), st_intake)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	d.status_after == "INTAKE"
	returned_at_handoff(d, "REQUIREMENTS")
}

# --- A1 ------------------------------------------------------------------------------------

test_target_audience_placeholder if {
	d := decide(deliver_with("A1", patch(a1, "/target_audience", "所有人")), st_creative)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"target_audience_defined"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.target_audience"}
	returned_at_handoff(d, "A1")
}

test_target_audience_blank_fails_both if {
	d := decide(deliver_with("A1", patch(a1, "/target_audience", "")), st_creative)
	codes(d) == {"ARTIFACT_INCOMPLETE", "QUALITY_GATE_FAILED"}
}

test_target_audience_twin_named if {
	d := decide(deliver_with("A1", patch(a1, "/target_audience", "25-35岁注重健康的都市白领")), st_creative)
	count(d.reasons) == 0
}

test_references_without_substance if {
	d := decide(deliver_with("A1", patch(a1, "/references", ["无", "见附件", "TBD"])), st_creative)
	codes(d) == {"QUALITY_GATE_FAILED", "ARTIFACT_INCOMPLETE"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"cd-sw.references_substantive"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.references[0]", "output.content.references[1]", "output.content.references[2]"}

	# TBD also says the field is still to be done.
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.references[2]"}
}

test_references_empty if {
	d := decide(deliver_with("A1", patch(a1, "/references", [])), st_creative)
	codes(d) == {"ARTIFACT_INCOMPLETE", "QUALITY_GATE_FAILED"}
}

test_references_twin_link_or_case if {
	d := decide(deliver_with("A1", patch(a1, "/references", ["http://www.vmovier.com/61234", "农夫山泉东方树叶春季短片"])), st_creative)
	count(d.reasons) == 0
}

# Placeholders with punctuation or whitespace around them, in any case and in full-width
# forms, bare schemes, links to no host or to a reserved example host, labels before a
# placeholder: each one alone fails the item at its own path.
placeholder_references := {
	"schemes": ["http://", "https://", "http:/", "https:", "ftp://files.studio.cn/ref.mp4", "file:///C:/ref.mp4"],
	"english": [
		"N/A.", "n / a", "NA", "TBD.", "tbd!", "ＴＢＤ", "TODO:", "none", "NONE.", "nil", "-", "?", "...",
		"see above", "See above!", "to be added", "To be added...", "References: N/A",
	],
	"chinese": [
		"？？", "……", "暂无参考", "暂无参考。", "暂无", "无", "无。", "待定", "待定！", "待补充", "待补充。", "略",
		"略。", "见附件", "见附件，", "同上", "同上…", "xxxx", "参考：暂无",
	],
	"hosts": [
		"example.com", "www.example.com", "https://example.com/cases/spring-tea-film",
		"http://www.example.org/x.mp4", "https://cases.example.net/a", "https://studio.test/a",
		"https://localhost/a", "http://127.0.0.1/ref.mp4", "https://tbd.com", "http://xxx.com/abc",
		"https://www.com", "见 https://example.com",
	],
}

references_fail_one_by_one(group) if {
	every r in placeholder_references[group] {
		d := decide(deliver_with("A1", patch(a1, "/references/1", r)), st_creative)
		codes(d) - {"ARTIFACT_INCOMPLETE"} == {"QUALITY_GATE_FAILED"}
		gates_of(d, "QUALITY_GATE_FAILED") == {"cd-sw.references_substantive"}
		paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.references[1]"}
		returned_at_handoff(d, "A1")
	}
}

test_references_bare_and_foreign_schemes_fail if references_fail_one_by_one("schemes")

test_references_english_placeholders_fail if references_fail_one_by_one("english")

test_references_chinese_placeholders_fail if references_fail_one_by_one("chinese")

test_references_reserved_or_empty_hosts_fail if references_fail_one_by_one("hosts")

# The allowed twins: real links (any path, a labelled link, an IDN host, a bare domain
# with a path) and cases described in words, Chinese or English.
substantive_references := [
	"https://www.xinpianchang.com/a10986543", "http://www.vmovier.com/61234",
	"https://v.douyin.com/iRNBHpJx/", "参考：https://www.bilibili.com/video/BV1Ab411c7XY",
	"bilibili.com/video/BV1Ab411c7XY", "https://例子.中国/案例", "https://www.nike.com",
	"元气森林2024春季外星人电解质水短片", "无印良品2023春季广告片", "农夫山泉东方树叶春季短片",
	"案例：三顿半咖啡2022冷萃广告", "Nike Just Do It 2018 campaign",
	"Apple 1984 commercial, https://www.youtube.com/watch?v=VtvjbmoDx-I",
]

test_references_substantive_twins if {
	every r in substantive_references {
		d := decide(deliver_with("A1", patch(a1, "/references/1", r)), st_creative)
		count(d.reasons) == 0
		d.outcome == "allow"
	}
}

test_references_placeholders_come_from_the_config if {
	d := video.decision with input as input_of(deliver_with("A1", patch(a1, "/references/1", "参考片待选")), st_creative)
		with data.handoff.video.config.reference_placeholders as array.concat(config.reference_placeholders, ["参考片待选"])
		with data.handoff.video.config.placeholder_index.reference_placeholders as object.union(config.placeholder_index.reference_placeholders, {"参考片待选": true})
	gates_of(d, "QUALITY_GATE_FAILED") == {"cd-sw.references_substantive"}
	d2 := decide(deliver_with("A1", patch(a1, "/references/1", "参考片待选")), st_creative)
	count(d2.reasons) == 0
}

test_audience_placeholder_with_punctuation if {
	every ta in ["TBD.", "待定。", "ＴＢＤ", " n/a ", "所有人！", "?"] {
		d := decide(deliver_with("A1", patch(a1, "/target_audience", ta)), st_creative)
		gates_of(d, "QUALITY_GATE_FAILED") == {"target_audience_defined"}
	}
}

# --- SKILL_ROUTING ---------------------------------------------------------------------

test_routing_style_line_differs if {
	d := decide(deliver_with("SKILL_ROUTING", patch(skill_routing, "/style_line", "高定线")), st_creative_a1)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"skill_routing_consistent"}
	d.status_after == "CREATIVE_DIRECTION"
	returned_at_handoff(d, "SKILL_ROUTING")
}

test_routing_route_to_wrong_agent if {
	d := decide(deliver_with("SKILL_ROUTING", patch(skill_routing, "/routes/0/agent", "director")), st_creative_a1)
	codes(d) == {"QUALITY_GATE_FAILED"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.routes[0]", "output.content.routes"}
}

test_routing_without_routes if {
	d := decide(deliver_with("SKILL_ROUTING", patch(skill_routing, "/routes", [])), st_creative_a1)
	codes(d) == {"ARTIFACT_INCOMPLETE", "QUALITY_GATE_FAILED"}
	gates_of(d, "ARTIFACT_INCOMPLETE") == {"skill_routing_complete"}
}

test_routing_twin_extra_route if {
	extra := {"agent": "director", "skill": "shot-list", "artifact": "A5"}
	d := decide(deliver_with("SKILL_ROUTING", patch(skill_routing, "/routes", array.concat(skill_routing.routes, [extra]))), st_creative_a1)
	count(d.reasons) == 0
	d.status_after == "BRIEF_INTAKE"
}

# --- A2, A3 --------------------------------------------------------------------------------

test_character_without_visual_notes if {
	d := decide(deliver_with("A2", patch(a2, "/characters/1/visual_notes", "")), st_scriptwriting)
	codes(d) == {"ARTIFACT_INCOMPLETE", "QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"all_characters_have_visual_notes"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.characters[1].visual_notes"}
}

test_no_characters if {
	d := decide(deliver_with("A2", {"characters": []}), st_scriptwriting)
	gates_of(d, "QUALITY_GATE_FAILED") == {"all_characters_have_visual_notes"}
}

test_visual_notes_twin if {
	d := decide(deliver("A2"), st_scriptwriting)
	count(d.reasons) == 0
}

test_emotional_arc_not_defined if {
	d := decide(deliver_with("A3", patch(a3, "/emotional_arc", "")), st_script_a2)
	gates_of(d, "QUALITY_GATE_FAILED") == {"emotional_arc_defined"}
}

test_key_moments_not_listed if {
	d := decide(deliver_with("A3", patch(a3, "/key_moments", [])), st_script_a2)
	gates_of(d, "QUALITY_GATE_FAILED") == {"key_moments_listed"}
}

test_key_moment_blank if {
	d := decide(deliver_with("A3", patch(a3, "/key_moments/1", " ")), st_script_a2)
	gates_of(d, "QUALITY_GATE_FAILED") == {"key_moments_listed"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.key_moments[1]"}
}

test_outline_twin if {
	d := decide(deliver("A3"), st_script_a2)
	count(d.reasons) == 0
}

# --- A6 ------------------------------------------------------------------------------------

test_scene_heading_not_standard if {
	d := decide(deliver_with("A6", patch(a6, "/scenes/1/scene_heading", "茶园")), st_script_a3)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"scene_headings_correct"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.scenes[1].scene_heading"}
}

test_scene_headings_twin_english_and_chinese if {
	content := patch(patch(a6, "/scenes/0/scene_heading", "INT. OFFICE - NIGHT"), "/scenes/1/scene_heading", "第2场 外景 茶园 清晨")
	d := decide(deliver_with("A6", content), st_script_a3)
	count(d.reasons) == 0
}

# --- A4 ------------------------------------------------------------------------------------

test_scene_duration_unreadable if {
	d := decide(deliver_with("A4", patch(a4, "/scenes/1/duration", "大约十几秒")), st_storyboarding)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"all_scenes_have_duration"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.scenes[1].duration"}
}

test_no_scenes if {
	d := decide(deliver_with("A4", {"scenes": []}), st_storyboarding)
	gates_of(d, "QUALITY_GATE_FAILED") == {"all_scenes_have_duration"}
}

test_scene_duration_twin_formats if {
	content := patch(patch(a4, "/scenes/0/duration", "8秒"), "/scenes/1/duration", "00:14")
	d := decide(deliver_with("A4", content), st_storyboarding)
	count(d.reasons) == 0
}

test_rhythm_not_annotated if {
	d := decide(deliver_with("A4", drop(drop(a4, "/scenes/2/emotion_rhythm"), "/scenes/0/plot_rhythm")), st_storyboarding)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"rhythm_annotated"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.scenes[2].emotion_rhythm", "output.content.scenes[0].plot_rhythm"}
}

test_rhythm_twin if {
	d := decide(deliver("A4"), st_storyboarding)
	count(d.reasons) == 0
}

# --- A5 ------------------------------------------------------------------------------------

test_timestamps_overlap if {
	d := decide(deliver_with("A5", patch(a5, "/shots/1/timestamp", "[00:04-00:09]")), st_storyboard_a4)
	gates_of(d, "QUALITY_GATE_FAILED") == {"timestamps_correct"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.shots[2].timestamp", "output.content.shots"}
	returned_at_handoff(d, "A5")
}

test_timestamp_seconds_above_59 if {
	d := decide(deliver_with("A5", patch(a5, "/shots/4/timestamp", "[00:22-00:61]")), st_storyboard_a4)
	some r in d.reasons
	r.path == "output.content.shots[4].timestamp"
	contains(r.message, "seconds above 59")
}

test_timestamp_ends_before_it_starts if {
	d := decide(deliver_with("A5", patch(a5, "/shots/0/timestamp", "[00:04-00:00]")), st_storyboard_a4)
	some r in d.reasons
	r.path == "output.content.shots[0].timestamp"
	contains(r.message, "does not end after it starts")
}

test_timestamps_do_not_start_at_zero if {
	d := decide(deliver_with("A5", patch(a5, "/shots/0/timestamp", "[00:01-00:04]")), st_storyboard_a4)
	some r in d.reasons
	r.path == "output.content.shots[0].timestamp"
	contains(r.message, "not at 00:00")
}

test_timestamps_end_at_the_brief_duration if {
	st := with_version(st_storyboard_a4, "A1", [version_with("A1", 1, "approved", patch(a1, "/duration", 45), {})])
	d := decide(deliver("A5"), st)
	some r in d.reasons
	r.gate == "timestamps_correct"
	contains(r.message, "A1's duration is 45 seconds")
}

test_timestamps_twin_contiguous if {
	d := decide(deliver("A5"), st_storyboard_a4)
	not "QUALITY_GATE_FAILED" in codes(d)
}

test_camera_incomplete if {
	d := decide(deliver_with("A5", patch(a5, "/shots/3/camera/angle", "")), st_storyboard_a4)
	gates_of(d, "QUALITY_GATE_FAILED") == {"camera_instructions_complete"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.shots[3].camera.angle"}
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"output.content.shots[3].camera.angle"}
}

test_emotion_curve_not_mapped if {
	d := decide(deliver_with("A5", patch(a5, "/shots/4/scene_ref", "S4")), st_storyboard_a4)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"dir-vfx.emotion_curve_mapped"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.shots[4].scene_ref", "output.content.shots"}
}

test_storyboard_without_scene_breakdown if {
	d := decide(deliver("A5"), st_storyboarding)
	"dir-vfx.emotion_curve_mapped" in gates_of(d, "QUALITY_GATE_FAILED")
}

# A new A4 that breaks the delivered A5 returns A5 as well: the edge is checked whole.
test_edge_checked_whole_when_it_completes if {
	st := with_version(st_storyboard_intake, "A4", [version("A4", 1, "under_review")])
	st2 := with_state(with_version(st, "A5", [version("A5", 1, "under_review")]), {"status": "STORYBOARDING"})
	d := decide(handoff("A4", 2, patch(a4, "/scenes/2/scene_id", "S9"), inputs.A4), st2)
	d.outcome == "revise"
	{r.artifact | some r in d.revise} == {"A5"}
	"A5 v1 revision_required" in status_events(d)
	"A4 v2 under_review" in recorded(d)
}

# --- PROMPT --------------------------------------------------------------------------------

test_prompt_timestamps_do_not_match if {
	bad := patch(prompt, "/scene_prompts", array.concat(array.slice(prompt.scene_prompts, 0, 3), [object.union(prompt.scene_prompts[3], {"timestamp": "[00:15-00:21]"})]))
	d := decide(deliver_with("PROMPT", bad), st_prompting)
	gates_of(d, "QUALITY_GATE_FAILED") == {"timestamps_match_A5"}
	count(d.reasons) == 3
}

test_prompt_timestamp_malformed if {
	d := decide(deliver_with("PROMPT", patch(prompt, "/scene_prompts/0/timestamp", "0-4s")), st_prompting)
	some r in d.reasons
	r.path == "output.content.scene_prompts[0].timestamp"
	contains(r.message, "is not [mm:ss-mm:ss]")
}

test_prompt_twin_matches if {
	d := decide(deliver("PROMPT"), st_prompting)
	count(d.reasons) == 0
}

test_negative_prompts_not_set if {
	d := decide(deliver_with("PROMPT", patch(drop(prompt, "/scene_prompts/0/negative_prompt"), "/scene_prompts/4/negative_prompt", "")), st_prompting)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"vfx-ed.negative_prompts_set"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.scene_prompts[0].negative_prompt", "output.content.scene_prompts[4].negative_prompt"}
}

test_platform_not_routed if {
	d := decide(deliver_with("PROMPT", patch(prompt, "/platform", "vidu")), st_prompting)
	gates_of(d, "QUALITY_GATE_FAILED") == {"vfx-ed.platform_format_correct"}
}

test_technical_duration_differs if {
	d := decide(deliver_with("PROMPT", patch(prompt, "/technical_specs/duration", "45s")), st_prompting)
	gates_of(d, "QUALITY_GATE_FAILED") == {"vfx-ed.prompt_schema_passed"}
}

test_technical_duration_twin_seconds if {
	d := decide(deliver_with("PROMPT", patch(prompt, "/technical_specs/duration", "30s")), st_prompting)
	count(d.reasons) == 0
}

# --- EDIT_PLAN, CLIENT_CONFIRMATION ----------------------------------------------------------

test_timeline_misses_a_shot if {
	bad := patch(edit_plan, "/timeline", [edit_plan.timeline[0], edit_plan.timeline[1], object.union(edit_plan.timeline[3], {"timestamp": "[00:08-00:22]"}), edit_plan.timeline[4]])
	d := decide(deliver_with("EDIT_PLAN", bad), st_editing)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"timeline_matches_A5"}
	d.status_after == "EDITING"
}

test_timeline_total_duration_differs if {
	d := decide(deliver_with("EDIT_PLAN", patch(edit_plan, "/total_duration", 32)), st_editing)
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.total_duration"}
}

test_timeline_twin if {
	d := decide(deliver("EDIT_PLAN"), st_editing)
	count(d.reasons) == 0
}

test_presented_version_not_current if {
	bad := patch(client_confirmation, "/presented", [object.union(ref("PROMPT", 1), {"hash": hash("other")}), ref("A5", 1)])
	d := decide(deliver_with("CLIENT_CONFIRMATION", bad), st_client_review)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"presented_versions_current"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.presented[0]", "output.content.presented"}
	d.status_after == "CLIENT_REVIEW"
}

test_presented_version_not_approved if {
	st := with_version(st_client_review, "A5", [version("A5", 1, "approved"), version("A5", 2, "under_review")])
	d := decide(deliver("CLIENT_CONFIRMATION"), st)
	some r in d.reasons
	r.path == "output.content.presented[2]"
	contains(r.message, "not the latest version")
}

test_presented_twin if {
	d := decide(deliver("CLIENT_CONFIRMATION"), st_client_review)
	count(d.reasons) == 0
}

# --- the people of scenes and lines are A2's characters --------------------------------

test_scene_with_someone_without_a_character_card if {
	d := decide(deliver_with("A4", patch(a4, "/scenes/1/characters_present", ["林夏", "王经理"])), st_storyboarding)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"dir-vfx.a4_complete"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.scenes[1].characters_present[1]"}
	returned_at_handoff(d, "A4")
}

test_scene_characters_twin_cards_and_extras if {
	d := decide(deliver_with("A4", patch(a4, "/scenes/1/characters_present", ["林夏", " 茶园阿婆 ", "路人"])), st_storyboarding)
	count(d.reasons) == 0
}

test_line_spoken_by_someone_without_a_character_card if {
	d := decide(deliver_with("A6", patch(a6, "/scenes/1/dialogue/0/character", "小王")), st_script_a3)
	codes(d) == {"QUALITY_GATE_FAILED"}
	gates_of(d, "QUALITY_GATE_FAILED") == {"sw-dir.a6_draft_complete"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.scenes[1].dialogue[0].character"}
}

test_line_speakers_twin_voice_over_and_narration if {
	content := patch(patch(a6, "/scenes/1/dialogue/0/character", "茶园阿婆（画外音）"), "/scenes/2/dialogue/0/character", "旁白")
	d := decide(deliver_with("A6", content), st_script_a3)
	count(d.reasons) == 0
}

# --- durations -----------------------------------------------------------------------

test_scene_durations_in_minutes_read_as_seconds if {
	every dur in ["1分30秒", "1分钟", "1 min 30 s", "1m30s", "2min", "1分30", "14秒钟", "0:14"] {
		d := decide(deliver_with("A4", patch(a4, "/scenes/1/duration", dur)), st_storyboarding)
		count(d.reasons) == 0
	}
}

test_scene_duration_that_reads_as_nothing if {
	every dur in ["大约一分钟", "1小时?", "m30", "分钟"] {
		d := decide(deliver_with("A4", patch(a4, "/scenes/1/duration", dur)), st_storyboarding)
		gates_of(d, "QUALITY_GATE_FAILED") == {"all_scenes_have_duration"}
	}
}

test_prompt_duration_in_minutes_twin if {
	d := decide(deliver_with("PROMPT", patch(prompt, "/technical_specs/duration", "0分30秒")), st_prompting)
	count(d.reasons) == 0
}

# --- the producer's quality_gate is a claim ------------------------------------------------

# A producer's true never passes a gate: the policy computes it from the content.
test_declared_gate_true_does_not_pass_a_failing_gate if {
	content := object.union(patch(a5, "/shots/1/timestamp", "[00:04-00:09]"), {"quality_gate": {"timestamps_correct": true, "camera_instructions_complete": true}})
	d := decide(deliver_with("A5", content), st_storyboard_a4)
	gates_of(d, "QUALITY_GATE_FAILED") == {"timestamps_correct"}
	returned_at_handoff(d, "A5")
}

# Nor does it stand in for the receiving agent's attestation of a judgement gate.
test_declared_judgement_gate_is_no_attestation if {
	st := with_version(st_brief_intake, "A1", [version_with("A1", 1, "under_review", object.union(a1, {"quality_gate": {"creative_brief_clear": true}}), {})])
	d := decide(brief_check("ACCEPT", []), st)
	codes(d) == {"ATTESTATION_MISSING"}
}

test_declared_gate_false_returns_the_work if {
	content := object.union(a2, {"quality_gate": {"all_characters_have_visual_notes": false}})
	d := decide(deliver_with("A2", content), st_scriptwriting)
	codes(d) == {"QUALITY_GATE_FAILED"}
	paths_of(d, "QUALITY_GATE_FAILED") == {"output.content.quality_gate.all_characters_have_visual_notes"}
	returned_at_handoff(d, "A2")
}

test_declared_gates_true_twin if {
	content := object.union(a5, {"quality_gate": {"timestamps_correct": true, "camera_instructions_complete": true}})
	d := decide(deliver_with("A5", content), st_storyboard_a4)
	count(d.reasons) == 0
	d.status_after == "STORYBOARD_INTAKE"
}
