# Fixtures for the video pack tests: a 30-second spring tea brand film (山岚茶饮),
# artifact contents A1–A6 and PROMPT as the seed defines them, versions and workflow
# snapshots for every status, and one valid request for every step of the chain. Each
# test takes a fixture, changes one thing and checks the decision. The pack's tables are
# the real exported ones (data.handoff.video.contract).
package handoff.video_test

import data.handoff.video

now := "2026-04-02T10:00:00.000Z"

hash(s) := sprintf("sha256:%s", [crypto.sha256(s)])

ids := {
	"REQUIREMENTS": "requirements", "A1": "a1-creative-brief", "SKILL_ROUTING": "skill-routing",
	"A2": "a2-character-cards", "A3": "a3-structure-outline", "A6": "a6-script",
	"A4": "a4-scene-breakdown", "A5": "a5-storyboard", "PROMPT": "ai-video-prompts",
	"EDIT_PLAN": "edit-plan", "CLIENT_CONFIRMATION": "client-confirmation",
	"BRIEF_CHECK": "brief-check", "SCRIPT_CHECK": "script-check", "STORYBOARD_CHECK": "storyboard-check",
	"PROMPT_CHECK": "prompt-check", "REVIEW_OPINION": "review-opinion",
}

ref(type, n) := {"id": ids[type], "type": type, "version": n, "hash": hash(sprintf("%s@%d", [type, n]))}

# --- contents ----------------------------------------------------------------------------

requirements := {"client": "山岚茶饮", "project_name": "山岚春茶30秒品牌片", "request": "为春季新品“明前龙井冷泡茶”制作一支30秒品牌短片，投放抖音和小红书，突出清新、自然、年轻。", "industry": "茶饮", "duration": 30, "deliverables": ["30秒竖版成片", "AI视频提示词包"], "references": ["https://www.xinpianchang.com/a10986543"], "deadline": "2026-04-30"}

a1 := {"project_name": "山岚春茶30秒品牌片", "client": "山岚茶饮", "industry": "茶饮", "style_line": "通用线", "duration": 30, "key_message": "一口春天，冷泡即饮", "target_audience": "18-30岁一二线城市的年轻上班族，喜欢轻养生和户外", "creative_brief": "一位加班的年轻人打开一瓶明前龙井冷泡茶，办公室瞬间化作春日茶园。", "visual_direction": "清透的嫩绿与晨光，竖屏构图，微距水珠与茶叶舒展", "tone_of_voice": "轻松、治愈、带一点俏皮", "deliverables": ["30秒竖版成片 9:16", "AI视频提示词包"], "constraints": ["不出现任何功效宣传", "品牌绿 #3A7D44 为主色"], "references": ["https://www.xinpianchang.com/a10986543", "元气森林2024春季外星人电解质水短片"]}

skill_routing := {"style_line": "通用线", "platform": "seedance", "routes": [{"agent": "screenwriter", "skill": "humanize-dialogue", "artifact": "A6", "reason": "台词去AI味"}, {"agent": "vfx-supervisor", "skill": "prompt-schema", "artifact": "PROMPT", "reason": "提示词结构与字段校验"}]}

a2 := {"characters": [{"name": "林夏", "role": "主角", "appearance": "26岁，短发，白衬衫，挂着工牌", "personality": "认真、有点倔强、爱笑", "motivation": "想在忙碌里找回片刻轻松", "visual_notes": "白衬衫配嫩绿工牌挂绳，呼应品牌绿；特写时眼神由疲惫转明亮"}, {"name": "茶园阿婆", "role": "配角", "appearance": "六十多岁，戴斗笠，手指粗糙", "personality": "慈祥、爽朗", "motivation": "把春茶最好的味道交给年轻人", "visual_notes": "暖色逆光，斗笠边缘光；只在茶园幻想段出现"}]}

a3 := {"act_structure": {"act1": {"start": "00:00", "end": "00:08", "duration": "8s"}, "act2": {"start": "00:08", "end": "00:22", "duration": "14s"}, "act3": {"start": "00:22", "end": "00:30", "duration": "8s"}}, "emotional_arc": "疲惫 → 惊喜 → 治愈与轻松", "key_moments": ["拧开瓶盖的一声轻响", "办公室化作春日茶园", "林夏对镜头举瓶微笑"], "pacing_notes": "前慢后快，第二幕转场干脆，第三幕收在产品特写"}

