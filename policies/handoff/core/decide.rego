package handoff.core

import data.handoff.lib

_outcomes := {"allow", "await_human", "retry", "revise", "block", "fail"}

_proposal_defaults := {"next": [], "revise": [], "events": [], "requires_human_review": false}

# blocked holds when a core reason blocks the request.
blocked if {
	some r in reasons
	lib.blocking(r)
}

_proposed_reasons(proposal) := object.get(proposal, "reasons", []) if is_object(proposal)

else := []

_collect(reasons_in, proposal) := {r | some r in reasons_in} | {r | some r in _proposed_reasons(proposal)}

# _root_causes are the codes that name why a request is refused, in precedence order:
# the core's, then the pack's.
_root_causes := array.concat(_core_root_causes, _root_causes_of_pack)

_core_root_causes := l if {
	l := _guardrails.root_causes
	is_array(l)
} else := []

_root_causes_of_pack := l if {
	l := lib.pack_contract.root_causes
	is_array(l)
} else := []

# _rank is a code's place among the root causes; every other code comes after them.
_rank(code) := min({i | some i, c in _root_causes; c == code}) if {
	code in _root_causes
} else := count(_root_causes)

# _sorted orders reasons root cause first (by _rank), then by code, path and message, so
# that the first reason is the one to fix first.
_sorted(rs) := [x[4] | some x in sort([[_rank(code), code, object.get(r, "path", ""), object.get(r, "message", ""), r] |
	some r in rs
	code := object.get(r, "code", "")
])]

_block_result(rs) := {
	"outcome": "block",
	"reasons": _sorted(rs),
	"status_after": lib.status,
	"next": [],
	"revise": [],
	"events": [],
	"requires_human_review": false,
}

# decide turns the reasons (core's and the pack's: a set or a list) and the pack's
# proposal for the unblocked path into the decision. Any reason whose outcome is block
# (or missing) blocks: outcome block, status unchanged, no next, revise or events. So
# does a proposal that is malformed, contradicts a retry reason, or changes status by
# a transition workflow.transitions does not list (INVALID_TRANSITION). Otherwise the
# result is the proposal with defaults filled and every reason attached. Reasons are
# sorted root cause first (guardrails.root_causes, then the pack's root_causes), then by
# code, path and message.
decide(reasons_in, proposal) := _decide(_collect(reasons_in, proposal), proposal)

# _decide is decide for the collected reasons rs, gathered once.
_decide(rs, proposal) := _block_result(rs) if {
	some r in rs
	lib.blocking(r)
} else := _block_result(rs | problems) if {
	problems := _proposal_problems(rs, proposal)
	count(problems) > 0
} else := _block_result(rs) if {
	proposal.outcome == "block"
} else := object.union(object.union(_proposal_defaults, proposal), {"reasons": _sorted(rs)})

# proposal is a pack's proposal for the unblocked path. answers holds the pack's answer
# to a request it expects in the current status (none or one); without one the proposal
# is a block that keeps the status, with the reasons unanswered: the pack's
# OUT_OF_SEQUENCE ("No <pack> rule decides the request") for an expected request no rule
# answers, none for a request the pack does not expect (a rule of the pack or of core
# says why it is refused).
proposal(answers, unanswered) := p if {
	some p in answers
} else := {"outcome": "block", "status_after": lib.status, "reasons": unanswered}

_proposal_problems(rs, proposal) := (_shape_problems(rs, proposal) | _transition_problems(proposal)) | _retry_problems(rs, proposal)

_valid_outcome(proposal) := o if {
	o := proposal.outcome
	o in _outcomes
}

# METADATA
# title: Malformed proposal
# description: >-
#   The pack's proposal is not a decision the engine can apply: no valid outcome, a
#   block, revise or fail without any reason (a revise says what to fix, a fail why the
#   work ends), or no status_after. Fails closed (the decision for an unroutable request,
#   decide(reasons, {}), always blocks this way when nothing else does).
# custom:
#   code: POLICY_ERROR
#   outcome: block
_shape_problems(rs, proposal) := (({r |
	not _valid_outcome(proposal)
	r := lib.reason(rego.metadata.rule(), sprintf("no pack decided this request: the proposal has no valid outcome (got %v)", [object.get(_as_object(proposal), "outcome", null)]), "")
} | {r |
	_valid_outcome(proposal) == "block"
	count(rs) == 0
	r := lib.reason(rego.metadata.rule(), "the pack proposed a block without any reason", "")
}) | {r |
	outcome := _valid_outcome(proposal)
	outcome in {"revise", "fail"}
	count(rs) == 0
	r := lib.reason(rego.metadata.rule(), sprintf("the pack proposed %s without any reason: a %s names why", [outcome, outcome]), "")
}) | {r |
	_valid_outcome(proposal) != "block"
	not is_string(object.get(_as_object(proposal), "status_after", null))
	r := lib.reason(rego.metadata.rule(), sprintf("the pack proposed %s without a status_after", [proposal.outcome]), "")
}

_as_object(x) := x if is_object(x)

else := {}

_transition_allowed(from, to) if {
	some t in _transitions
	t.from == from
	t.to == to
}

# METADATA
# title: Invalid transition
# description: >-
#   The pack's proposal changes the workflow status by a transition the pack's
#   workflow.transitions does not list (or the workflow has no transitions).
# custom:
#   code: INVALID_TRANSITION
#   outcome: block
_transition_problems(proposal) := {r |
	_valid_outcome(proposal) != "block"
	to := proposal.status_after
	is_string(to)
	to != lib.status
	not _transition_allowed(lib.status, to)
	r := lib.reason(rego.metadata.rule(), sprintf("pack %q has no transition %s -> %s", [lib.pack, lib.status, to]), "")
}

# METADATA
# title: Retry against the budget
# description: >-
#   The pack proposes a retry although a reason says the failure is not retried
#   (RETRY_EXHAUSTED, NOT_RETRYABLE), or its retry's attempt exceeds max_attempts.
# custom:
#   code: POLICY_ERROR
#   outcome: block
_retry_problems(rs, proposal) := {r |
	_valid_outcome(proposal) == "retry"
	some reason in rs
	reason.code in {"RETRY_EXHAUSTED", "NOT_RETRYABLE"}
	r := lib.reason(rego.metadata.rule(), sprintf("the pack proposes a retry although %s says: %s", [reason.code, reason.message]), "")
} | {r |
	_valid_outcome(proposal) == "retry"
	proposal.retry.attempt > proposal.retry.max_attempts
	r := lib.reason(rego.metadata.rule(), sprintf("the pack proposes attempt %v of at most %v", [proposal.retry.attempt, proposal.retry.max_attempts]), "")
}

# METADATA
# title: Core decision
# description: >-
#   The decision for requests the engine cannot route to a pack (undecodable, unknown
#   workflow or pack, cross tenant): always a block, with the core reasons, or
#   POLICY_ERROR (Malformed proposal) when there are none.
# entrypoint: true
decision := decide(reasons, {})
