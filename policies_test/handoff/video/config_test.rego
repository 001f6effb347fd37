# The pack's own tables (data.handoff.video.config, exported from CUE): every one is
# required, and a request is blocked until they are all there.
package handoff.video_test

import data.handoff.video

test_contract_missing_config_table if {
	d := decide_without_config(deliver("A2"), st_scriptwriting, "stages")
	"CONTRACT_MISSING" in codes(d)
	d.outcome == "block"
	count(d.events) == 0
}

test_contract_missing_config_twin if {
	d := decide(deliver("A2"), st_scriptwriting)
	not "CONTRACT_MISSING" in codes(d)
}

test_every_config_table_is_required if {
	every name in object.keys(config) - {"version"} {
		d := decide_without_config(deliver("A2"), st_scriptwriting, name)
		"CONTRACT_MISSING" in codes(d)
		d.outcome == "block"
	}
}

test_every_config_table_has_its_type if {
	every name, want in video._required_config {
		d := video.decision with input as input_of(deliver("A2"), st_scriptwriting)
			with data.handoff.video.config as object.union(config, {name: wrong_type(want)})
		"CONTRACT_MISSING" in codes(d)
		d.outcome == "block"
	}
}

wrong_type("array") := {}

wrong_type("object") := []

wrong_type("number") := "1"

wrong_type("string") := 1

test_missing_config_blocks_everything if {
	d := video.decision with input as input_of(deliver("A2"), st_scriptwriting) with data.handoff.video.config as {}
	d.outcome == "block"
	"CONTRACT_MISSING" in codes(d)
	count(d.events) == 0
}

test_checklists_come_from_the_config if {
	config.stages.SCRIPTWRITING.types == ["A2", "A3", "A6"]
	config.checklist_skills.A6.skill == "humanize-dialogue"
	config.judgement_gates.PROMPT.platform_language_correct == "vfx-ed.platform_format_correct"
}
