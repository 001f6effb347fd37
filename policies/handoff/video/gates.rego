package handoff.video

import data.handoff.core
import data.handoff.lib

# The machine-decidable quality gates and checklist items, computed from the artifacts
# themselves. Each rule adds one failed item (QUALITY_GATE_FAILED) with its reason and
# path for an artifact in scope (_scope: the artifact a handoff delivers, or every
# artifact of the edge a check or a completing handoff covers).

reasons contains f.reason if some f in _gate_failures

# METADATA
# title: Quality gate failed
# description: >-
#   A quality gate or checklist item of an artifact fails (质量门未通过): the reason names
#   the gate, says why and points at the field. The work returns to its producer, who
#   resubmits a new version. Machine gates are computed from the artifact; a judgement
#   gate fails when its attester says so (with the attester's reason); a receiving
#   agent's failed gate result fails it too.
# custom:
#   code: QUALITY_GATE_FAILED
#   outcome: revise
_gate_failure(type, gate, message, path) := _failure(rego.metadata.rule(), type, gate, message, path)

_in_scope(type) if type in _scope

# --- the producer's own quality_gate -------------------------------------------------------

# A producer may send the seed's quality_gate booleans with its artifact. They are claims:
# the gates below are computed (and the judgement gates attested) whatever they say, so a
# true never passes a gate. A gate its own producer declares false has failed: the work
# returns at once (质量门未通过 - 返回前序Agent重做).
_gate_failures contains f if {
	_producer_handoff
	some g, passed in object.get(lib.output.content, "quality_gate", {})
	passed == false
	f := _gate_failure(lib.output.type, g, sprintf("%s: its producer declares %s failed (quality_gate.%s: false)", [_label(lib.output.type), g, g]), _at(lib.output.type, sprintf("quality_gate.%s", [g])))
}

# --- A1 ------------------------------------------------------------------------------

# _audience_placeholders is config.audience_placeholders in contracts/video/config.cue,
# normalised.
_audience_placeholders := _placeholder_set("audience_placeholders")

_gate_failures contains f if {
	_scope.A1
	ta := object.get(_doc("A1"), "target_audience", "")
	not _audience_defined(ta)
	f := _gate_failure("A1", "target_audience_defined", sprintf("%s: target_audience %q does not define an audience", [_label("A1"), ta]), _at("A1", "target_audience"))
}

_audience_defined(ta) if {
	lib.non_blank(ta)
	_normalized(ta) != ""
	not _audience_placeholders[_normalized(ta)]
}

# references 有实质内容: every reference is a link to a real page or a case described in
# words. The placeholders, labels and reserved hosts are config.reference_placeholders,
# config.reference_labels and config.reference_placeholder_hosts in
# contracts/video/config.cue; every comparison is on normalised text (_normalized).
_reference_placeholders := _placeholder_set("reference_placeholders")

_reference_labels := _placeholder_set("reference_labels")

_placeholder_hosts := {lower(trim_space(h)) | some h in object.get(lib.pack_config, "reference_placeholder_hosts", []); is_string(h)}

# _reference_min_chars fails closed: without the table no description is long enough.
_reference_min_chars := n if {
	n := lib.pack_config.reference_min_chars
	is_number(n)
} else := 1000000

_gate_failures contains f if {
	_scope.A1
	count(object.get(_doc("A1"), "references", [])) == 0
	f := _gate_failure("A1", "cd-sw.references_substantive", sprintf("%s: references lists no case or reference link", [_label("A1")]), _at("A1", "references"))
}

_gate_failures contains f if {
	_scope.A1
	some i, r in object.get(_doc("A1"), "references", [])
	problem := _reference_problem(r)
	f := _gate_failure("A1", "cd-sw.references_substantive", sprintf("%s: reference %q has no substance (%s): give a link to a real page or describe the case", [_label("A1"), r, problem]), _at("A1", sprintf("references[%d]", [i])))
}

