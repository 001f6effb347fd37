package handoff.core

import data.handoff.lib

# retry_counter is the name of the counter that counts the retries of a task; a pack
# adds {"type": "counter", "name": retry_counter(task), "delta": 1} to every retry.
retry_counter(task) := sprintf("retry/%s", [task])

_failure if {
	lib.valid
	input.request.kind == "failure"
}

# failure_attempt is the number of the try that just failed: one more than the retries
# the state already counts for the task. The first try is 1.
failure_attempt := object.get(_state, ["counters", retry_counter(lib.request.task)], 0) + 1 if _failure

# _retry_policy is the pack's retry policy for a failure class; undefined when missing.
_retry_policy(class) := p if {
	p := lib.pack_contract.limits.retry[class]
	is_object(p)
}

# retry_decision is the retry object for the given try of a failure class:
# {attempt, max_attempts, delay_ms}, where delay_ms is the backoff
# min(max_delay_ms, base_delay_ms * multiplier^(attempt-1)), rounded up, and at least
# retry_after_ms when the class honours retry_after, plus the request's jitter: up to 10%
# more, input.derived.jitter_permille (0 to 100, drawn by the engine from the request's
# digest) thousandths of it, rounded down. The delay the decision reports is the delay a
# pack records and later checks (RETRY_NOT_DUE): the host is told the one number.
# attempt counts every try, the first included, so the first retry is attempt 2.
# Undefined when the pack has no retry policy for the class.
retry_decision(class, attempt, retry_after_ms) := {
	"attempt": attempt,
	"max_attempts": object.get(p, "max_attempts", 1),
	"delay_ms": delay + floor((delay * _jitter_permille) / 1000),
} if {
	p := _retry_policy(class)
	backoff := min([
		object.get(p, "max_delay_ms", 0),
		object.get(p, "base_delay_ms", 0) * _pow(object.get(p, "multiplier", 2), attempt - 1),
	])
	delay := ceil(max([backoff, _honoured(p, retry_after_ms)]))
}

# _jitter_permille is input.derived.jitter_permille when it is a whole number from 0 to
# 100, else 0.
_jitter_permille := j if {
	j := input.derived.jitter_permille
	is_number(j)
	j >= 0
	j <= 100
	j == floor(j)
} else := 0

# _pow is base^n for whole n >= 0; n is capped at 100 (far past any delay cap).
_pow(base, n) := product([base | numbers.range(1, min([n, 100]))[_]]) if n >= 1

else := 1

_honoured(p, retry_after_ms) := retry_after_ms if {
	p.honour_retry_after == true
	is_number(retry_after_ms)
} else := 0

# failure_retry is the retry answer for the current failure: the next try of its task.
failure_retry := object.union(
	retry_decision(lib.request.class, failure_attempt + 1, object.get(lib.request, "retry_after_ms", 0)),
	{"task": lib.request.task},
) if _failure

# METADATA
# title: Retry budget spent
# description: >-
#   A retryable failure whose task already used every try limits.retry[class] allows
#   (max_attempts counts the first try). Not a request error: the workflow escalates to
#   a person, so the reason's outcome is await_human and the pack decides where to.
# custom:
#   code: RETRY_EXHAUSTED
#   outcome: await_human
reasons contains r if {
	_failure
	p := _retry_policy(lib.request.class)
	p.retryable == true
	max_attempts := object.get(p, "max_attempts", 1)
	failure_attempt + 1 > max_attempts
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("task %q of agent %q failed (%s) on try %d of %d; the retry budget is spent", [lib.request.task, lib.request.agent, lib.request.class, failure_attempt, max_attempts]), "task", "await_human")
}

# METADATA
# title: Failure class not retryable
# description: >-
#   The failure's class is not retryable under limits.retry (an authorization failure
#   is never retried with more privileges). Not a request error: the outcome is
#   await_human and the pack decides where it goes.
# custom:
#   code: NOT_RETRYABLE
#   outcome: await_human
reasons contains r if {
	_failure
	p := _retry_policy(lib.request.class)
	p.retryable != true
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("failures of class %s are not retried by pack %q (task %q of agent %q)", [lib.request.class, lib.pack, lib.request.task, lib.request.agent]), "class", "await_human")
}

# METADATA
# title: No retry policy for the failure class
# description: >-
#   The pack's limits.retry has no policy for the failure's class: no policy means no
#   retry. The outcome is await_human and the pack decides where it goes.
# custom:
#   code: NOT_RETRYABLE
#   outcome: await_human
reasons contains r if {
	_failure
	not _retry_policy(object.get(lib.request, "class", ""))
	r := lib.reason_outcome(rego.metadata.rule(), sprintf("pack %q has no retry policy for failure class %s (task %q of agent %q)", [lib.pack, lib.request.class, lib.request.task, lib.request.agent]), "class", "await_human")
}
