# The pack's own tables (data.handoff.assessment.config, exported from CUE): every one
# is required, and a request is blocked until they are all there.
package handoff.assessment_test

import data.handoff.assessment

test_contract_missing_config_table if {
	d := decide_without_config(knowledge_handoff, st_knowledge, "trust")
	"CONTRACT_MISSING" in codes(d)
	d.outcome == "block"
	count(d.events) == 0
}

test_contract_missing_config_twin if {
	d := decide(knowledge_handoff, st_knowledge)
	not "CONTRACT_MISSING" in codes(d)
}

test_every_config_table_is_required if {
	every name in object.keys(config) - {"version"} {
		d := decide_without_config(knowledge_handoff, st_knowledge, name)
		"CONTRACT_MISSING" in codes(d)
		d.outcome == "block"
	}
}

test_missing_config_blocks_everything if {
	d := assessment.decision with input as input_of(knowledge_handoff, st_knowledge) with data.handoff.assessment.config as {}
	d.outcome == "block"
	"CONTRACT_MISSING" in codes(d)
	count(d.events) == 0
}

test_gates_come_from_the_config if {
	config.approval_gates.SOA_APPROVAL == {"step": "SOA", "artifact": "STATEMENT_OF_APPLICABILITY", "after": "EVIDENCE"}
	config.trust.scf_data > config.trust.kb_evidence_candidate
}