# _reference_problem says why a reference has no substance; undefined when it has. A
# reference may start with a label (参考：...); what follows is judged. Every link in it
# must point at a real page; a reference without a link describes a case in words.
_reference_problem(r) := "it is not text" if {
	not is_string(r)
} else := concat("; ", sort(ps)) if {
	ps := {p | some u in _links(_unlabelled(r)); p := _link_problem(u)}
	count(ps) > 0
} else := _text_problem(_unlabelled(r)) if {
	count(_links(_unlabelled(r))) == 0
}

# _unlabelled is a reference without its label: "参考：暂无" is judged as "暂无".
_unlabelled(r) := trim_space(m[2]) if {
	m := regex.find_all_string_submatch_n(`^([^:：]{1,24})[:：](.*)$`, trim_space(r), 1)[0]
	_reference_labels[_normalized(m[1])]
} else := trim_space(r)

# _links are the links in a reference: anything with a scheme (http://, ftp://, file://),
# a www. address, or the whole reference when it is a bare domain (example.com/case).
_links(s) := ({u | some u in regex.find_n(`(?i)[a-z][a-z0-9+.-]*://[^\s，。、；;（）()<>"]*`, s, -1)} | {sprintf("http://%s", [m[1]]) |
	not contains(s, "://")
	some m in regex.find_all_string_submatch_n(`(?i)(?:^|[^a-z0-9./:@-])(www\.[^\s，。、；;（）()<>"]*)`, s, -1)
}) | {sprintf("http://%s", [s]) |
	regex.match(`(?i)^[a-z0-9-]+(?:\.[a-z0-9-]+)+(?:[/?#]\S*)?$`, s)
	not startswith(lower(s), "www.")
}

# _link_problem says why a link points nowhere; undefined for a link to a real page.
_link_problem(u) := "its link is not http(s)" if {
	not regex.match(`(?i)^https?://`, u)
} else := "its link has no host" if {
	_host(u) == ""
} else := sprintf("its link's host %q is not a domain name", [_host(u)]) if {
	not regex.match(`^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+(?:\p{L}{2,}|xn--[a-z0-9-]+)$`, _host(u))
} else := sprintf("its link points at %q, a name reserved for examples", [_host(u)]) if {
	some h in _placeholder_hosts
	_domain_of(_host(u), h)
} else := sprintf("its link's host %q names nothing", [_host(u)]) if {
	every name in _host_names(_host(u)) {
		_reference_placeholders[_normalized(name)]
	}
}

# _host is a link's host name, lower-cased: without user info, port and trailing dot.
_host(u) := h if {
	authority := regex.find_all_string_submatch_n(`^(?i)[a-z][a-z0-9+.-]*://([^/?#\\]*)`, u, 1)[0][1]
	parts := split(authority, "@")
	h := trim_right(regex.replace(lower(parts[count(parts) - 1]), `:[0-9]*$`, ""), ".")
} else := ""

_domain_of(host, name) if host == name

_domain_of(host, name) if endswith(host, sprintf(".%s", [name]))

# _host_names are the labels of a host that name something: all but the top-level
# domain and www.
_host_names(host) := [l |
	labels := split(host, ".")
	some i, l in labels
	i < count(labels) - 1
	l != "www"
]

# _text_problem says why a reference without a link describes no case; undefined for
# one that does.
_text_problem(s) := "it holds no words" if {
	_normalized(s) == ""
} else := "it is a placeholder" if {
	_reference_placeholders[_normalized(s)]
} else := "it repeats one character" if {
	count({c | some c in split(_normalized(s), "")}) == 1
} else := sprintf("it is shorter than %d characters", [_reference_min_chars]) if {
	count(_normalized(s)) < _reference_min_chars
}

# --- SKILL_ROUTING -----------------------------------------------------------------------

# _checklist_skills are the skills a handoff checklist requires, by artifact: the skill
# routing must route them and the producer must attest running them.
# The table is config.checklist_skills in contracts/video/config.cue.
_checklist_skills := object.get(lib.pack_config, "checklist_skills", {})

