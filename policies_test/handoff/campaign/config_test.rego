# The pack's own tables (data.handoff.campaign.config, exported from CUE): every one is
# required, and a request is blocked until they are all there.
package handoff.campaign_test

import data.handoff.campaign

strategy_delivered := strategy_handoff(1, [ref("RESEARCH_BRIEF", 1)])

test_contract_missing_config_table if {
	d := decide_without_config(strategy_delivered, st_strategy, "required_inputs")
	"CONTRACT_MISSING" in codes(d)
	d.outcome == "block"
	count(d.events) == 0
}

test_contract_missing_config_twin if {
	d := decide(strategy_delivered, st_strategy)
	not "CONTRACT_MISSING" in codes(d)
}

test_every_config_table_is_required if {
	every name in object.keys(config) - {"version"} {
		d := decide_without_config(strategy_delivered, st_strategy, name)
		"CONTRACT_MISSING" in codes(d)
		d.outcome == "block"
	}
}

test_missing_config_blocks_everything if {
	d := campaign.decision with input as input_of(strategy_delivered, st_strategy) with data.handoff.campaign.config as {}
	d.outcome == "block"
	"CONTRACT_MISSING" in codes(d)
	count(d.events) == 0
}

test_deliverables_come_from_the_config if {
	config.deliverable_types == ["COPY_PACKAGE", "VISUAL_PACKAGE"]
	config.coverage.VISUAL_PACKAGE.gate == "required_format"
}

test_every_config_table_of_another_type_is_refused if {
	every name in object.keys(config) - {"version"} {
		d := campaign.decision with input as input_of(strategy_delivered, st_strategy)
			with data.handoff.campaign.config as object.union(config, {name: true})
		some r in d.reasons
		r.code == "CONTRACT_MISSING"
		endswith(r.message, sprintf(" %s", [name]))
	}
}

test_every_missing_config_table_is_named if {
	every name in object.keys(config) - {"version"} {
		d := decide_without_config(strategy_delivered, st_strategy, name)
		[r.message | some r in d.reasons; r.code == "CONTRACT_MISSING"] == [sprintf("the campaign configuration has no %s %s", [campaign._required_config[name], name])]
	}
}
