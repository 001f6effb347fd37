# The receiving agent's check and the internal review: accept the edge, or return every
# failed artifact to its producer with each failed item and its reason.
package handoff.video_test

act3_drags := defect("D-1", "A6", "第三幕节奏拖沓，建议压缩")

# Seed example 质量门失败: the director finds humanize_dialogue_passed false and act 3
# dragging; A6 returns to the screenwriter with both items and their reasons.
test_seed_example_a6_returned_to_screenwriter if {
	req := with_defects(script_check("REVISE", [att("humanize_dialogue_passed", "director", false, "对话仍有AI味，请用 humanize-dialogue 重新处理")]), [act3_drags])
	d := decide(req, st_script_intake)
	d.outcome == "revise"
	codes(d) == {"QUALITY_GATE_FAILED", "REVIEW_DEFECT"}
	d.status_after == "SCRIPTWRITING"
	d.revise == [{"artifact": "A6", "producer": "screenwriter", "defects": ["D-1"]}]
	status_events(d) == {"A6 v1 revision_required"}
	open_defects(d) == {"D-1"}
	"returns/A6 1" in counter_events(d)
	next_agents(d) == {"screenwriter"}
	failed := d.next[0].context.must_know.SCRIPT_CHECK.failed
	{f.gate | some f in failed; f.code == "QUALITY_GATE_FAILED"} == {"humanize_dialogue_passed"}
	some f in failed
	f.code == "REVIEW_DEFECT"
	contains(f.message, "第三幕节奏拖沓")
	not d.next[0].context.must_know.SCRIPT_CHECK.attestations
	c := recorded_content(d, "SCRIPT_CHECK")
	c.result == "return"
	c.returned == [ref("A6", 1)]
	{i.id: i.passed | some i in c.items} == {
		"sw-dir.a2_complete": true, "sw-dir.a3_complete": true,
		"sw-dir.a6_draft_complete": true, "sw-dir.humanize_dialogue_invoked": false,
	}
}

test_review_defect_returns_the_artifact if {
	d := decide(with_defects(script_check("REVISE", humanized), [defect("D-2", "A3", "第二幕缺少情绪转折点")]), st_script_intake)
	codes(d) == {"REVIEW_DEFECT"}
	d.revise == [{"artifact": "A3", "producer": "screenwriter", "defects": ["D-2"]}]
	status_events(d) == {"A3 v1 revision_required"}
}

test_review_defect_twin_none if {
	d := decide(script_check("ACCEPT", humanized), st_script_intake)
	not "REVIEW_DEFECT" in codes(d)
}

test_failed_gate_result_from_the_reviewer if {
	req := with_gates(storyboard_check("REVISE"), [{"id": "dir-vfx.quality_gates_passed", "passed": false, "reason": "SH4 仰拍与情绪节奏不符"}])
	d := decide(req, st_storyboard_intake)
	codes(d) == {"QUALITY_GATE_FAILED"}
	{r.artifact | some r in d.revise} == {"A4", "A5"}
	d.status_after == "STORYBOARDING"
}

# --- a verdict agrees with what the review reports (core's rule, the video table) ---------

# An ACCEPT that lists a defect, even an S1, contradicts itself: it is refused, not read
# as a return (nor the defect as passed).
test_accept_with_a_defect_is_inconsistent if {
	every severity in ["S1", "S2", "S3"] {
		minor := object.union(defect("D-2", "A3", "第二幕缺少情绪转折点"), {"severity": severity})
		d := decide(with_defects(script_check("ACCEPT", humanized), [minor]), st_script_intake)
		codes(d) == {"VERDICT_INCONSISTENT"}
		d.outcome == "block"
		d.reasons[0].path == "defects[0]"
		d.reasons[0].title == "Review contradicts itself"
		count(d.events) == 0
	}
}

test_accept_with_a_failed_attestation_is_inconsistent if {
	d := decide(brief_check("ACCEPT", [att("creative_brief_clear", "screenwriter", false, "核心创意不清晰")]), st_brief_intake)
	"VERDICT_INCONSISTENT" in codes(d)
	d.outcome == "block"
	paths_of(d, "VERDICT_INCONSISTENT") == {"attestations[0]"}
}

test_accept_with_a_failed_gate_is_inconsistent if {
	req := with_gates(storyboard_check("ACCEPT"), [{"id": "dir-vfx.quality_gates_passed", "passed": false, "reason": "SH4 仰拍与情绪节奏不符"}])
	d := decide(req, st_storyboard_intake)
	codes(d) == {"VERDICT_INCONSISTENT"}
	d.reasons[0].path == "gates[0]"
}