a6 := {"title": "一口春天", "writer": "screenwriter", "date": "2026-04-02", "scenes": [{"scene_heading": "1. 内景 写字楼办公室 夜", "scene_description": "深夜的开放办公区，只剩林夏一盏台灯。", "action": "林夏揉着眼睛，从包里摸出一瓶冷泡茶，拧开。", "dialogue": [{"character": "林夏", "line": "再改最后一版……", "parenthetical": "小声嘀咕"}]}, {"scene_heading": "2. 外景 春日茶园 日", "scene_description": "桌面化作层层茶垄，晨雾里透着阳光。", "action": "林夏站在茶垄间，阿婆递来一片新叶。", "dialogue": [{"character": "茶园阿婆", "line": "姑娘，闻闻，这才叫春天。"}]}, {"scene_heading": "3. 内景 写字楼办公室 晨", "scene_description": "天亮了，办公室洒满阳光。", "action": "林夏对镜头举起茶瓶，笑了。", "dialogue": [{"character": "林夏", "line": "一口春天，冷泡即饮。"}]}]}

a4 := {"scenes": [{"scene_id": "S1", "location": "写字楼办公室", "time_of_day": "夜", "description": "加班到深夜的疲惫", "duration": "8s", "plot_rhythm": "loose", "emotion_rhythm": "heavy", "mini_dramatic_action": "拧开瓶盖", "characters_present": ["林夏"]}, {"scene_id": "S2", "location": "春日茶园", "time_of_day": "日", "description": "幻想中的春日茶园", "duration": "14s", "plot_rhythm": "tense", "emotion_rhythm": "light", "mini_dramatic_action": "接过新叶", "characters_present": ["林夏", "茶园阿婆"]}, {"scene_id": "S3", "location": "写字楼办公室", "time_of_day": "晨", "description": "回到现实，被治愈", "duration": "8s", "plot_rhythm": "medium", "emotion_rhythm": "light", "mini_dramatic_action": "举瓶微笑", "characters_present": ["林夏"]}]}

a5 := {"shots": [{"shot_id": "SH1", "scene_ref": "S1", "timestamp": "[00:00-00:04]", "shot_type": "中景", "camera": {"movement": "缓慢推进", "angle": "平视", "distance": "中景"}, "subject": "林夏", "action": "揉眼睛，叹气", "music_notes": "低沉钢琴单音", "notes": "冷色台灯光", "dialogue": "再改最后一版……"}, {"shot_id": "SH2", "scene_ref": "S1", "timestamp": "[00:04-00:08]", "shot_type": "特写", "camera": {"movement": "固定", "angle": "俯拍", "distance": "特写"}, "subject": "冷泡茶瓶", "action": "拧开瓶盖，水珠滑落", "music_notes": "瓶盖轻响后音乐停顿", "notes": "声音设计重点"}, {"shot_id": "SH3", "scene_ref": "S2", "timestamp": "[00:08-00:15]", "shot_type": "全景", "camera": {"movement": "横移", "angle": "平视", "distance": "全景"}, "subject": "林夏与茶园", "action": "办公桌化作茶垄", "music_notes": "弦乐渐起", "notes": "一镜到底转场"}, {"shot_id": "SH4", "scene_ref": "S2", "timestamp": "[00:15-00:22]", "shot_type": "近景", "camera": {"movement": "手持跟拍", "angle": "仰拍", "distance": "近景"}, "subject": "阿婆与林夏", "action": "阿婆递来新叶", "music_notes": "弦乐主旋律", "notes": "逆光", "dialogue": "姑娘，闻闻，这才叫春天。"}, {"shot_id": "SH5", "scene_ref": "S3", "timestamp": "[00:22-00:30]", "shot_type": "中近景", "camera": {"movement": "缓慢拉远", "angle": "平视", "distance": "中近景"}, "subject": "林夏", "action": "对镜头举瓶微笑", "music_notes": "主旋律收尾", "notes": "品牌绿包装与标识清晰可见", "dialogue": "一口春天，冷泡即饮。"}], "color_direction": "夜景冷蓝 → 茶园嫩绿与暖金 → 晨光通透", "overall_pacing": "8/14/8 三段，第二幕转场利落"}

