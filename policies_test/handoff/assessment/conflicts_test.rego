# Conflicts: recorded with the seed's conflict_event fields, both outputs preserved, the
# advance blocked, no automatic winner; only an authorized person resolves, the decision
# is recorded and a new handoff follows.
package handoff.assessment_test

mon_flag := flag("divergent_status", "MON-01", ref("EVIDENCE_ASSESSMENT", 1), [draft_source])

flagged_gap := flagged(gap_handoff(mon_implemented), [mon_flag])

test_conflict_detected if {
	d := decide(flagged_gap, st_gaps)
	d.outcome == "await_human"
	codes(d) == {"CONFLICT_DETECTED"}
	d.status_after == "CONFLICT_REVIEW"
	d.requires_human_review == true
	d.conflict_id == "h-gap_analyst-gap_analysis-1-c1"
	next_agents(d) == {"assessment_reviewer"}
	recorded(d) == {"GAP_ANALYSIS v1 under_review", "CONFLICT_EVENT v1 approved"}
	some e in d.events
	e.type == "conflict_opened"
	e.artifacts == [ref("EVIDENCE_ASSESSMENT", 1), {"id": "gap-analysis", "type": "GAP_ANALYSIS", "version": 1, "hash": hash(json.marshal(flagged_gap.output.content))}]
	not "conflict_resolved" in event_types(d)
}

test_conflict_event_has_the_seed_fields if {
	c := record_content(decide(flagged_gap, st_gaps), "CONFLICT_EVENT")
	every f in [
		"conflict_id", "tenant_id", "organization_id", "assessment_id", "source_handoff_id",
		"conflicting_artifact_ids", "conflict_type", "severity", "requires_human_review", "trace_id",
	] {
		object.get(c, f, null) != null
	}
	c.conflicting_artifact_ids == ["evidence-assessment@v1", "gap-analysis@v1"]
	c.requires_human_review == true
	c.resume_status == "FINDINGS_APPROVAL"
	c.redo_status == "GAPS"
}

test_conflict_twin_consistent_output if {
	d := decide(gap_handoff(gaps), st_gaps)
	not "CONFLICT_DETECTED" in codes(d)
	d.status_after == "FINDINGS_APPROVAL"
}

test_conflict_blocks_handoffs_and_approvals if {
	d := decide(maturity_handoff(maturity), st_conflict)
	d.outcome == "block"
	"CONFLICT_OPEN" in codes(d)
	d2 := decide(approval(reviewer, "APPROVE", "CONFLICT_REVIEW", [ref("GAP_ANALYSIS", 1)]), st_conflict)
	d2.outcome == "block"
	"CONFLICT_OPEN" in codes(d2)
}

# st_resolved: the conflict was resolved by rejecting the flagged output; the Gap
# Analyst owes a conflict-resolution handoff.
st_resolved := with_state(
	add(
		add(set_status(st_gaps, "GAPS"), [version("GAP_ANALYSIS", 1, "rejected")]),
		[object.union(conflict_record, {"producer": "orchestrator"})],
	),
	{
		"conflicts": {conflict_id: object.union(st_conflict.conflicts[conflict_id], {"status": "resolved"})},
		"open_conflicts": 0,
		"counters": {"resolution_pending/gap_analyst": 1},
	},
)

resolution_record := object.union(version_with("RESOLUTION_RECORD", 1, "approved", {"conflict_id": conflict_id}, {}), {"producer": "orchestrator"})

redo(content, flags) := r if {
	st := add(st_resolved, [resolution_record])
	inputs := array.concat(gap_handoff(gaps).input_artifacts, [ref("RESOLUTION_RECORD", 1)])
	base := with_req(gap_handoff(content), {"handoff_type": "conflict_resolution", "output": output("GAP_ANALYSIS", 2, content), "input_artifacts": inputs, "context": context_for(st, inputs)})
	r := [flagged(base, flags), st]
}

test_conflict_repeated_escalates if {
	[r, st] := redo(patch_item(mon_implemented, "findings", "finding_id", "F-04", {"rationale": "SIEM runbook in force"}), [mon_flag])
	d := decide(r, st)
	d.outcome == "await_human"
	codes(d) == {"CONFLICT_REPEATED", "HUMAN_REVIEW_REQUIRED"}
	d.status_after == "HUMAN_REVIEW"
	recorded(d) == {"ESCALATION_RECORD v1 approved"}
	not "conflict_opened" in event_types(d)
	record_content(d, "ESCALATION_RECORD").from_status == "GAPS"
}