_gate_failures contains f if {
	_scope.SKILL_ROUTING
	line := object.get(_doc("SKILL_ROUTING"), "style_line", "")
	line != object.get(_doc("A1"), "style_line", "")
	f := _gate_failure("SKILL_ROUTING", "skill_routing_consistent", sprintf("%s: style_line %q is not A1's style line %q", [_label("SKILL_ROUTING"), line, object.get(_doc("A1"), "style_line", "")]), _at("SKILL_ROUTING", "style_line"))
}

_gate_failures contains f if {
	_scope.SKILL_ROUTING
	some i, route in object.get(_doc("SKILL_ROUTING"), "routes", [])
	core.producer(route.artifact, "unknown") != route.agent
	f := _gate_failure("SKILL_ROUTING", "skill_routing_consistent", sprintf("%s: route %q gives %s to %q, but %s is produced by %q", [_label("SKILL_ROUTING"), route.skill, route.artifact, route.agent, route.artifact, core.producer(route.artifact, "unknown")]), _at("SKILL_ROUTING", sprintf("routes[%d]", [i])))
}

_gate_failures contains f if {
	_scope.SKILL_ROUTING
	some type, need in _checklist_skills
	not _routes_skill(type, need)
	f := _gate_failure("SKILL_ROUTING", "skill_routing_consistent", sprintf("%s: %s is not routed to %q for %s, which the handoff checklist (%s) requires", [_label("SKILL_ROUTING"), need.skill, need.agent, type, need.item]), _at("SKILL_ROUTING", "routes"))
}

_routes_skill(type, need) if {
	some route in object.get(_doc("SKILL_ROUTING"), "routes", [])
	route.artifact == type
	route.agent == need.agent
	trim_space(route.skill) == need.skill
}

# --- A2 ----------------------------------------------------------------------------

_gate_failures contains f if {
	_scope.A2
	count(object.get(_doc("A2"), "characters", [])) == 0
	f := _gate_failure("A2", "all_characters_have_visual_notes", sprintf("%s has no character", [_label("A2")]), _at("A2", "characters"))
}

_gate_failures contains f if {
	_scope.A2
	some i, c in object.get(_doc("A2"), "characters", [])
	not lib.non_blank(object.get(c, "visual_notes", ""))
	f := _gate_failure("A2", "all_characters_have_visual_notes", sprintf("%s: character %q has no visual_notes", [_label("A2"), object.get(c, "name", i)]), _at("A2", sprintf("characters[%d].visual_notes", [i])))
}

# --- A3 ----------------------------------------------------------------------------

_gate_failures contains f if {
	_scope.A3
	not lib.non_blank(object.get(_doc("A3"), "emotional_arc", ""))
	f := _gate_failure("A3", "emotional_arc_defined", sprintf("%s: emotional_arc is not defined", [_label("A3")]), _at("A3", "emotional_arc"))
}

_gate_failures contains f if {
	_scope.A3
	count(object.get(_doc("A3"), "key_moments", [])) == 0
	f := _gate_failure("A3", "key_moments_listed", sprintf("%s lists no key moment", [_label("A3")]), _at("A3", "key_moments"))
}

_gate_failures contains f if {
	_scope.A3
	some i, m in object.get(_doc("A3"), "key_moments", [])
	not lib.non_blank(m)
	f := _gate_failure("A3", "key_moments_listed", sprintf("%s: key moment %d is blank", [_label("A3"), i + 1]), _at("A3", sprintf("key_moments[%d]", [i])))
}

# --- A4 ----------------------------------------------------------------------------

_scenes := [s | some s in object.get(_doc("A4"), "scenes", []); is_object(s)]

_gate_failures contains f if {
	_scope.A4
	count(_scenes) == 0
	f := _gate_failure("A4", "all_scenes_have_duration", sprintf("%s has no scene", [_label("A4")]), _at("A4", "scenes"))
}

