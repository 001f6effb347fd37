package handoff.core_test

import data.handoff.core

retry_for(class, attempt, retry_after_ms) := r if {
	r := core.retry_decision(class, attempt, retry_after_ms) with input as failure_input
		with data.handoff.testpack.contract as fixture_pack
}

# timeout: base 1000 ms, multiplier 2, cap 5000 ms, three tries.
test_retry_backoff_table if {
	every row in [[1, 1000], [2, 2000], [3, 4000], [4, 5000], [50, 5000], [1000, 5000]] {
		retry_for("timeout", row[0], 0) == {"attempt": row[0], "max_attempts": 3, "delay_ms": row[1]}
	}
}

# rate_limit: base 500 ms, multiplier 3, cap 3000 ms, honours retry_after.
test_retry_after_honoured if {
	retry_for("rate_limit", 2, 0).delay_ms == 1500
	retry_for("rate_limit", 3, 0).delay_ms == 3000
	retry_for("rate_limit", 2, 7000).delay_ms == 7000
	retry_for("rate_limit", 2, 1000).delay_ms == 1500
	retry_for("rate_limit", 2, null).delay_ms == 1500
}

test_retry_after_ignored_without_honour if {
	retry_for("timeout", 2, 7000).delay_ms == 2000
}

test_retry_fractional_multiplier_rounds_up if {
	pack := json.patch(fixture_pack, [
		{"op": "replace", "path": "/limits/retry/timeout/multiplier", "value": 1.5},
		{"op": "replace", "path": "/limits/retry/timeout/base_delay_ms", "value": 333},
	])
	r := core.retry_decision("timeout", 2, 0) with input as failure_input with data.handoff.testpack.contract as pack
	r.delay_ms == 500
}

test_retry_decision_without_policy_is_undefined if {
	not retry_for("permanent", 2, 0)
	not core.retry_decision("timeout", 2, 0) with input as object.union(failure_input, {"pack": "nopack"})
}

test_failure_attempt_and_retry if {
	inp := with_state(failure_input, {"counters": {"retry/strategy": 1}})
	core.failure_attempt == 2 with input as inp with data.handoff.testpack.contract as fixture_pack
	core.failure_retry == {"attempt": 3, "max_attempts": 3, "delay_ms": 4000, "task": "strategy"} with input as inp
		with data.handoff.testpack.contract as fixture_pack
	core.retry_counter("strategy") == "retry/strategy"
}

test_retry_exhausted if {
	inp := with_state(failure_input, {"counters": {"retry/strategy": 2}})
	reasons_for(inp) == {{
		"code": "RETRY_EXHAUSTED",
		"title": "Retry budget spent",
		"message": "task \"strategy\" of agent \"strategist\" failed (timeout) on try 3 of 3; the retry budget is spent",
		"path": "task",
		"outcome": "await_human",
	}}
}

test_retry_exhausted_twin if {
	clean(with_state(failure_input, {"counters": {"retry/strategy": 1, "retry/other": 9}}))
}

test_not_retryable_class if {
	inp := with_request(failure_input, {"class": "authorization"})
	r := reason_with_code(inp, "NOT_RETRYABLE")
	r.outcome == "await_human"
	r.path == "class"
	contains(r.message, "failures of class authorization are not retried")
	codes_for(inp) == {"NOT_RETRYABLE"}
}

test_not_retryable_without_policy if {
	inp := with_request(failure_input, {"class": "permanent"})
	r := reason_with_code(inp, "NOT_RETRYABLE")
	r.outcome == "await_human"
	contains(r.message, "no retry policy for failure class permanent")
}

test_not_retryable_twin if {
	clean(with_request(failure_input, {"class": "rate_limit", "retry_after_ms": 2000}))
}

# The reasons do not block; the pack escalates, and decide refuses a retry against them.
test_retry_exhausted_decisions if {
	inp := with_state(failure_input, {"counters": {"retry/strategy": 2}})
	rs := reasons_for(inp)
	escalate := decide_for(inp, rs, {"outcome": "await_human", "status_after": "ESCALATED", "requires_human_review": true})
	escalate.outcome == "await_human"
	escalate.requires_human_review == true
	[r.code | some r in escalate.reasons] == ["RETRY_EXHAUSTED"]
	retry := decide_for(inp, rs, {"outcome": "retry", "status_after": "STRATEGY", "retry": {"attempt": 4, "max_attempts": 3, "delay_ms": 5000}})
	retry.outcome == "block"
	{r.code | some r in retry.reasons} == {"POLICY_ERROR", "RETRY_EXHAUSTED"}
	count([r | some r in retry.reasons; r.code == "POLICY_ERROR"]) == 2
}

test_retry_proposal_twin if {
	inp := with_state(failure_input, {"counters": {"retry/strategy": 1}})
	retry := core.failure_retry with input as inp with data.handoff.testpack.contract as fixture_pack
	d := decide_for(inp, reasons_for(inp), {"outcome": "retry", "status_after": "STRATEGY", "retry": retry})
	d.outcome == "retry"
	d.retry.delay_ms == 4000
	d.reasons == []
}
