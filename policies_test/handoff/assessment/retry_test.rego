# Retry strategy and loop prevention: retries need a reason and a type that fits the
# failure, are counted and recorded, hand the agent a new context and are bounded;
# limits escalate to human review; plain repetitions are blocked.
package handoff.assessment_test

test_retry_granted if {
	d := decide(failure("evidence_analyst", "invalid_output", "schema"), st_evidence)
	d.outcome == "retry"
	d.status_after == "EVIDENCE"
	d.retry.attempt == 2
	d.retry.max_attempts == 3
	next_agents(d) == {"evidence_analyst"}
	counters(d) == {"retry/evidence_analysis": 1, "retry_pending/evidence_analysis": 1}
	c := record_content(d, "RETRY_RECORD")
	c.retry_type == "schema"
	c.attempt == 1
	c.exhausted == false
	c.trace_id == trace
	d.next[0].context.may_know.retry == {"count": 1, "type": "schema", "reason": "The output could not be used"}
}

test_restricted_retry_passes_references_only if {
	d := decide(failure("evidence_analyst", "invalid_output", "injection_restricted"), st_evidence)
	d.outcome == "retry"
	object.keys(d.next[0].context.must_know) == {"artifacts", "workflow_state", "approval_status"}
	record_content(d, "RETRY_RECORD").restricted == true
}

test_retry_invalid_type_for_the_class if {
	d := decide(failure("evidence_analyst", "timeout", "schema"), st_evidence)
	codes(d) == {"RETRY_INVALID"}
}

test_retry_invalid_clarification_without_conflict if {
	d := decide(failure("evidence_analyst", "invalid_output", "conflict_clarification"), st_evidence)
	codes(d) == {"RETRY_INVALID"}
}

test_retry_twin_type_fits if {
	d := decide(failure("evidence_analyst", "timeout", "tool_transient"), st_evidence)
	not "RETRY_INVALID" in codes(d)
	d.outcome == "retry"
	d.retry.delay_ms == 4000
}

test_retry_twin_clarification_with_conflict if {
	st := with_state(set_status(st_conflict, "GAPS"), {"conflicts": {conflict_id: object.union(st_conflict.conflicts[conflict_id], {"status": "resolved"})}, "open_conflicts": 0})
	d := decide(failure("gap_analyst", "invalid_output", "conflict_clarification"), st)
	not "RETRY_INVALID" in codes(d)
	d.outcome == "retry"
}

restricted_used := add(st_evidence, [object.union(version_with("RETRY_RECORD", 1, "approved", {"task": "evidence_analysis", "restricted": true, "retry_type": "injection_restricted", "exhausted": false}, {}), {"producer": "orchestrator"})])

test_restricted_retry_granted_once if {
	d := decide(failure("evidence_analyst", "invalid_output", "injection_restricted"), with_state(restricted_used, {"counters": {"retry/evidence_analysis": 1}}))
	d.outcome == "await_human"
	codes(d) == {"RETRY_EXHAUSTED", "HUMAN_REVIEW_REQUIRED"}
	d.status_after == "HUMAN_REVIEW"
}

test_restricted_retry_twin_first_time if {
	d := decide(failure("evidence_analyst", "invalid_output", "injection_restricted"), st_evidence)
	not "RETRY_EXHAUSTED" in codes(d)
}

test_retry_exhausted_escalates if {
	d := decide(failure("evidence_analyst", "invalid_output", "schema"), with_state(st_evidence, {"counters": {"retry/evidence_analysis": 2}}))
	d.outcome == "await_human"
	codes(d) == {"RETRY_EXHAUSTED", "HUMAN_REVIEW_REQUIRED"}
	d.status_after == "HUMAN_REVIEW"
	d.requires_human_review == true
	next_agents(d) == {"assessment_lead"}
	recorded(d) == {"ESCALATION_RECORD v1 approved", "RETRY_RECORD v1 approved"}
	record_content(d, "RETRY_RECORD").exhausted == true
	record_content(d, "ESCALATION_RECORD").from_status == "EVIDENCE"
}

test_not_retryable_escalates if {
	d := decide(failure("evidence_analyst", "authorization", "tool_transient"), st_evidence)
	codes(d) == {"NOT_RETRYABLE", "HUMAN_REVIEW_REQUIRED"}
	d.status_after == "HUMAN_REVIEW"
}

# st_retrying: the Evidence Analyst's schema retry is pending.
st_retrying := with_state(
	add(st_evidence, [object.union(version_with("RETRY_RECORD", 1, "approved", {"task": "evidence_analysis", "agent": "evidence_analyst", "restricted": false, "retry_type": "schema", "exhausted": false, "trace_id": trace}, {}), {"producer": "orchestrator"})]),
	{"counters": {"retry/evidence_analysis": 1, "retry_pending/evidence_analysis": 1}},
)