prompt := {"platform": "seedance", "scene_prompts": [{"timestamp": "[00:00-00:04]", "prompt_text": "深夜办公室，年轻女性揉眼睛，冷色台灯光，镜头缓慢推进，竖屏，电影感", "negative_prompt": "变形的手，多余的手指，文字水印，低清晰度，过曝", "seed": 1101}, {"timestamp": "[00:04-00:08]", "prompt_text": "俯拍特写，手拧开绿色茶瓶瓶盖，水珠沿瓶身滑落，微距，浅景深", "negative_prompt": "变形的手，多余的手指，文字水印，低清晰度，过曝", "seed": 1102}, {"timestamp": "[00:08-00:15]", "prompt_text": "办公桌化作层层春日茶垄，晨雾与阳光，横移全景，一镜到底", "negative_prompt": "变形的手，多余的手指，文字水印，低清晰度，过曝", "seed": 1103}, {"timestamp": "[00:15-00:22]", "prompt_text": "茶园里戴斗笠的阿婆递来一片嫩绿新叶，逆光，手持跟拍，仰拍近景", "negative_prompt": "变形的手，多余的手指，文字水印，低清晰度，过曝", "seed": 1104}, {"timestamp": "[00:22-00:30]", "prompt_text": "晨光中的办公室，年轻女性对镜头举起绿色茶瓶微笑，镜头缓慢拉远，品牌标识清晰", "negative_prompt": "变形的手，多余的手指，文字水印，低清晰度，过曝", "seed": 1105}], "style_reference": "清新日系广告片，柔和自然光，品牌绿主色", "technical_specs": {"resolution": "1080x1920", "fps": 24, "duration": "00:30"}}

edit_plan := {"total_duration": 30, "timeline": [{"shot_id": "SH1", "timestamp": "[00:00-00:04]", "transition": "硬切"}, {"shot_id": "SH2", "timestamp": "[00:04-00:08]", "transition": "匹配剪辑"}, {"shot_id": "SH3", "timestamp": "[00:08-00:15]", "transition": "溶解"}, {"shot_id": "SH4", "timestamp": "[00:15-00:22]", "transition": "硬切"}, {"shot_id": "SH5", "timestamp": "[00:22-00:30]", "transition": "淡出", "notes": "最后一秒定格品牌标识"}], "music": "轻快弦乐，30秒完整版，第8秒弦乐进入", "color_grade": "夜景冷蓝，茶园暖绿，结尾通透高光", "subtitles": "中文字幕，底部居中", "export_specs": {"resolution": "1080x1920", "fps": 24, "format": "MP4 H.264"}}

client_confirmation := {
	"project_name": "山岚春茶30秒品牌片",
	"client": "山岚茶饮",
	"presented": [ref("EDIT_PLAN", 1), ref("PROMPT", 1), ref("A5", 1)],
	"summary": "请确认30秒竖版品牌片的剪辑方案、分镜与AI提示词，确认后进入成片生成。",
}

# patch replaces the value at a JSON pointer of a content.
patch(content, pointer, value) := json.patch(content, [{"op": "replace", "path": pointer, "value": value}])

# drop removes the value at a JSON pointer of a content.
drop(content, pointer) := json.patch(content, [{"op": "remove", "path": pointer}])

# --- attestations ------------------------------------------------------------------------

skill(by, name) := {"gate": "skill_run", "by": by, "skill": name, "passed": true}

humanize := skill("screenwriter", "humanize-dialogue")

prompt_schema := skill("vfx-supervisor", "prompt-schema")

att(gate, by, passed, reason) := {"gate": gate, "by": by, "passed": passed, "reason": reason} if reason != ""

else := {"gate": gate, "by": by, "passed": passed}

# --- state -------------------------------------------------------------------------------

producers := {
	"REQUIREMENTS": "client-intake", "A1": "creative-director", "SKILL_ROUTING": "creative-director",
	"A2": "screenwriter", "A3": "screenwriter", "A6": "screenwriter", "A4": "director", "A5": "director",
	"PROMPT": "vfx-supervisor", "EDIT_PLAN": "editor", "CLIENT_CONFIRMATION": "client-review-lead",
	"BRIEF_CHECK": "screenwriter", "SCRIPT_CHECK": "director", "STORYBOARD_CHECK": "vfx-supervisor",
	"PROMPT_CHECK": "editor", "REVIEW_OPINION": "internal-review-lead",
}

contents := {
	"REQUIREMENTS": requirements, "A1": a1, "SKILL_ROUTING": skill_routing, "A2": a2, "A3": a3,
	"A6": a6, "A4": a4, "A5": a5, "PROMPT": prompt, "EDIT_PLAN": edit_plan,
	"CLIENT_CONFIRMATION": client_confirmation,
}

metas := {"A6": {"attestations": [humanize]}, "PROMPT": {"attestations": [prompt_schema]}}