_gate_failures contains f if {
	_scope.A4
	some i, s in _scenes
	not _seconds(object.get(s, "duration", ""))
	f := _gate_failure("A4", "all_scenes_have_duration", sprintf("%s: scene %q has no duration that reads as seconds (got %q)", [_label("A4"), object.get(s, "scene_id", i), object.get(s, "duration", "")]), _at("A4", sprintf("scenes[%d].duration", [i])))
}

_gate_failures contains f if {
	_scope.A4
	some i, s in _scenes
	some field in ["plot_rhythm", "emotion_rhythm"]
	not s[field]
	f := _gate_failure("A4", "rhythm_annotated", sprintf("%s: scene %q has no %s", [_label("A4"), object.get(s, "scene_id", i), field]), _at("A4", sprintf("scenes[%d].%s", [i, field])))
}

# _seconds reads a duration written as "15", "15s", "15 sec", "15秒", "00:15", or with
# minutes: "1分30秒", "1分钟", "1 min 30 s", "1m30s", "2min".
_seconds(d) := to_number(m[1]) if {
	is_string(d)
	m := regex.find_all_string_submatch_n(`^([0-9]+(?:\.[0-9]+)?)\s*(?:s|sec|secs|second|seconds|秒|秒钟)?$`, lower(trim_space(d)), 1)[0]
} else := (to_number(m[1]) * 60) + to_number(m[2]) if {
	is_string(d)
	m := regex.find_all_string_submatch_n(`^([0-9]{1,2}):([0-5][0-9])$`, trim_space(d), 1)[0]
} else := (to_number(m[1]) * 60) + _or_zero(m[2]) if {
	is_string(d)
	m := regex.find_all_string_submatch_n(`^([0-9]+(?:\.[0-9]+)?)\s*(?:m|min|mins|minute|minutes|分钟|分)\s*(?:([0-9]+(?:\.[0-9]+)?)\s*(?:s|sec|secs|second|seconds|秒|秒钟)?)?$`, lower(trim_space(d)), 1)[0]
}

_or_zero(x) := to_number(x) if x != ""

else := 0

# The people of a scene are A2's characters: a scene never brings in someone the
# character cards do not describe (narration and extras aside: config.uncarded_roles).
_gate_failures contains f if {
	_scope.A4
	some i, s in _scenes
	some j, name in object.get(s, "characters_present", [])
	not _carded(name)
	f := _gate_failure("A4", "dir-vfx.a4_complete", sprintf("%s: scene %q has %q, who is no character of %s (%v)", [_label("A4"), object.get(s, "scene_id", i), name, _label("A2"), sort(_character_names)]), _at("A4", sprintf("scenes[%d].characters_present[%d]", [i, j])))
}

# _character_names are the names of A2's characters as written.
_character_names := {c.name | some c in object.get(_doc("A2"), "characters", []); is_string(c.name)}

_carded_names := {_normalized(n) | some n in _character_names} - {""}

# _uncarded_roles is config.uncarded_roles in contracts/video/config.cue, normalised.
_uncarded_roles := _placeholder_set("uncarded_roles")

# _carded holds for a name of an A2 character or a role that needs no card; a trailing
# parenthetical (林夏（画外音）, LIN (V.O.)) is set aside.
_carded(name) if _normalized(_bare_name(name)) in _carded_names

_carded(name) if _uncarded_roles[_normalized(_bare_name(name))]

_carded(name) if _uncarded_roles[_normalized(name)]

_bare_name(name) := trim_space(regex.replace(name, `\s*[（(][^）)]*[）)]\s*$`, "")) if is_string(name)

# --- A5 ----------------------------------------------------------------------------

_shots := [s | some s in object.get(_doc("A5"), "shots", []); is_object(s)]

# _ts reads a [mm:ss-mm:ss] timestamp as {start, end} in seconds; undefined when it is
# not one.
_ts(t) := {"start": (to_number(m[1]) * 60) + to_number(m[2]), "end": (to_number(m[3]) * 60) + to_number(m[4]), "seconds_ok": _secs_ok(m)} if {
	is_string(t)
	m := regex.find_all_string_submatch_n(`^\[([0-9]{2}):([0-9]{2})-([0-9]{2}):([0-9]{2})\]$`, trim_space(t), 1)[0]
}

