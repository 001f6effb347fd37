package handoff.core_test

import data.handoff.core

# A review's verdict agrees with what the same review reports, in every pack: core's
# VERDICT_INCONSISTENT, with the pack's table verdicts.

s1_defect := {"id": "D-1", "severity": "S1", "artifact": "PLAN", "check": "QG-1", "description": "typo in the headline"}

s3_defect := object.union(s1_defect, {"id": "D-3", "severity": "S3"})

review_with(patch) := with_request(review_input, patch)

inconsistent_paths(inp) := {object.get(r, "path", "") | some r in reasons_for(inp); r.code == "VERDICT_INCONSISTENT"}

inconsistent_paths_with(inp, pack) := {object.get(r, "path", "") | some r in reasons_with(inp, pack); r.code == "VERDICT_INCONSISTENT"}

with_verdicts(patch) := object.union(fixture_pack, {"verdicts": object.union(fixture_pack.verdicts, patch)})

test_accept_with_a_blocking_defect if {
	inp := review_with({"defects": [s1_defect], "gates": []})
	r := reason_with_code(inp, "VERDICT_INCONSISTENT")
	r.path == "defects[0]"
	r.outcome == "block"
	r.title == "Review contradicts itself"
	contains(r.message, "verdict ACCEPT lists S1 defect \"D-1\" of PLAN")
}

# A pack whose table lets an ACCEPT carry S1 notes accepts one; an S3 is still refused.
test_accept_with_a_defect_the_table_does_not_block_twin if {
	pack := with_verdicts({"blocking_severities": ["S2", "S3"]})
	inconsistent_paths_with(review_with({"defects": [s1_defect], "gates": []}), pack) == set()
	inconsistent_paths_with(review_with({"defects": [s3_defect], "gates": []}), pack) == {"defects[0]"}
}

test_accept_with_a_failed_gate if {
	inp := review_with({"gates": [{"id": "QG-1", "passed": true}, {"id": "QG-2", "passed": false}]})
	inconsistent_paths(inp) == {"gates[1]"}
}

test_accept_with_a_failed_attestation if {
	inp := review_with({"attestations": [{"gate": "clear", "by": "qa", "passed": false, "reason": "unclear"}]})
	inconsistent_paths(inp) == {"attestations[0]"}
}

test_accept_twin_everything_passed if {
	clean(review_with({"attestations": [{"gate": "clear", "by": "qa", "passed": true}]}))
}

test_return_without_a_failed_item if {
	every verdict in ["REVISE", "REJECT", "REASSIGN"] {
		inp := review_with({"verdict": verdict, "gates": [{"id": "QG-1", "passed": false}]})
		inconsistent_paths(inp) == {"verdict"}
		contains(reason_with_code(inp, "VERDICT_INCONSISTENT").message, "names no failed item (defect)")
	}
}

test_return_with_a_defect_twin if {
	every verdict in ["REVISE", "REJECT", "REASSIGN"] {
		not "VERDICT_INCONSISTENT" in codes_for(review_with({"verdict": verdict, "defects": [s1_defect], "gates": [{"id": "QG-1", "passed": false}]}))
	}
}

# ESCALATE hands the work to a person: it needs no failed item.
test_escalate_without_a_failed_item_twin if {
	clean(review_with({"verdict": "ESCALATE"}))
}

# Where the pack counts failed gate results and attestations as failed items, they
# justify a return without a defect.
test_return_with_a_failed_gate_where_gates_count_twin if {
	pack := with_verdicts({"failed_items": ["defect", "gate", "attestation"]})
	inconsistent_paths_with(review_with({"verdict": "REVISE", "gates": [{"id": "QG-1", "passed": false}]}), pack) == set()
	inconsistent_paths_with(review_with({"verdict": "REVISE", "gates": [], "attestations": [{"gate": "clear", "by": "qa", "passed": false}]}), pack) == set()
	inconsistent_paths_with(review_with({"verdict": "REVISE", "gates": []}), pack) == {"verdict"}
}

test_defect_failing_a_passed_check if {
	inp := review_with({"verdict": "REVISE", "defects": [s1_defect]})
	inconsistent_paths(inp) == {"defects[0].check"}
}

test_defect_failing_a_failed_check_twin if {
	not "VERDICT_INCONSISTENT" in codes_for(review_with({"verdict": "REVISE", "defects": [s1_defect], "gates": [{"id": "QG-1", "passed": false}]}))
}