version_with(type, n, status, content, meta) := {
	"ref": ref(type, n), "status": status, "producer": producers[type], "based_on": [],
	"assumptions": [], "limitations": [], "content": content, "meta": meta, "recorded_at": now,
}

version(type, n, status) := version_with(type, n, status, contents[type], object.get(metas, type, {}))

history(versions) := {
	"id": ids[versions[0].ref.type],
	"latest": max({v.ref.version | some v in versions}),
	"approved": max({0} | {v.ref.version | some v in versions; v.status in {"approved", "final"}}),
	"versions": {format_int(v.ref.version, 10): v | some v in versions},
}

# arts builds the artifacts map from [type, n, status] triples.
arts(list) := {t: history([version(t, n, s)]) | some [t, n, s] in list}

state(status, artifacts) := {
	"workflow_id": "wf-video", "tenant_id": "baimengke", "organization_id": "baimengke-studio",
	"pack": "video", "subject_id": "shanlan-spring-tea-30s", "status": status, "terminal": false,
	"state_version": 7, "created_at": now, "updated_at": now,
	"artifacts": artifacts, "counters": {}, "edges": {}, "input_hashes": {}, "recent_edges": [],
	"stage_handoffs": {}, "conflicts": {}, "open_conflicts": 0, "approvals": {}, "defects": {}, "effects": {},
	"tasks": {},
}

with_state(st, p) := object.union(st, p)

# with_version replaces (or adds) the history of a type in a state (object.union would
# merge the old versions into the new ones).
with_version(st, type, versions) := object.union(object.remove(st, ["artifacts"]), {"artifacts": object.union(object.remove(st.artifacts, [type]), {type: history(versions)})})

check_record(type, result, returned) := {
	"edge": "x>y", "checked_by": producers[type], "verdict": "ACCEPT", "result": result,
	"reviewed": [], "items": [], "gates": [], "attestations": [], "defects": [], "failed": [], "returned": returned,
}

record(type, n, result, returned) := version_with(type, n, "approved", check_record(type, result, returned), {})

base_brief := [["REQUIREMENTS", 1, "approved"]]

st_intake := state("INTAKE", {})

st_creative := state("CREATIVE_DIRECTION", arts(base_brief))

st_creative_a1 := state("CREATIVE_DIRECTION", arts(array.concat(base_brief, [["A1", 1, "under_review"]])))

st_brief_intake := state("BRIEF_INTAKE", arts(array.concat(base_brief, [["A1", 1, "under_review"], ["SKILL_ROUTING", 1, "under_review"]])))

brief_done := array.concat(base_brief, [["A1", 1, "approved"], ["SKILL_ROUTING", 1, "approved"]])

st_scriptwriting := with_version(state("SCRIPTWRITING", arts(brief_done)), "BRIEF_CHECK", [record("BRIEF_CHECK", 1, "pass", [])])

st_script_a2 := with_version(st_scriptwriting, "A2", [version("A2", 1, "under_review")])

st_script_a3 := with_version(st_script_a2, "A3", [version("A3", 1, "under_review")])

st_script_intake := with_state(st_script_a3, {
	"status": "SCRIPT_INTAKE",
	"artifacts": object.union(st_script_a3.artifacts, {"A6": history([version("A6", 1, "under_review")])}),
})

script_done := array.concat(brief_done, [["A2", 1, "approved"], ["A3", 1, "approved"], ["A6", 1, "approved"]])

st_storyboarding := with_version(state("STORYBOARDING", arts(script_done)), "SCRIPT_CHECK", [record("SCRIPT_CHECK", 1, "pass", [])])

st_storyboard_a4 := with_version(st_storyboarding, "A4", [version("A4", 1, "under_review")])

st_storyboard_intake := with_state(st_storyboard_a4, {
	"status": "STORYBOARD_INTAKE",
	"artifacts": object.union(st_storyboard_a4.artifacts, {"A5": history([version("A5", 1, "under_review")])}),
})

storyboard_done := array.concat(script_done, [["A4", 1, "approved"], ["A5", 1, "approved"]])

st_prompting := with_version(state("PROMPTING", arts(storyboard_done)), "STORYBOARD_CHECK", [record("STORYBOARD_CHECK", 1, "pass", [])])

st_prompt_intake := with_state(st_prompting, {
	"status": "PROMPT_INTAKE",
	"artifacts": object.union(st_prompting.artifacts, {"PROMPT": history([version("PROMPT", 1, "under_review")])}),
})

