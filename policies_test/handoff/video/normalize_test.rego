# Normalisation of placeholders (_normalized, _pending): the policy's fast forms give
# exactly what the plain definition gives, for every kind of string.
package handoff.video_test

import data.handoff.video

# plain_normalized is the definition of _normalized written plainly: full-width letters
# and digits read as ASCII, every separator removed, lower-cased.
plain_normalized(s) := lower(regex.replace(strings.replace_n(video._fullwidth, s), `[\s\p{Z}\p{C}\p{P}\p{S}]+`, ""))

plain_set(name) := {plain_normalized(p) | some p in config[name]}

plain_pending(s) if plain_normalized(s) in plain_set("pending_placeholders")

plain_pending(s) if regex.match(`^[?？.。…⋯\s]+$`, s)

tricky_strings := [
	"", " ", "TBD", "tbd", "T B D", "TBD.", "tbd!", "ＴＢＤ", "ｔｂｄ", "Ｔｂｄ。", "ＴＢＤ待定", "N/A.", "ｎ／ａ",
	" n / a ", "NA", "n.a.", "-", "?", "？？", "……", "...", "⋯", "待定", "待定。", "（待定）", "【待定】",
	"待 定", "待\t定", "待\u3000定", "待补充", "待补充！！！", "未填写", "某某", "占位符", "TODO:", "to do",
	"To-Do", "to be determined", "TO BE DETERMINED", "T-O-B-E-D-E-T-E-R-M-I-N-E-D", "to be determined!!!!!!!!!!!!!!!!!!!!!!!!",
	"t o  b e  d e t e r m i n e d . . . . . . . . . . . . . . . . . . . . . . .",
	"ｔｏ ｂｅ ｄｅｔｅｒｍｉｎｅｄ", "ＴＯ　ＢＥ　ＤＥＴＥＲＭＩＮＥＤ", "to be determined x", "to be determinedx",
	"tobedeterminedtbd", "Lorem Ipsum", "lorem-ipsum", "fill in", "FILL_IN", "xx", "XXX", "ＸＸＸＸ", "xxxxx",
	"Ｘｘ", "XX", "xX", "Ｐｅｎｄｉｎｇ", "PENDING", "Fill In", "ＦＩＬＬ ＩＮ", "lorem ipsum dolor", "某某某", "  待定  ",
	"İTBD", "Kxx", "TBDİ", "ｌｏｒｅｍ　ｉｐｓｕｍ", "「占位符」", "(placeholder)", "8s", "S1", "PROMPT", "light",
	"x", "１５", "15s", "０", "Ａ", "A1", "pending", "Pending…", "pendingx", "placeholder", "place holder",
	"👍TBD👍", "TBD\u200b", "\u200bTBD", "\u0000TBD", "T\u00adBD", "İ", "K", "KELVIN", "ſ",
	"春季新品冷泡茶，想要一支30秒的抖音短片", "林夏（画外音）", "旁白", "V.O.", "voice-over",
	"待定待定待定待定待定待定待定待定", "待定、待定", "☆☆☆", "$$$", "tbd$", "€TBD€", "tbd™",
	"Ｔ　Ｂ　Ｄ　。　，　、　！　？", concat("", array.concat(["t", "b", "d"], [" " | some _ in numbers.range(1, 200)])),
	concat(" ", ["待", "补", "充", "！", "？", "。", "，", "、", "……", "——", "～", "·"]),
]

test_normalized_is_the_plain_definition if {
	every s in tricky_strings {
		video._normalized(s) == plain_normalized(s)
	}
}

test_pending_is_the_plain_definition if {
	every s in tricky_strings {
		pending_of(s) == plain_pending_of(s)
	}
}

# The pack reads its tables for the pack the engine routes the request to.
_routed := {"pack": "video"}

pending_of(s) if video._pending(s) with input as _routed

else := false

plain_pending_of(s) if plain_pending(s)

else := false

test_pending_table_has_hits if {
	hits := {s | some s in tricky_strings; video._pending(s)} with input as _routed
	{"TBD", "ＴＢＤ", "待定。", "to be determined!!!!!!!!!!!!!!!!!!!!!!!!", "？？", "……"} - hits == set()
	count(hits) == count({s | some s in tricky_strings; plain_pending(s)})
}

# The placeholder index in the configuration is every list normalised: what _normalized
# gives for each of its values, and nothing else.
test_placeholder_index_is_the_lists_normalised if {
	every name, index in config.placeholder_index {
		object.keys(index) == plain_set(name)
	}
	object.keys(config.placeholder_index) == {"pending_placeholders", "audience_placeholders", "reference_placeholders", "reference_labels", "uncarded_roles"}
}

# Every pending placeholder, in any case or width, and every string of separators alone
# has the pending shape.
test_pending_shape_admits_every_pending_form if {
	every p in config.pending_placeholders {
		regex.match(config.pending_shape, p)
		regex.match(config.pending_shape, upper(p))
		regex.match(config.pending_shape, strings.replace_n(ascii_to_fullwidth, upper(p)))
		regex.match(config.pending_shape, strings.replace_n(ascii_to_fullwidth, lower(p)))
		regex.match(config.pending_shape, sprintf("【%s】……", [p]))
	}
	every s in ["", " ", "？？", "……", "...", "⋯"] {
		regex.match(config.pending_shape, s)
	}
	not regex.match(config.pending_shape, "林夏")
	not regex.match(config.pending_shape, "to be determined later")
}

ascii_to_fullwidth := {v: k | some k, v in video._fullwidth}
