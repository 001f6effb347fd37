# The nine-step pipeline through the Orchestrator: every step's handoff is accepted,
# records its output with its AgentOutputVersion, and names the next allowed agent (or the
# person at an approval gate) with a context package of references.
package handoff.assessment_test

test_start_records_the_scope_and_routes_the_knowledge_steward if {
	d := decide(start, state("INTAKE", {}))
	d.outcome == "allow"
	d.status_after == "KNOWLEDGE"
	next_agents(d) == {"knowledge_steward"}
	recorded(d) == {"ASSESSMENT_SCOPE v1 approved"}
	record_content(d, "ASSESSMENT_SCOPE").trace_id == trace
	record_content(d, "ASSESSMENT_SCOPE").frameworks == ["ISO-27001-2022", "LGPD"]
	d.next[0].context.must_know.artifacts[0].ref.type == "ASSESSMENT_SCOPE"
}

test_knowledge_package_goes_to_the_control_analyst if {
	d := decide(knowledge_handoff, st_knowledge)
	d.outcome == "allow"
	d.status_after == "CONTROLS"
	next_agents(d) == {"scf_control_analyst"}
	recorded(d) == {"KNOWLEDGE_PACKAGE v1 draft"}
	"handoff_accepted" in event_types(d)
}

test_every_step_routes_the_next_agent if {
	steps := [
		[controls_handoff(controls), st_controls, "MAPPING", "framework_mapper"],
		[mapping_handoff(mapping), st_mapping, "SOA", "soa_architect"],
		[evidence_handoff(evidence), st_evidence, "GAPS", "gap_analyst"],
		[maturity_handoff(maturity), st_maturity, "POAM_PLANNING", "poam_planner"],
		[poam_handoff(poam), st_poam, "REPORTING", "report_writer"],
	]
	every step in steps {
		[r, st, status, agent] := step
		d := decide(r, st)
		d.outcome == "allow"
		d.status_after == status
		next_agents(d) == {agent}
		count(d.reasons) == 0
	}
}

test_gated_outputs_stop_at_their_gate if {
	steps := [
		[soa_handoff(soa), st_soa, "SOA_APPROVAL", "assessment_reviewer", "STATEMENT_OF_APPLICABILITY v1 under_review"],
		[gap_handoff(gaps), st_gaps, "FINDINGS_APPROVAL", "assessment_reviewer", "GAP_ANALYSIS v1 under_review"],
		[report_handoff(report), st_reporting, "REPORT_APPROVAL", "assessment_lead", "ASSESSMENT_REPORT v1 under_review"],
	]
	every step in steps {
		[r, st, status, role, rec] := step
		d := decide(r, st)
		d.outcome == "await_human"
		d.requires_human_review == true
		d.status_after == status
		next_agents(d) == {role}
		recorded(d) == {rec}
	}
}

test_output_version_carries_agent_output_version_and_observability if {
	d := decide(gap_handoff(gaps), st_gaps)
	some e in d.events
	e.type == "artifact_recorded"
	m := e.meta
	every f in [
		"version_id", "previous_version_id", "handoff_id", "agent_run_id", "artifact_refs", "input_hash", "output_hash",
		"validation_status", "trace_id", "source_agent", "target_agent", "tenant_id", "organization_id", "assessment_id",
		"task_type", "status", "created_at", "latency_ms", "retry_count", "handoff_type",
	] {
		object.get(m, f, "absent") != "absent"
	}
	m.version_id == "gap-analysis@v1"
	m.previous_version_id == null
	m.validation_status == "pending_human_validation"
	m.latency_ms == 120000
	m.artifact_refs == [ref("STATEMENT_OF_APPLICABILITY", 1), ref("EVIDENCE_ASSESSMENT", 1)]
	m.output_hash == hash(json.marshal(gaps))
}

test_a_correction_links_its_previous_version if {
	st := add(st_gaps, [version("GAP_ANALYSIS", 1, "revision_required")])
	st2 := with_state(add(st, [rework_order("gap_analyst", "GAPS", "GAP_ANALYSIS")]), {"counters": {"rework_pending/gap_analyst": 1}})
	r := gap_handoff(gaps)
	inputs := array.concat(r.input_artifacts, [ref("REWORK_ORDER", 1)])
	r2 := with_req(r, {"output": output("GAP_ANALYSIS", 2, patch_item(gaps, "findings", "finding_id", "F-03", {"rationale": "Backups run; restore never tested"})), "input_artifacts": inputs, "context": context_for(st2, inputs)})
	d := decide(r2, st2)
	d.outcome == "await_human"
	some e in d.events
	e.type == "artifact_recorded"
	e.meta.previous_version_id == "gap-analysis@v1"
	status_events(d) == {"GAP_ANALYSIS v1 superseded"}
	counters(d)["rework_pending/gap_analyst"] == 0
}

test_next_context_holds_references_and_statuses_only if {
	d := decide(evidence_handoff(evidence), st_evidence)
	ctx := d.next[0].context.must_know
	object.keys(ctx) == {"artifacts", "previous_output", "workflow_state", "approval_status", "validation_status", "conflict_flags", "scf_controls"}
	ctx.previous_output.ref == {"id": "evidence-assessment", "type": "EVIDENCE_ASSESSMENT", "version": 1, "hash": hash(json.marshal(evidence))}
	ctx.approval_status == {"STATEMENT_OF_APPLICABILITY": "approved"}
	ctx.scf_controls == ["BCD-11", "GOV-01", "IAC-06", "MON-01"]
	every a in ctx.artifacts {
		object.keys(a) == {"ref", "status"}
	}
}

test_evidence_analyst_receives_kb_candidate_ids if {
	d := decide(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), st_soa_approval)
	d.next[0].agent == "evidence_analyst"
	d.next[0].context.must_know.kb_evidence_candidates == ["kb-cand-01", "kb-cand-02", "kb-cand-03", "kb-cand-04"]
}

test_cancel_by_the_lead if {
	d := decide(cancel(lead), st_gaps)
	d.outcome == "allow"
	d.status_after == "CANCELLED"
}

test_cancel_by_the_host if {
	d := decide(cancel(system), st_gaps)
	d.status_after == "CANCELLED"
}