_secs_ok(m) if {
	to_number(m[2]) < 60
	to_number(m[4]) < 60
} else := false

# _ts_ok holds for a well-formed timestamp: the pattern, seconds below 60, start before end.
_ts_ok(t) if {
	x := _ts(t)
	x.seconds_ok == true
	x.start < x.end
}

_ts_problem(t) := "is not [mm:ss-mm:ss]" if not _ts(t)

else := "has seconds above 59" if _ts(t).seconds_ok == false

else := "does not end after it starts"

_gate_failures contains f if {
	_scope.A5
	some i, s in _shots
	t := object.get(s, "timestamp", "")
	not _ts_ok(t)
	f := _gate_failure("A5", "timestamps_correct", sprintf("%s: shot %q timestamp %q %s", [_label("A5"), object.get(s, "shot_id", i), t, _ts_problem(t)]), _at("A5", sprintf("shots[%d].timestamp", [i])))
}

_gate_failures contains f if {
	_scope.A5
	first := _shots[0]
	_ts_ok(first.timestamp)
	_ts(first.timestamp).start != 0
	f := _gate_failure("A5", "timestamps_correct", sprintf("%s: the first shot %q starts at %s, not at 00:00", [_label("A5"), first.shot_id, _clock(_ts(first.timestamp).start)]), _at("A5", "shots[0].timestamp"))
}

_gate_failures contains f if {
	_scope.A5
	some i, s in _shots
	i > 0
	prev := _shots[i - 1]
	_ts_ok(prev.timestamp)
	_ts_ok(s.timestamp)
	_ts(s.timestamp).start != _ts(prev.timestamp).end
	f := _gate_failure("A5", "timestamps_correct", sprintf("%s: shot %q starts at %s but shot %q ends at %s: shots are ordered and contiguous", [_label("A5"), s.shot_id, _clock(_ts(s.timestamp).start), prev.shot_id, _clock(_ts(prev.timestamp).end)]), _at("A5", sprintf("shots[%d].timestamp", [i])))
}

# _storyboard_seconds is where the last shot ends, when every timestamp is well formed.
_storyboard_seconds := _ts(_shots[count(_shots) - 1].timestamp).end if {
	count(_shots) > 0
	every s in _shots {
		_ts_ok(s.timestamp)
	}
}

_gate_failures contains f if {
	_scope.A5
	want := object.get(_doc("A1"), "duration", null)
	is_number(want)
	_storyboard_seconds != want
	f := _gate_failure("A5", "timestamps_correct", sprintf("%s ends at %s, but A1's duration is %v seconds", [_label("A5"), _clock(_storyboard_seconds), want]), _at("A5", sprintf("shots[%d].timestamp", [count(_shots) - 1])))
}

_gate_failures contains f if {
	_scope.A5
	some s in _scenes
	want := _seconds(s.duration)
	shots := [x | some x in _shots; x.scene_ref == s.scene_id; _ts_ok(x.timestamp)]
	count(shots) > 0
	got := sum([(_ts(x.timestamp).end - _ts(x.timestamp).start) | some x in shots])
	got != want
	f := _gate_failure("A5", "timestamps_correct", sprintf("%s: the shots of scene %q last %v seconds, but A4 gives the scene %v seconds", [_label("A5"), s.scene_id, got, want]), _at("A5", "shots"))
}

_clock(secs) := sprintf("%02d:%02d", [floor(secs / 60), secs % 60]) if is_number(secs)

_gate_failures contains f if {
	_scope.A5
	some i, s in _shots
	some field in ["movement", "angle", "distance"]
	not lib.non_blank(object.get(s, ["camera", field], ""))
	f := _gate_failure("A5", "camera_instructions_complete", sprintf("%s: shot %q gives no camera %s", [_label("A5"), object.get(s, "shot_id", i), field]), _at("A5", sprintf("shots[%d].camera.%s", [i, field])))
}

