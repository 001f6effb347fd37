package handoff.campaign

import data.handoff.core
import data.handoff.lib

# QA over the current COPY_PACKAGE and VISUAL_PACKAGE (seed "QA Gate", "Defect Rules",
# "QA Loop Control").

# _repeated are the S2/S3 defects of this review that were already open for the same
# artifact: the same defect remains after a repair.
_repeated := {d.id |
	some d in _defects
	_severe(d)
	rec := lib.state.defects[d.id]
	rec.status == "open"
	rec.defect.artifact == d.artifact
}

# _is_upstream holds for a defect originating in an earlier artifact than the one it
# shows in: the producer of the origin repairs it, the affected agents rerun after.
_is_upstream(d) if {
	d.origin in _upstream_types
	d.origin != d.artifact
}

_needs_return if _has_severity("S2")

_needs_return if lib.request.verdict in {"REVISE", "REJECT"}

# _qa_branch decides the review:
#   escalate   QA escalates to a person;
#   exhausted  two QA cycles used and the review returns work again (a repeated S2/S3
#              defect, a new S1 or S2): a person decides, never a third automatic loop;
#   fail       an S3 defect: the workflow fails safe;
#   accept     an ACCEPT (which lists no defect and no failed gate);
#   upstream   a defect originates in the strategy or the research: its producer repairs;
#   revise     S1/S2 defects: only the affected artifacts return to their producers.
_qa_branch := "escalate" if {
	lib.request.verdict == "ESCALATE"
} else := "exhausted" if {
	_cycles_spent("qa_cycles")
	count(_repeated) > 0
} else := "fail" if {
	_has_severity("S3")
} else := "exhausted" if {
	_cycles_spent("qa_cycles")
	_needs_return
} else := "accept" if {
	not _needs_return
} else := "upstream" if {
	some d in _defects
	_is_upstream(d)
} else := "revise"

_qa_report := _report_content("production", _result_of[_qa_branch], set())

_returned_types := {d.artifact | some d in _defects; not _is_upstream(d); d.artifact in _deliverable_types}

_upstream_origins := {d.origin | some d in _defects; _is_upstream(d)}

_qa_cycle := {"type": "counter", "name": "qa_cycles", "delta": 1}

_qa_proposal := {
	"outcome": "await_human",
	"status_after": "HUMAN_APPROVAL",
	"next": core.next_with("HUMAN_APPROVAL", {"campaign_approver": _approval_summary(_qa_report)}),
	"events": _report_events(_qa_report),
	"requires_human_review": true,
} if {
	_qa_branch == "accept"
}

# S1/S2: return the affected artifact only; nothing else reruns.
_qa_proposal := {
	"outcome": "revise",
	"status_after": "TARGETED_REVISION",
	"revise": [{"artifact": t, "producer": core.producer(t, "unknown"), "defects": sort([d.id | some d in _defects; d.artifact == t])} |
		some t in sort(_returned_types)
	],
	"next": core.next_with("TARGETED_REVISION", {core.producer(t, "unknown"): _revision_context(t, _qa_report) | some t in _returned_types}),
	"events": array.concat(
		_report_events(_qa_report),
		array.concat([e | some t in sort(_returned_types); some e in _set_latest(t, {"draft", "under_review"}, "revision_required")], [_qa_cycle]),
	),
} if {
	_qa_branch == "revise"
}

_upstream_status := "RESEARCH_REVISION" if "RESEARCH_BRIEF" in _upstream_origins

else := "STRATEGY"

_upstream_contexts := {"research_agent": core.keyed({"QA_REPORT": _qa_package("research_agent", _qa_report, "RESEARCH_BRIEF")})} if {
	_upstream_status == "RESEARCH_REVISION"
} else := {"strategy_agent": core.keyed({
	"QA_REPORT": _qa_package("strategy_agent", _qa_report, "STRATEGY_BRIEF"),
	"RESEARCH_BRIEF": _research_package("strategy_agent"),
})}

# A defect that originates upstream goes to the producer of its origin; research,
# strategy, copy and visual rerun from there only as far as the origin requires.
_qa_proposal := {
	"outcome": "revise",
	"status_after": _upstream_status,
	"revise": [{"artifact": o, "producer": core.producer(o, "unknown"), "defects": sort([d.id | some d in _defects; d.origin == o])} |
		some o in sort(_upstream_origins)
	],
	"next": core.next_with(_upstream_status, _upstream_contexts),
	"events": array.concat(_report_events(_qa_report), [_qa_cycle]),
} if {
	_qa_branch == "upstream"
}

_qa_proposal := {
	"outcome": "fail",
	"status_after": "FAILED_SAFE",
	"events": array.concat(_report_events(_qa_report), [e |
		some t in sort({d.artifact | some d in _defects; d.severity == "S3"; d.artifact in _deliverable_types})
		some e in _set_latest(t, core.open_statuses, "rejected")
	]),
} if {
	_qa_branch == "fail"
}

_qa_proposal := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": _escalation_next(_qa_report),
	"events": _report_events(_qa_report),
	"requires_human_review": true,
} if {
	_qa_branch in {"exhausted", "escalate"}
}