test_conflict_repeated_twin_another_conflict if {
	g := patch_item(gaps, "findings", "finding_id", "F-02", {"status": "not_applicable"})
	f := flag("contradicts_approved_artifact", "IAC-06", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "scf-2025.2-IAC-06", "kind": "scf_data"}])
	[r, st] := redo(g, [f])
	d := decide(r, st)
	not "CONFLICT_REPEATED" in codes(d)
	codes(d) == {"CONFLICT_DETECTED"}
}

test_conflict_resolution_handoff_accepted if {
	[r, st] := redo(gaps, [])
	d := decide(with_req(r, {"requires_validation": false, "output": object.union(r.output, {"content": gaps})}), st)
	d.status_after == "FINDINGS_APPROVAL"
	counters(d)["resolution_pending/gap_analyst"] == 0
}

test_resolution_keeps_the_earlier_version if {
	d := decide(resolution(reviewer, conflict_id, ref("EVIDENCE_ASSESSMENT", 1)), st_conflict)
	d.outcome == "allow"
	d.status_after == "GAPS"
	next_agents(d) == {"gap_analyst"}
	status_events(d) == {"GAP_ANALYSIS v1 rejected"}
	counters(d)["resolution_pending/gap_analyst"] == 1
	c := record_content(d, "RESOLUTION_RECORD")
	c.decision == "keep_earlier_version"
	c.reviewer == "ana.souza"
	c.new_handoff.handoff_type == "conflict_resolution"
	c.new_handoff.target_agent == "gap_analyst"
	some e in d.events
	e.type == "conflict_resolved"
	e.by == "ana.souza"
}

test_resolution_keeps_the_flagged_output if {
	d := decide(resolution(reviewer, conflict_id, ref("GAP_ANALYSIS", 1)), st_conflict)
	d.outcome == "await_human"
	d.status_after == "FINDINGS_APPROVAL"
	status_events(d) == set()
	record_content(d, "RESOLUTION_RECORD").decision == "keep_flagged_output"
}

test_resolution_rejects_without_choosing if {
	d := decide(resolution(reviewer, conflict_id, null), st_conflict)
	d.status_after == "GAPS"
	record_content(d, "RESOLUTION_RECORD").decision == "reject_flagged_output"
}

test_resolution_waits_for_the_other_conflicts if {
	other := object.union(st_conflict.conflicts[conflict_id], {"id": "h-gap-1-c2"})
	st := with_state(st_conflict, {"conflicts": object.union(st_conflict.conflicts, {"h-gap-1-c2": other}), "open_conflicts": 2})
	d := decide(resolution(reviewer, conflict_id, ref("GAP_ANALYSIS", 1)), st)
	d.outcome == "await_human"
	d.status_after == "CONFLICT_REVIEW"
	next_agents(d) == {"assessment_reviewer"}
}

test_resolution_invalid_side if {
	d := decide(resolution(reviewer, conflict_id, ref("STATEMENT_OF_APPLICABILITY", 1)), st_conflict)
	codes(d) == {"RESOLUTION_INVALID"}
}

test_resolution_twin_valid_side if {
	d := decide(resolution(reviewer, conflict_id, ref("EVIDENCE_ASSESSMENT", 1)), st_conflict)
	not "RESOLUTION_INVALID" in codes(d)
}

test_resolution_only_by_an_authorized_person if {
	d := decide(resolution(agent("gap_analyst"), conflict_id, ref("GAP_ANALYSIS", 1)), st_conflict)
	"UNAUTHORIZED_SUBJECT" in codes(d)
	d2 := decide(resolution({"type": "human", "id": "visitor"}, conflict_id, ref("GAP_ANALYSIS", 1)), st_conflict)
	"UNAUTHORIZED_SUBJECT" in codes(d2)
}

test_evidence_analyst_conflicts_with_the_approved_soa if {
	e := patch_item(evidence, "assessments", "control_id", "MON-01", {"rationale": "Monitoring is outsourced to a managed SOC; the SoA assumed an in-house SIEM"})
	f := flag("contradicts_approved_artifact", "MON-01", ref("STATEMENT_OF_APPLICABILITY", 1), [{"id": "scf-2025.2-MON-01", "kind": "scf_data"}])
	d := decide(flagged(evidence_handoff(e), [f]), st_evidence)
	d.outcome == "await_human"
	codes(d) == {"CONFLICT_DETECTED"}
	record_content(d, "CONFLICT_EVENT").conflicting_artifact_ids == ["soa@v1", "evidence-assessment@v1"]
	record_content(d, "CONFLICT_EVENT").resume_status == "GAPS"
}