retry_handoff(info) := r if {
	inputs := array.concat(evidence_handoff(evidence).input_artifacts, [ref("RETRY_RECORD", 1)])
	r := with_req(evidence_handoff(evidence), {"handoff_type": "retry", "retry": info, "input_artifacts": inputs, "context": context_for(st_retrying, inputs)})
}

test_retried_handoff_accepted if {
	d := decide(retry_handoff({"count": 1, "type": "schema", "reason": "schema fixed"}), st_retrying)
	d.outcome == "allow"
	d.status_after == "GAPS"
	counters(d)["retry_pending/evidence_analysis"] == 0
	some e in d.events
	e.type == "artifact_recorded"
	e.meta.retry_count == 1
	e.meta.handoff_type == "retry"
}

test_retried_handoff_wrong_count if {
	d := decide(retry_handoff({"count": 2, "type": "schema", "reason": "schema fixed"}), st_retrying)
	codes(d) == {"RETRY_INVALID"}
}

test_retried_handoff_wrong_type if {
	d := decide(retry_handoff({"count": 1, "type": "missing_context", "reason": "schema fixed"}), st_retrying)
	codes(d) == {"RETRY_INVALID"}
}

test_retried_handoff_without_retry if {
	d := decide(without(retry_handoff({"count": 1, "type": "schema", "reason": "x"}), ["retry"]), st_retrying)
	codes(d) == {"RETRY_INVALID"}
}

test_retried_handoff_without_its_record if {
	r := with_req(evidence_handoff(evidence), {"handoff_type": "retry", "retry": {"count": 1, "type": "schema", "reason": "x"}})
	d := decide(r, st_retrying)
	codes(d) == {"RETRY_INVALID"}
}

test_restricted_retried_handoff_with_a_summary if {
	st := with_state(st_retrying, {"artifacts": object.union(st_retrying.artifacts, {"RETRY_RECORD": history([object.union(st_retrying.artifacts.RETRY_RECORD.versions["1"], {"content": {"task": "evidence_analysis", "restricted": true, "retry_type": "injection_restricted", "exhausted": false}})])})})
	r := retry_handoff({"count": 1, "type": "injection_restricted", "reason": "x"})
	d := decide(with_req(r, {"context": object.union(context_for(st, r.input_artifacts), {"previous_output": {"ref": ref("EVIDENCE_ASSESSMENT", 1)}})}), st)
	"RETRY_INVALID" in codes(d)
}

test_retry_information_on_another_handoff if {
	d := decide(with_req(evidence_handoff(evidence), {"retry": {"count": 1, "type": "schema", "reason": "x"}}), st_evidence)
	codes(d) == {"RETRY_INVALID"}
}

test_pending_retry_must_be_declared if {
	inputs := array.concat(evidence_handoff(evidence).input_artifacts, [ref("RETRY_RECORD", 1)])
	d := decide(with_req(evidence_handoff(evidence), {"input_artifacts": inputs, "context": context_for(st_retrying, inputs)}), st_retrying)
	codes(d) == {"HANDOFF_TYPE_INVALID"}
}

# --- loops -------------------------------------------------------------------------------

gap_return := handoff(st_gaps, "gap_analyst", "evidence_analyst", [ref("STATEMENT_OF_APPLICABILITY", 1), ref("EVIDENCE_ASSESSMENT", 1)], "GAP_ANALYSIS", 1, object.union(gaps, {"notes": ["BCD-11 needs a restore test report"]}))

test_clarification_return_records_a_rework_order if {
	d := decide(gap_return, st_gaps)
	d.outcome == "allow"
	d.status_after == "EVIDENCE"
	next_agents(d) == {"evidence_analyst"}
	recorded(d) == {"GAP_ANALYSIS v1 draft", "REWORK_ORDER v1 approved"}
	counters(d)["rework_pending/evidence_analyst"] == 1
	record_content(d, "REWORK_ORDER").kind == "clarification_return"
}

test_ping_pong_escalates if {
	st := with_state(st_gaps, {"recent_edges": ["evidence_analyst>gap_analyst", "gap_analyst>evidence_analyst", "evidence_analyst>gap_analyst"]})
	d := decide(gap_return, st)
	d.outcome == "await_human"
	codes(d) == {"LOOP_DETECTED", "HUMAN_REVIEW_REQUIRED"}
	d.status_after == "HUMAN_REVIEW"
	every r in d.reasons {
		r.outcome == "await_human"
	}
	recorded(d) == {"ESCALATION_RECORD v1 approved"}
	not "handoff_accepted" in event_types(d)
}

test_edge_limit_escalates if {
	d := decide(gap_return, with_state(st_gaps, {"edges": {"gap_analyst>evidence_analyst": 3}}))
	codes(d) == {"LOOP_DETECTED", "HUMAN_REVIEW_REQUIRED"}
}

test_stage_limit_escalates if {
	d := decide(gap_return, with_state(st_gaps, {"stage_handoffs": {"GAPS": 5}}))
	codes(d) == {"LOOP_DETECTED", "HUMAN_REVIEW_REQUIRED"}
}

