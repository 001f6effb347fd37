# A review's claims are checked against the workflow: a failed gate result fails what it
# names at the internal review as at a check; a defect's origin, check and id refer to
# what the workflow records; an attestation names the artifact and the time it judged.
package handoff.video_test

# --- the internal review does not pass what it fails --------------------------------------

late_logo := {"id": "timestamps_correct", "passed": false, "reason": "SH5 品牌定格不足2秒，结尾节奏需重排"}

# An ACCEPT with a failed gate contradicts itself (core's rule): refused.
test_internal_review_accept_with_a_failed_gate_is_inconsistent if {
	d := decide(with_gates(internal_review("ACCEPT", []), [late_logo]), st_internal)
	codes(d) == {"VERDICT_INCONSISTENT"}
	d.outcome == "block"
}

test_internal_review_return_with_a_failed_gate if {
	d := decide(with_gates(internal_review("REVISE", []), [late_logo]), st_internal)
	codes(d) == {"QUALITY_GATE_FAILED"}
	d.outcome == "revise"
	d.status_after == "STORYBOARDING"
	d.revise == [{"artifact": "A5", "producer": "director", "defects": ["REVIEW_OPINION@1/A5"]}]
	recorded_content(d, "REVIEW_OPINION").result == "return"
	paths_of(d, "QUALITY_GATE_FAILED") == {"gates[0]"}
}

test_internal_review_accept_with_passed_gates_twin if {
	d := decide(with_gates(internal_review("ACCEPT", []), [object.union(late_logo, {"passed": true})]), st_internal)
	count(d.reasons) == 0
	d.status_after == "CLIENT_REVIEW"
	recorded_content(d, "REVIEW_OPINION").result == "pass"
}

test_internal_review_gate_of_an_artifact_it_does_not_judge if {
	d := decide(with_gates(internal_review("ACCEPT", []), [{"id": "scene_headings_correct", "passed": true}]), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
	paths_of(d, "REVIEW_SCOPE_INVALID") == {"gates[0].id"}
}

# --- a defect's origin is upstream and recorded --------------------------------------------

with_origin(d, origin) := object.union(d, {"origin": origin})

test_defect_origin_not_an_artifact_type if {
	d := decide(internal_review("REVISE", [with_origin(defect("IR-1", "A5", "镜头节奏拖沓"), "A9")]), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
	paths_of(d, "REVIEW_SCOPE_INVALID") == {"defects[0].origin"}
	count(d.events) == 0
}

test_defect_origin_downstream if {
	d := decide(internal_review("REVISE", [with_origin(defect("IR-1", "A5", "镜头节奏拖沓"), "EDIT_PLAN")]), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_defect_origin_itself if {
	d := decide(internal_review("REVISE", [with_origin(defect("IR-1", "A5", "镜头节奏拖沓"), "A5")]), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_defect_origin_not_recorded if {
	st := object.union(object.remove(st_internal, ["artifacts"]), {"artifacts": object.remove(st_internal.artifacts, ["A3"])})
	d := decide(internal_review("REVISE", [with_origin(defect("IR-1", "A5", "镜头节奏拖沓"), "A3")]), st)
	"REVIEW_SCOPE_INVALID" in codes(d)
	paths_of(d, "REVIEW_SCOPE_INVALID") == {"defects[0].origin"}
}

test_defect_origin_upstream_twin if {
	every origin in ["A4", "A3", "A1"] {
		d := decide(internal_review("REVISE", [with_origin(defect("IR-1", "A5", "镜头节奏拖沓"), origin)]), st_internal)
		codes(d) == {"REVIEW_DEFECT"}
	}
}

# --- a defect's check names a gate or item of its artifact ---------------------------------

test_defect_check_names_a_policy_record if {
	d := decide(internal_review("REVISE", [object.union(defect("IR-1", "A5", "镜头节奏拖沓"), {"check": "client_review"})]), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
	paths_of(d, "REVIEW_SCOPE_INVALID") == {"defects[0].check"}
}

test_defect_check_of_another_artifact if {
	d := decide(internal_review("REVISE", [object.union(defect("IR-1", "A5", "镜头节奏拖沓"), {"check": "cd-sw.references_substantive"})]), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_defect_check_twin if {
	every check in ["dir-vfx.emotion_curve_mapped", "timestamps_correct", "dir-vfx.a5_complete"] {
		d := decide(internal_review("REVISE", [object.union(defect("IR-1", "A5", "镜头节奏拖沓"), {"check": check})]), st_internal)
		codes(d) == {"REVIEW_DEFECT"}
	}
}

# --- a defect id names one defect ---------------------------------------------------------

# An open defect of A4 recorded under IR-1: a new IR-1 for A5 would overwrite it, and A4
# would no longer stand returned.
st_internal_with_defect := with_state(st_internal, {"defects": {"IR-1": {"status": "open", "defect": defect("IR-1", "A4", "S2 场景描述缺少时间")}}})

test_defect_id_already_recorded if {
	d := decide(internal_review("REVISE", [defect("IR-1", "A5", "镜头节奏拖沓")]), st_internal_with_defect)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
	paths_of(d, "REVIEW_SCOPE_INVALID") == {"defects[0].id"}
	count(d.events) == 0
}

test_defect_id_twice_in_one_review if {
	d := decide(internal_review("REVISE", [defect("IR-2", "A5", "镜头节奏拖沓"), defect("IR-2", "EDIT_PLAN", "转场太多")]), st_internal)
	codes(d) == {"ID_NOT_UNIQUE"}
	paths_of(d, "ID_NOT_UNIQUE") == {"defects[1].id"}
	d.reasons[0].title == "Defect id used twice in one review"
}

test_defect_id_in_the_policys_form if {
	d := decide(internal_review("REVISE", [defect("REVIEW_OPINION@2/A5", "A5", "镜头节奏拖沓")]), st_internal)
	codes(d) == {"REVIEW_SCOPE_INVALID"}
}

test_defect_id_twin_new if {
	d := decide(internal_review("REVISE", [defect("IR-2", "A5", "镜头节奏拖沓")]), st_internal_with_defect)
	codes(d) == {"REVIEW_DEFECT"}
}

# --- an attestation names its artifact and a time that holds --------------------------------

test_attestation_for_another_artifact if {
	d := decide(script_check("ACCEPT", [object.union(humanized[0], {"artifact": "A2"})]), st_script_intake)
	codes(d) == {"ATTESTATION_INVALID"}
	paths_of(d, "ATTESTATION_INVALID") == {"attestations[0]"}
}

test_attestation_in_the_future if {
	d := decide(script_check("ACCEPT", [object.union(humanized[0], {"at": "2026-04-02T11:00:00Z"})]), st_script_intake)
	codes(d) == {"ATTESTATION_INVALID"}
}

test_attestation_before_the_version_it_judges if {
	d := decide(script_check("ACCEPT", [object.union(humanized[0], {"at": "2026-04-01T10:00:00Z"})]), st_script_intake)
	codes(d) == {"ATTESTATION_INVALID"}
}

test_skill_run_attested_in_the_future if {
	req := object.union(deliver("A6"), {"attestations": [object.union(humanize, {"at": "2026-05-01T00:00:00Z"})]})
	d := decide(req, st_script_a3)
	codes(d) == {"ATTESTATION_INVALID"}
}

test_attestation_artifact_and_time_twin if {
	d := decide(script_check("ACCEPT", [object.union(humanized[0], {"artifact": "A6", "at": "2026-04-02T10:00:30Z"})]), st_script_intake)
	count(d.reasons) == 0
	d.status_after == "STORYBOARDING"
}