# 情绪曲线视觉映射已对照: every scene of the emotion curve has shots, every shot a scene.
_gate_failures contains f if {
	_scope.A5
	_has_doc("A4")
	some s in _scenes
	not _scene_shot(s.scene_id)
	f := _gate_failure("A5", "dir-vfx.emotion_curve_mapped", sprintf("%s maps no shot to A4 scene %q (emotion_rhythm %v)", [_label("A5"), s.scene_id, object.get(s, "emotion_rhythm", "not annotated")]), _at("A5", "shots"))
}

_gate_failures contains f if {
	_scope.A5
	_has_doc("A4")
	ids := {s.scene_id | some s in _scenes}
	some i, shot in _shots
	not shot.scene_ref in ids
	f := _gate_failure("A5", "dir-vfx.emotion_curve_mapped", sprintf("%s: shot %q refers to scene %q, which A4 does not have", [_label("A5"), shot.shot_id, shot.scene_ref]), _at("A5", sprintf("shots[%d].scene_ref", [i])))
}

_gate_failures contains f if {
	_scope.A5
	not _has_doc("A4")
	f := _gate_failure("A5", "dir-vfx.emotion_curve_mapped", sprintf("%s cannot be mapped: there is no A4", [_label("A5")]), _at("A5", "shots"))
}

_scene_shot(id) if {
	some shot in _shots
	shot.scene_ref == id
}

# --- A6 ----------------------------------------------------------------------------

# _heading is a standard scene heading: an optional scene number, INT./EXT. (or
# 内景/外景), a location and a time of day.
_heading := `(?i)^(?:(?:第\s*)?[0-9]+\s*(?:场)?[.、．:：]?\s*|场景\s*[0-9]+\s*[.、．:：]?\s*)?(?:INT\.?\s*/\s*EXT\.?|I/E\.?|INT\.?|EXT\.?|内外景|内/外景|内景|外景)\s*[.．·]?\s*\S.*[-–—·,，/\s]\s*(?:DAY|NIGHT|DAWN|DUSK|MORNING|AFTERNOON|EVENING|CONTINUOUS|LATER|日|夜|晨|昏|黄昏|傍晚|清晨|白天|夜晚|凌晨|早晨|上午|下午|中午)$`

# Every line is spoken by an A2 character (or by narration: config.uncarded_roles).
_gate_failures contains f if {
	_scope.A6
	some i, s in object.get(_doc("A6"), "scenes", [])
	some j, line in object.get(s, "dialogue", [])
	who := object.get(line, "character", "")
	lib.non_blank(who)
	not _carded(who)
	f := _gate_failure("A6", "sw-dir.a6_draft_complete", sprintf("%s: scene %d line %d is spoken by %q, who is no character of %s (%v)", [_label("A6"), i + 1, j + 1, who, _label("A2"), sort(_character_names)]), _at("A6", sprintf("scenes[%d].dialogue[%d].character", [i, j])))
}

_gate_failures contains f if {
	_scope.A6
	some i, s in object.get(_doc("A6"), "scenes", [])
	h := object.get(s, "scene_heading", "")
	lib.non_blank(h)
	not regex.match(_heading, trim_space(h))
	f := _gate_failure("A6", "scene_headings_correct", sprintf("%s: scene heading %q is not INT./EXT. (内景/外景), location and time of day", [_label("A6"), h]), _at("A6", sprintf("scenes[%d].scene_heading", [i])))
}

# --- PROMPT ------------------------------------------------------------------------

_prompts := [p | some p in object.get(_doc("PROMPT"), "scene_prompts", []); is_object(p)]

_shot_times := {s.timestamp | some s in _shots; _ts_ok(s.timestamp)}

_prompt_times := {trim_space(p.timestamp) | some p in _prompts; _ts_ok(p.timestamp)}