prompt_done := array.concat(storyboard_done, [["PROMPT", 1, "approved"]])

st_editing := with_version(state("EDITING", arts(prompt_done)), "PROMPT_CHECK", [record("PROMPT_CHECK", 1, "pass", [])])

st_internal := with_state(st_editing, {
	"status": "INTERNAL_REVIEW",
	"artifacts": object.union(st_editing.artifacts, {"EDIT_PLAN": history([version("EDIT_PLAN", 1, "under_review")])}),
})

opinion := version_with(
	"REVIEW_OPINION", 1, "approved", {
		"verdict": "ACCEPT", "result": "pass", "reviewed": [ref("EDIT_PLAN", 1)],
		"defects": [], "gates": [], "returned": [],
	},
	{},
)

st_client_review := with_state(st_internal, {
	"status": "CLIENT_REVIEW",
	"artifacts": object.union(st_internal.artifacts, {
		"EDIT_PLAN": history([version("EDIT_PLAN", 1, "approved")]),
		"REVIEW_OPINION": history([opinion]),
	}),
})

st_awaiting := with_state(st_client_review, {
	"status": "AWAITING_CLIENT",
	"artifacts": object.union(st_client_review.artifacts, {"CLIENT_CONFIRMATION": history([version("CLIENT_CONFIRMATION", 1, "under_review")])}),
})

# --- requests ----------------------------------------------------------------------------

envelope(kind, actor) := {
	"request_id": sprintf("req-%s", [kind]), "kind": kind, "tenant_id": "baimengke",
	"organization_id": "baimengke-studio", "workflow_id": "wf-video", "trace_id": "trace-1", "actor": actor,
}

system := {"type": "system", "id": "studio-orchestrator"}

client := {"type": "human", "id": "chen.mei", "roles": ["client"]}

lead := {"type": "human", "id": "zhao.lei", "roles": ["production_lead"]}

agent(id) := {"type": "agent", "id": id}

edge := {
	"REQUIREMENTS": ["client-intake", "creative-director", "intake"],
	"A1": ["creative-director", "screenwriter", "creative_direction"],
	"SKILL_ROUTING": ["creative-director", "screenwriter", "creative_direction"],
	"A2": ["screenwriter", "director", "scriptwriting"],
	"A3": ["screenwriter", "director", "scriptwriting"],
	"A6": ["screenwriter", "director", "scriptwriting"],
	"A4": ["director", "vfx-supervisor", "storyboarding"],
	"A5": ["director", "vfx-supervisor", "storyboarding"],
	"PROMPT": ["vfx-supervisor", "editor", "prompting"],
	"EDIT_PLAN": ["editor", "internal-review-lead", "editing"],
	"CLIENT_CONFIRMATION": ["client-review-lead", "client", "client_review"],
}

output(type, n, content) := {"id": ids[type], "type": type, "version": n, "content": content} if n == 1

else := {
	"id": ids[type], "type": type, "version": n, "content": content, "supersedes": n - 1,
	"justification": "按退回意见修正",
}

# handoff delivers version n of a type with the given content and inputs; A6 and PROMPT
# carry their producer's skill run.
handoff(type, n, content, inputs) := object.union(envelope("handoff", agent(edge[type][0])), {
	"source_agent": edge[type][0], "target_agent": edge[type][1], "task_type": edge[type][2],
	"input_artifacts": inputs, "output": output(type, n, content), "output_summary": "Delivered work",
	"assumptions": [], "limitations": [], "confidence_score": 0.85,
	"attestations": object.get(metas, [type, "attestations"], []),
})

# without_attestations drops a handoff's attestations.
without_attestations(req) := object.remove(req, ["attestations"])

inputs := {
	"REQUIREMENTS": [],
	"A1": [ref("REQUIREMENTS", 1)],
	"SKILL_ROUTING": [ref("REQUIREMENTS", 1), ref("A1", 1)],
	"A2": [ref("A1", 1), ref("SKILL_ROUTING", 1)],
	"A3": [ref("A1", 1), ref("A2", 1)],
	"A6": [ref("A1", 1), ref("A2", 1), ref("A3", 1)],
	"A4": [ref("A1", 1), ref("A6", 1)],
	"A5": [ref("A1", 1), ref("A4", 1), ref("A6", 1)],
	"PROMPT": [ref("A4", 1), ref("A5", 1), ref("SKILL_ROUTING", 1)],
	"EDIT_PLAN": [ref("A5", 1), ref("PROMPT", 1)],
	"CLIENT_CONFIRMATION": [ref("REVIEW_OPINION", 1), ref("EDIT_PLAN", 1)],
}