test_loop_with_another_obstacle_blocks if {
	st := with_state(st_gaps, {"recent_edges": ["evidence_analyst>gap_analyst", "gap_analyst>evidence_analyst", "evidence_analyst>gap_analyst"]})
	d := decide(with_req(gap_return, {"trace_id": "trace-other"}), st)
	d.outcome == "block"
	"LOOP_DETECTED" in codes(d)
	not "HUMAN_REVIEW_REQUIRED" in codes(d)
	some r in d.reasons
	r.code == "LOOP_DETECTED"
	r.outcome == "block"
}

test_loop_twin_no_cycle if {
	d := decide(gap_return, with_state(st_gaps, {"recent_edges": ["soa_architect>evidence_analyst", "evidence_analyst>gap_analyst"]}))
	not "LOOP_DETECTED" in codes(d)
	d.outcome == "allow"
}

test_repeated_handoff_blocks if {
	key := sprintf("gap_analyst>evidence_analyst|%s", [hash(json.marshal(gap_return.input_artifacts))])
	d := decide(gap_return, with_state(st_gaps, {"input_hashes": {key: true}}))
	d.outcome == "block"
	codes(d) == {"REPEATED_HANDOFF"}
}

# --- the engine's clock: retries are due when the decision said, requests are not dated
# in the future --------------------------------------------------------------------------

ns(t) := time.parse_rfc3339_ns(t)

at(offset_ms) := time.format([ns(now) + (offset_ms * 1000000), "UTC", "2006-01-02T15:04:05.000Z07:00"])

# st_timeout_pending: the Evidence Analyst's tool timed out; its retry was granted with a
# 4000 ms delay, recorded at granted.
st_timeout_pending(granted) := with_state(
	add(st_evidence, [object.union(version_with("RETRY_RECORD", 1, "approved", object.union(retry_record_content, {"retry_type": "tool_transient", "delay_ms": 4000}), {}), {"producer": "orchestrator", "recorded_at": granted})]),
	{"counters": {"retry/evidence_analysis": 1, "retry_pending/evidence_analysis": 1}},
)

timeout_retry(st) := r if {
	inputs := array.concat(evidence_handoff(evidence).input_artifacts, [ref("RETRY_RECORD", 1)])
	r := with_req(evidence_handoff(evidence), {
		"handoff_type": "retry", "retry": {"count": 1, "type": "tool_transient", "reason": "tool answered"},
		"input_artifacts": inputs, "context": context_for(st, inputs),
	})
}

test_retried_handoff_before_its_delay if {
	st := st_timeout_pending(at(-1000))
	d := decide(timeout_retry(st), st)
	codes(d) == {"RETRY_NOT_DUE"}
	d.outcome == "block"
}

test_retried_handoff_twin_after_its_delay if {
	st := st_timeout_pending(at(-4000))
	d := decide(timeout_retry(st), st)
	codes(d) == set()
	d.outcome == "allow"
}

# The same failure posted again under a new request_id before the retry could run is not
# counted a second time.
test_failure_repeated_before_the_retry_ran if {
	d := decide(failure("evidence_analyst", "timeout", "tool_transient"), st_timeout_pending(at(-1000)))
	codes(d) == {"FAILURE_REPEATED"}
	d.outcome == "block"
	count(d.events) == 0
}

test_failure_twin_of_the_retried_attempt if {
	d := decide(failure("evidence_analyst", "timeout", "tool_transient"), st_timeout_pending(at(-5000)))
	codes(d) == set()
	d.outcome == "retry"
	d.retry.attempt == 3
	counters(d)["retry/evidence_analysis"] == 1
}

test_retry_record_carries_the_announced_delay if {
	d := decide(failure("evidence_analyst", "timeout", "tool_transient"), st_evidence)
	record_content(d, "RETRY_RECORD").delay_ms == d.retry.delay_ms
	d.retry.delay_ms == 4000
}

test_request_dated_in_the_future if {
	d := decide(with_req(evidence_handoff(evidence), {"created_at": at(120000)}), st_evidence)
	codes(d) == {"TIMESTAMP_INVALID"}
}

test_request_twin_dated_within_the_skew if {
	d := decide(with_req(evidence_handoff(evidence), {"created_at": at(30000)}), st_evidence)
	codes(d) == set()
	d.outcome == "allow"
}

test_approval_dated_in_the_future if {
	d := decide(with_req(approval(reviewer, "APPROVE", "SOA_APPROVAL", [ref("STATEMENT_OF_APPLICABILITY", 1)]), {"created_at": at(3600000)}), st_soa_approval)
	codes(d) == {"TIMESTAMP_INVALID"}
}

test_clock_skew_missing_blocks if {
	d := decide_without_config(evidence_handoff(evidence), st_evidence, "clock_skew_ms")
	"CONTRACT_MISSING" in codes(d)
}