# The twin: the same failed attestation with a return is a return.
test_return_with_a_failed_attestation_twin if {
	d := decide(brief_check("REVISE", [att("creative_brief_clear", "screenwriter", false, "核心创意不清晰")]), st_brief_intake)
	not "VERDICT_INCONSISTENT" in codes(d)
	d.outcome == "revise"
}

test_defect_failing_a_passed_gate_is_inconsistent if {
	req := with_gates(with_defects(storyboard_check("REVISE"), [object.union(defect("D-3", "A5", "SH4 仰拍与情绪节奏不符"), {"check": "timestamps_correct"})]), [{"id": "timestamps_correct", "passed": true}])
	d := decide(req, st_storyboard_intake)
	"VERDICT_INCONSISTENT" in codes(d)
	paths_of(d, "VERDICT_INCONSISTENT") == {"defects[0].check"}
}

test_gate_passed_and_failed_is_inconsistent if {
	req := with_gates(storyboard_check("REVISE"), [{"id": "timestamps_correct", "passed": false, "reason": "SH5 太短"}, {"id": "timestamps_correct", "passed": true}])
	d := decide(req, st_storyboard_intake)
	"VERDICT_INCONSISTENT" in codes(d)
	paths_of(d, "VERDICT_INCONSISTENT") == {"gates"}
}

# A return lists its failed items itself (列出具体未通过项): a REVISE with none is
# refused, whatever the policy finds.
test_return_without_any_failed_item if {
	d := decide(brief_check("REVISE", clear), st_brief_intake)
	codes(d) == {"VERDICT_INCONSISTENT"}
	paths_of(d, "VERDICT_INCONSISTENT") == {"verdict"}
	d.outcome == "block"
}

test_failed_gate_result_without_reason if {
	d := decide(with_gates(storyboard_check("REVISE"), [{"id": "timestamps_correct", "passed": false}]), st_storyboard_intake)
	codes(d) == {"RETURN_UNJUSTIFIED"}
	paths_of(d, "RETURN_UNJUSTIFIED") == {"gates[0].reason"}
}

test_return_unjustified_twin if {
	d := decide(with_defects(brief_check("REVISE", clear), [defect("D-3", "A1", "缺少竖屏参考")]), st_brief_intake)
	not "RETURN_UNJUSTIFIED" in codes(d)
	d.outcome == "revise"
}