_gate_failures contains f if {
	_scope.PROMPT
	some i, p in _prompts
	not _ts_ok(p.timestamp)
	f := _gate_failure("PROMPT", "timestamps_match_A5", sprintf("%s: prompt %d timestamp %q %s", [_label("PROMPT"), i + 1, p.timestamp, _ts_problem(p.timestamp)]), _at("PROMPT", sprintf("scene_prompts[%d].timestamp", [i])))
}

_gate_failures contains f if {
	_scope.PROMPT
	_has_doc("A5")
	some i, p in _prompts
	_ts_ok(p.timestamp)
	not trim_space(p.timestamp) in _shot_times
	f := _gate_failure("PROMPT", "timestamps_match_A5", sprintf("%s: prompt %d timestamp %s is not the timestamp of any shot of %s", [_label("PROMPT"), i + 1, p.timestamp, _label("A5")]), _at("PROMPT", sprintf("scene_prompts[%d].timestamp", [i])))
}

_gate_failures contains f if {
	_scope.PROMPT
	_has_doc("A5")
	some s in _shots
	_ts_ok(s.timestamp)
	not s.timestamp in _prompt_times
	f := _gate_failure("PROMPT", "timestamps_match_A5", sprintf("%s has no prompt for shot %q %s of %s", [_label("PROMPT"), s.shot_id, s.timestamp, _label("A5")]), _at("PROMPT", "scene_prompts"))
}

_gate_failures contains f if {
	_scope.PROMPT
	not _has_doc("A5")
	f := _gate_failure("PROMPT", "timestamps_match_A5", sprintf("%s cannot be matched: there is no A5", [_label("PROMPT")]), _at("PROMPT", "scene_prompts"))
}

# 负向提示词已设置: every prompt has a negative prompt.
_gate_failures contains f if {
	_scope.PROMPT
	some i, p in _prompts
	not lib.non_blank(object.get(p, "negative_prompt", ""))
	f := _gate_failure("PROMPT", "vfx-ed.negative_prompts_set", sprintf("%s: prompt %d (%s) has no negative_prompt", [_label("PROMPT"), i + 1, p.timestamp]), _at("PROMPT", sprintf("scene_prompts[%d].negative_prompt", [i])))
}

# 各平台格式正确: the prompts are written for the routed target platform.
_gate_failures contains f if {
	_scope.PROMPT
	got := object.get(_doc("PROMPT"), "platform", "")
	want := object.get(_doc("SKILL_ROUTING"), "platform", "none")
	got != want
	f := _gate_failure("PROMPT", "vfx-ed.platform_format_correct", sprintf("%s is written for %q, but the skill routing targets %q", [_label("PROMPT"), got, want]), _at("PROMPT", "platform"))
}

# prompt-schema: the technical specs last as long as the storyboard.
_gate_failures contains f if {
	_scope.PROMPT
	d := object.get(_doc("PROMPT"), ["technical_specs", "duration"], "")
	lib.non_blank(d)
	not _seconds(d) == _storyboard_seconds
	f := _gate_failure("PROMPT", "vfx-ed.prompt_schema_passed", sprintf("%s: technical_specs.duration %q is not the storyboard's length (%s)", [_label("PROMPT"), d, _clock_or_unknown(_storyboard_seconds)]), _at("PROMPT", "technical_specs.duration"))
}

_clock_or_unknown(x) := _clock(x) if is_number(x)

else := "unknown"

# --- EDIT_PLAN ---------------------------------------------------------------------

_cuts := [c | some c in object.get(_doc("EDIT_PLAN"), "timeline", []); is_object(c)]

_gate_failures contains f if {
	_scope.EDIT_PLAN
	ids := {c.shot_id | some c in _cuts}
	some s in _shots
	not s.shot_id in ids
	f := _gate_failure("EDIT_PLAN", "timeline_matches_A5", sprintf("%s does not place shot %q of %s", [_label("EDIT_PLAN"), s.shot_id, _label("A5")]), _at("EDIT_PLAN", "timeline"))
}