# deliver is the valid first handoff of a type.
deliver(type) := handoff(type, 1, contents[type], inputs[type])

# deliver_with is the first handoff of a type with other content.
deliver_with(type, content) := handoff(type, 1, content, inputs[type])

review(actor_id, verdict, refs, attestations) := object.union(envelope("review", agent(actor_id)), {
	"verdict": verdict, "artifacts": refs, "defects": [], "gates": [], "attestations": attestations,
	"summary": "check",
})

with_defects(req, defects) := object.union(req, {"defects": defects})

with_gates(req, gates) := object.union(req, {"gates": gates})

defect(id, artifact, description) := {"id": id, "severity": "S2", "artifact": artifact, "description": description}

brief_check(verdict, attestations) := review("screenwriter", verdict, [ref("A1", 1), ref("SKILL_ROUTING", 1)], attestations)

script_check(verdict, attestations) := review("director", verdict, [ref("A2", 1), ref("A3", 1), ref("A6", 1)], attestations)

storyboard_check(verdict) := review("vfx-supervisor", verdict, [ref("A4", 1), ref("A5", 1)], [])

prompt_check(verdict, attestations) := review("editor", verdict, [ref("PROMPT", 1)], attestations)

internal_review(verdict, defects) := with_defects(review("internal-review-lead", verdict, [ref("EDIT_PLAN", 1), ref("A5", 1)], []), defects)

clear := [att("creative_brief_clear", "screenwriter", true, "")]

humanized := [att("humanize_dialogue_passed", "director", true, "")]

platform_ok := [att("platform_language_correct", "editor", true, "")]

approval(actor, decision, refs, revise) := object.union(envelope("approval", actor), {
	"decision": decision, "artifacts": refs, "revise": revise, "comment": "Reviewed",
})

start := object.union(envelope("start", system), {
	"pack": "video", "subject_id": "shanlan-spring-tea-30s",
	"brief": {"client": "山岚茶饮", "request": "春季新品冷泡茶，想要一支30秒的抖音短片"},
})

failure(task, agent_id, class) := object.union(envelope("failure", system), {"task": task, "agent": agent_id, "class": class})

# --- input and decision ------------------------------------------------------------------

input_of(request, st) := {
	"pack": "video",
	"request": request,
	"validation": {"errors": []},
	"state": st,
	"derived": derived(request),
	"now": now,
}

derived(request) := {
	"output_hash": hash(json.marshal(request.output.content)),
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": 0,
	"payload_bytes": 2048,
} if {
	request.output
} else := {
	"output_hash": "",
	"input_hash": hash(json.marshal(object.get(request, "input_artifacts", []))),
	"context_bytes": 0,
	"payload_bytes": 1024,
}

decide(request, st) := d if {
	d := video.decision with input as input_of(request, st)
}

decide_with(request, st, contract) := d if {
	d := video.decision with input as input_of(request, st) with data.handoff.video.contract as contract
}

codes(d) := {r.code | some r in d.reasons}

gates_of(d, code) := {r.gate | some r in d.reasons; r.code == code}

paths_of(d, code) := {r.path | some r in d.reasons; r.code == code}

next_agents(d) := {n.agent | some n in d.next}

event_types(d) := [e.type | some e in d.events]

status_events(d) := {sprintf("%s v%d %s", [e.artifact, e.version, e.status]) | some e in d.events; e.type == "artifact_status"}

recorded(d) := {sprintf("%s v%d %s", [e.ref.type, e.ref.version, e.status]) | some e in d.events; e.type == "artifact_recorded"}

recorded_content(d, type) := c if {
	some e in d.events
	e.type == "artifact_recorded"
	e.ref.type == type
	c := e.content
}

counter_events(d) := {sprintf("%s %v", [e.name, object.get(e, "delta", object.get(e, "value", null))]) | some e in d.events; e.type == "counter"}

open_defects(d) := {e.defect.id | some e in d.events; e.type == "defect"; e.status == "open"}

video_contract := data.handoff.video.contract

# config is the pack's own tables, exported from contracts/video/config.cue.
config := data.handoff.video.config

# decide_without_config evaluates the decision with one configuration table removed.
decide_without_config(request, st, name) := d if {
	d := video.decision with input as input_of(request, st) with data.handoff.video.config as json.remove(config, [name])
}