test_review_scope_is_the_edge if {
	d := decide(review("screenwriter", "ACCEPT", [ref("A1", 1)], clear), st_brief_intake)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_review_defect_outside_scope if {
	d := decide(with_defects(script_check("REVISE", humanized), [defect("D-4", "A1", "简报不清")]), st_script_intake)
	"REVIEW_SCOPE_INVALID" in codes(d)
}

test_gate_result_outside_the_edge if {
	d := decide(with_gates(storyboard_check("ACCEPT"), [{"id": "creative_brief_clear", "passed": true}]), st_storyboard_intake)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_review_scope_twin if {
	d := decide(with_gates(storyboard_check("ACCEPT"), [{"id": "timestamps_correct", "passed": true}]), st_storyboard_intake)
	count(d.reasons) == 0
}

test_internal_review_must_judge_the_edit_plan if {
	d := decide(review("internal-review-lead", "ACCEPT", [ref("A5", 1)], []), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_reject_is_no_check_verdict if {
	d := decide(with_defects(brief_check("REJECT", clear), [defect("D-4", "A1", "目标受众未定义")]), st_brief_intake)
	"VERDICT_NOT_SUPPORTED" in codes(d)
	d.outcome == "block"
}

test_reassign_is_no_internal_verdict if {
	d := decide(internal_review("REASSIGN", [defect("IR-1", "A5", "品牌标识出现太晚")]), st_internal)
	"VERDICT_NOT_SUPPORTED" in codes(d)
	d.outcome == "block"
}

test_verdict_twin_escalate if {
	d := decide(brief_check("ESCALATE", clear), st_brief_intake)
	not "VERDICT_NOT_SUPPORTED" in codes(d)
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	next_agents(d) == {"production_lead"}
	recorded_content(d, "BRIEF_CHECK").result == "escalate"
}

# --- cycles -------------------------------------------------------------------------------------

st_script_intake_returned(n) := with_state(st_script_intake, {"counters": {"returns/A6": n}})

test_fourth_return_escalates if {
	d := decide(script_check("REVISE", [att("humanize_dialogue_passed", "director", false, "仍有AI腔")]), st_script_intake_returned(3))
	codes(d) == {"QUALITY_GATE_FAILED", "REVIEW_CYCLES_EXHAUSTED"}
	d.outcome == "await_human"
	d.status_after == "ESCALATED"
	d.requires_human_review == true
	next_agents(d) == {"production_lead"}
	"A6 v1 revision_required" in status_events(d)
}

test_third_return_twin if {
	d := decide(script_check("REVISE", [att("humanize_dialogue_passed", "director", false, "仍有AI腔")]), st_script_intake_returned(2))
	not "REVIEW_CYCLES_EXHAUSTED" in codes(d)
	d.outcome == "revise"
}

test_handoff_return_escalates_when_exhausted if {
	st := with_state(st_script_a3, {"counters": {"returns/A6": 3}})
	d := decide(without_attestations(deliver("A6")), st)
	codes(d) == {"ATTESTATION_MISSING", "REVIEW_CYCLES_EXHAUSTED"}
	d.status_after == "ESCALATED"
}

test_missing_cycle_limit_blocks if {
	contract := object.union(object.remove(video_contract, ["limits"]), {"limits": object.remove(video_contract.limits, ["max_review_cycles"])})
	d := decide_with(script_check("REVISE", [att("humanize_dialogue_passed", "director", false, "仍有AI腔")]), st_script_intake, contract)
	d.outcome == "block"
	"CONTRACT_MISSING" in codes(d)
}

# --- the internal review ---------------------------------------------------------------------

test_internal_review_returns_an_approved_artifact if {
	d := decide(internal_review("REVISE", [defect("IR-1", "A5", "品牌标识出现太晚")]), st_internal)
	codes(d) == {"REVIEW_DEFECT"}
	d.outcome == "revise"
	d.status_after == "STORYBOARDING"
	next_agents(d) == {"director"}
	d.revise == [{"artifact": "A5", "producer": "director", "defects": ["IR-1"]}]
	open_defects(d) == {"IR-1"}
	status_events(d) == set()
	c := recorded_content(d, "REVIEW_OPINION")
	c.result == "return"
	c.returned == [ref("A5", 1)]
	d.next[0].context.must_know.REVIEW_OPINION.defects == [defect("IR-1", "A5", "品牌标识出现太晚")]
}

test_internal_review_returns_to_the_most_upstream_producer if {
	req := with_defects(review("internal-review-lead", "REVISE", [ref("EDIT_PLAN", 1), ref("A5", 1), ref("A6", 1)], []), [defect("IR-1", "A5", "品牌标识出现太晚"), defect("IR-2", "A6", "结尾台词过长"), defect("IR-3", "EDIT_PLAN", "转场太多")])
	d := decide(req, st_internal)
	d.status_after == "SCRIPTWRITING"
	next_agents(d) == {"screenwriter"}
	{r.artifact | some r in d.revise} == {"A5", "A6", "EDIT_PLAN"}
	status_events(d) == {"EDIT_PLAN v1 revision_required"}
}

test_internal_review_without_defect_is_no_return if {
	d := decide(internal_review("REVISE", []), st_internal)
	codes(d) == {"VERDICT_INCONSISTENT"}
}

test_internal_review_attestation_invalid if {
	d := decide(object.union(internal_review("ACCEPT", []), {"attestations": [att("platform_language_correct", "internal-review-lead", true, "")]}), st_internal)
	codes(d) == {"ATTESTATION_INVALID"}
}

# The receiving agent cannot wave an incomplete artifact through: the policy recomputes
# every machine gate at the check, whatever the verdict.
test_receiving_agent_cannot_accept_an_incomplete_artifact if {
	st := with_version(st_brief_intake, "A1", [version_with("A1", 1, "under_review", patch(a1, "/key_message", ""), {})])
	d := decide(brief_check("ACCEPT", clear), st)
	codes(d) == {"ARTIFACT_INCOMPLETE"}
	paths_of(d, "ARTIFACT_INCOMPLETE") == {"artifacts.A1.v1.content.key_message"}
	d.outcome == "revise"
	d.status_after == "CREATIVE_DIRECTION"
	recorded_content(d, "BRIEF_CHECK").result == "return"
}

# A second pass: A2 and A3 were accepted before; returning A2 now opens a defect that
# marks the approved version as returned (approved versions never change status back).
test_check_returns_an_approved_artifact_with_a_defect if {
	st := with_version(with_version(with_version(st_script_intake, "A2", [version("A2", 1, "approved")]), "A3", [version("A3", 1, "approved")]), "A6", [version("A6", 1, "superseded"), version("A6", 2, "under_review")])
	req := with_gates(review("director", "REVISE", [ref("A2", 1), ref("A3", 1), ref("A6", 2)], humanized), [{"id": "sw-dir.a2_complete", "passed": false, "reason": "阿婆的外形与A4茶园场景不符"}])
	d := decide(req, st)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.revise == [{"artifact": "A2", "producer": "screenwriter", "defects": ["SCRIPT_CHECK@1/A2"]}]
	open_defects(d) == {"SCRIPT_CHECK@1/A2"}
	status_events(d) == set()
	"returns/A2 1" in counter_events(d)
}