_gate_failures contains f if {
	_scope.EDIT_PLAN
	ids := {s.shot_id | some s in _shots}
	some i, c in _cuts
	not c.shot_id in ids
	f := _gate_failure("EDIT_PLAN", "timeline_matches_A5", sprintf("%s places shot %q, which %s does not have", [_label("EDIT_PLAN"), c.shot_id, _label("A5")]), _at("EDIT_PLAN", sprintf("timeline[%d].shot_id", [i])))
}

_gate_failures contains f if {
	_scope.EDIT_PLAN
	some i, c in _cuts
	not _ts_ok(c.timestamp)
	f := _gate_failure("EDIT_PLAN", "timeline_matches_A5", sprintf("%s: cut %d timestamp %q %s", [_label("EDIT_PLAN"), i + 1, c.timestamp, _ts_problem(c.timestamp)]), _at("EDIT_PLAN", sprintf("timeline[%d].timestamp", [i])))
}

_gate_failures contains f if {
	_scope.EDIT_PLAN
	some i, c in _cuts
	_ts_ok(c.timestamp)
	start := _ts(c.timestamp).start
	start != _cut_start(i)
	f := _gate_failure("EDIT_PLAN", "timeline_matches_A5", sprintf("%s: cut %d starts at %s, not at %s: the timeline is ordered and contiguous", [_label("EDIT_PLAN"), i + 1, _clock(start), _clock(_cut_start(i))]), _at("EDIT_PLAN", sprintf("timeline[%d].timestamp", [i])))
}

_cut_start(0) := 0

_cut_start(i) := _ts(_cuts[i - 1].timestamp).end if {
	i > 0
	_ts_ok(_cuts[i - 1].timestamp)
}

_gate_failures contains f if {
	_scope.EDIT_PLAN
	count(_cuts) > 0
	every c in _cuts {
		_ts_ok(c.timestamp)
	}
	end := _ts(_cuts[count(_cuts) - 1].timestamp).end
	total := object.get(_doc("EDIT_PLAN"), "total_duration", null)
	total != end
	f := _gate_failure("EDIT_PLAN", "timeline_matches_A5", sprintf("%s: total_duration is %v seconds, but the timeline ends at %s", [_label("EDIT_PLAN"), total, _clock(end)]), _at("EDIT_PLAN", "total_duration"))
}

# --- CLIENT_CONFIRMATION -----------------------------------------------------------

_presented := [r | some r in object.get(_doc("CLIENT_CONFIRMATION"), "presented", []); is_object(r)]

_gate_failures contains f if {
	_scope.CLIENT_CONFIRMATION
	some i, r in _presented
	msg := _presented_problem(r)
	f := _gate_failure("CLIENT_CONFIRMATION", "presented_versions_current", sprintf("%s presents %s v%v, which %s", [_label("CLIENT_CONFIRMATION"), r.type, r.version, msg]), _at("CLIENT_CONFIRMATION", sprintf("presented[%d]", [i])))
}

_presented_problem(r) := "is not recorded" if {
	not core.artifact_version(r.type, r.version)
} else := sprintf("is %s, not approved", [v.status]) if {
	v := core.artifact_version(r.type, r.version)
	not v.status in core.approved_statuses
} else := sprintf("is not the latest version (v%d)", [core.latest_number(r.type)]) if {
	r.version != core.latest_number(r.type)
} else := "has another hash than the recorded version" if {
	not core.ref_matches(r)
}

_gate_failures contains f if {
	_scope.CLIENT_CONFIRMATION
	not _presents_edit_plan
	f := _gate_failure("CLIENT_CONFIRMATION", "presented_versions_current", sprintf("%s does not present the approved EDIT_PLAN v%d", [_label("CLIENT_CONFIRMATION"), core.latest_number("EDIT_PLAN")]), _at("CLIENT_CONFIRMATION", "presented"))
}

_presents_edit_plan if {
	some r in _presented
	r.type == "EDIT_PLAN"
	r.version == core.latest_number("EDIT_PLAN")
}