test_gate_both_passed_and_failed if {
	inp := review_with({"verdict": "REVISE", "defects": [s1_defect], "gates": [{"id": "QG-1", "passed": false}, {"id": "QG-1", "passed": true}]})
	"gates" in inconsistent_paths(inp)
}

test_failed_gate_without_its_defect if {
	pack := with_verdicts({"failed_gates_as_defects": true})
	other := object.union(s1_defect, {"check": "QG-3"})
	inconsistent_paths_with(review_with({"verdict": "REVISE", "defects": [other], "gates": [{"id": "QG-2", "passed": false}]}), pack) == {"gates[0]"}
}

test_failed_gate_with_its_defect_twin if {
	pack := with_verdicts({"failed_gates_as_defects": true})
	named := object.union(s1_defect, {"check": "QG-2"})
	inconsistent_paths_with(review_with({"verdict": "REVISE", "defects": [named], "gates": [{"id": "QG-2", "passed": false}]}), pack) == set()

	# Without the table's word a failed gate need not be a defect.
	other := object.union(s1_defect, {"check": "QG-3"})
	inconsistent_paths(review_with({"verdict": "REVISE", "defects": [other], "gates": [{"id": "QG-2", "passed": false}]})) == set()
}

test_verdict_severities if {
	pack := with_verdicts({"severities": {"REJECT": {"requires": ["S3"]}, "REVISE": {"allows": ["S1", "S2"]}}})
	inconsistent_paths_with(review_with({"verdict": "REJECT", "defects": [s1_defect], "gates": []}), pack) == {"verdict"}
	inconsistent_paths_with(review_with({"verdict": "REVISE", "defects": [s3_defect], "gates": []}), pack) == {"defects[0].severity"}
}

test_verdict_severities_twin if {
	pack := with_verdicts({"severities": {"REJECT": {"requires": ["S3"]}, "REVISE": {"allows": ["S1", "S2"]}}})
	inconsistent_paths_with(review_with({"verdict": "REJECT", "defects": [s1_defect, s3_defect], "gates": []}), pack) == set()
	inconsistent_paths_with(review_with({"verdict": "REVISE", "defects": [s1_defect], "gates": []}), pack) == set()

	# Without a bound in the table any severity goes.
	inconsistent_paths(review_with({"verdict": "REJECT", "defects": [s1_defect], "gates": []})) == set()
}

test_reason_names_the_packs_gate if {
	r := [x | some x in reasons_with(review_with({"verdict": "REVISE", "gates": []}), with_verdicts({"gate": "CTRL-4"})); x.code == "VERDICT_INCONSISTENT"][0]
	r.gate == "CTRL-4"
}

# Only reviews: an approval or a handoff carries no verdict.
test_other_kinds_twin if {
	clean(approval_input)
	core.review_refused with input as review_with({"verdict": "REVISE", "gates": []})
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
	not core.review_refused with input as review_input
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
}

# A pack without the table is refused (CONTRACT_MISSING), and the rule still reads it on
# the strictest terms.
test_missing_verdicts_table if {
	pack := object.remove(fixture_pack, ["verdicts"])
	rs := reasons_with(review_with({"defects": [s1_defect], "gates": []}), pack)
	{r.code | some r in rs} == {"CONTRACT_MISSING", "VERDICT_INCONSISTENT"}
	{r.path | some r in rs; r.code == "VERDICT_INCONSISTENT"} == {"defects[0]"}
}

test_defect_id_twice_in_one_review if {
	other := object.union(s1_defect, {"artifact": "BRIEF", "check": "QG-2"})
	inp := review_with({"verdict": "REVISE", "defects": [s1_defect, other], "gates": [{"id": "QG-1", "passed": false}, {"id": "QG-2", "passed": false}]})
	r := reason_with_code(inp, "ID_NOT_UNIQUE")
	r.path == "defects[1].id"
	r.title == "Defect id used twice in one review"
	core.review_refused with input as inp
		with data.handoff.testpack.contract as fixture_pack
		with data.handoff.core.contract as guardrails
}

test_defect_id_twice_twin_distinct_ids if {
	other := object.union(s1_defect, {"id": "D-2", "artifact": "BRIEF", "check": "QG-2"})
	clean(review_with({"verdict": "REVISE", "defects": [s1_defect, other], "gates": [{"id": "QG-1", "passed": false}, {"id": "QG-2", "passed": false}]}))
}
