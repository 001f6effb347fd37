package handoff.video

import data.handoff.core
import data.handoff.lib

# Reviews: the receiving agent's check of an edge (BRIEF_INTAKE, SCRIPT_INTAKE,
# STORYBOARD_INTAKE, PROMPT_INTAKE: the seed's "读取前序Artifact / 对照质量门 / 如有缺失 -
# 返回前序Agent补充 / 如通过 - 开始自己的创作工作") and the internal review. The policy
# recomputes every machine gate, takes the judgement gates from the receiving agent's
# attestations, adds its defects and failed gate results, and either accepts the edge or
# returns every failed artifact to its producer with each failed item and its reason.

# _intake holds for the receiving agent's review at a check status.
_intake if {
	core.ready
	input.request.kind == "review"
	_check_status
	_routed_reviewer
}

# _internal holds for the internal review lead's review.
_internal if {
	core.ready
	input.request.kind == "review"
	lib.status == "INTERNAL_REVIEW"
	_routed_reviewer
}

_reviewing if _intake

_reviewing if _internal

# _routed_reviewer holds for the agent the status routes: an agent, by type and id (a
# person or the host named like the agent is not that agent).
_routed_reviewer if {
	lib.actor_type == "agent"
	some a in core.actors(lib.status)
	a.agent == lib.actor_id
}

# _review_by_non_agent holds for a review sent by a person or the host: reviews are the
# receiving agents' checks and the internal review lead's (an agent) opinion.
_review_by_non_agent if {
	core.ready
	input.request.kind == "review"
	lib.actor_type != "agent"
}

# METADATA
# title: Review by a person or the host
# description: >-
#   A video review is the receiving agent's check of what it was handed, or the
#   internal review lead agent's opinion: it is sent by that agent (actor type agent
#   and the id the status routes). A person or the host sending a review, even under
#   the agent's id, is refused; people decide through approvals.
# custom:
#   code: UNAUTHORIZED_SUBJECT
#   outcome: block
reasons contains r if {
	_review_by_non_agent
	r := lib.reason(rego.metadata.rule(), sprintf("%s %q may not send a review: reviews are sent by the agent the status routes (%v)", [lib.actor_type, lib.actor_id, core.routed_now]), "actor.type")
}

_review_refs := [r | some r in object.get(lib.request, "artifacts", []); is_object(r)]

_reviewed_types := {r.type | some r in _review_refs}

_defects := [d | some d in object.get(lib.request, "defects", []); is_object(d)]

_gate_results := [g | some g in object.get(lib.request, "gates", []); is_object(g)]

_verdict := object.get(lib.request, "verdict", "")

# --- scope -------------------------------------------------------------------------------

# _item_artifacts are the artifacts each checklist item judges.
# The table is config.item_artifacts in contracts/video/config.cue.
# Each item's list is read as it is (only membership is asked of it); _gate_targets
# gives it as a set.
_item_artifacts := object.get(lib.pack_config, "item_artifacts", {})

# _item_of_gate maps an artifact's quality gate to the checklist item it is part of.
# The table is config.item_of_gate in contracts/video/config.cue.
_item_of_gate := object.get(lib.pack_config, "item_of_gate", {})

_record_type := _stages[_check_of[lib.status]].record if _check_status

# _items are the checklist items of the current check: the record type's gates in the
# contract and the items the policy knows for the edge.
_items := {g | some g in object.get(lib.pack_contract, ["artifacts", _record_type, "gates"], [])} | {i |
	some i, types in _item_artifacts
	some t in types
	t in _edge_types
}

# _review_types are the artifact types a review judges: the edge's at a check, the
# versions it names at the internal review.
_review_types := {t | some t in _edge_types} if _intake

else := _reviewed_types if _internal

else := set()

# _artifact_gates are [type, gate] for every quality gate of the artifacts the review
# judges (the edge's at a check).
_artifact_gates := {[t, g] |
	some t in _review_types
	some g in _type_gates(t)
}

# _type_gates are the quality gates of an artifact type: its contract's and its
# completeness gate.
_type_gates(t) := {g | some g in object.get(lib.pack_contract, ["artifacts", t, "gates"], [])} | {g | g := _completeness_gate[t]}

# _gate_targets are the artifacts a gate or item named in a review result judges.
_gate_targets(id) := {t | some t in types} if types := _item_artifacts[id]

_gate_targets(id) := {t | some [t, g] in _artifact_gates; g == id} if not _item_artifacts[id]

_scope_problems contains ["artifacts", sprintf("a check in %s judges %v, this one names %v", [lib.status, sort(_edge_types), sort(_reviewed_types)])] if {
	_intake
	_reviewed_types != {t | some t in _edge_types}
}

_scope_problems contains ["artifacts", sprintf("the internal review judges EDIT_PLAN v%d; this one names %v", [core.latest_number("EDIT_PLAN"), sort(_reviewed_types)])] if {
	_internal
	not "EDIT_PLAN" in _reviewed_types
}

_scope_problems contains [sprintf("defects[%d].artifact", [i]), sprintf("defect %q concerns %s, which this review does not judge", [d.id, d.artifact])] if {
	_reviewing
	some i, d in _defects
	not d.artifact in _reviewed_types
}

_scope_problems contains [sprintf("gates[%d].id", [i]), sprintf("%s is not a gate or checklist item of what this review judges (%v; known here: %v)", [g.id, sort(_review_types), sort(_known_ids)])] if {
	_reviewing
	some i, g in _gate_results
	count(_gate_targets(g.id) & _review_types) == 0
}

# A defect's origin is an artifact type the workflow recorded, upstream of the defect's
# artifact (what it is made from, directly or not: config.required_inputs).
_scope_problems contains [sprintf("defects[%d].origin", [i]), sprintf("defect %q gives origin %s, which %s", [d.id, d.origin, msg])] if {
	_reviewing
	some i, d in _defects
	is_string(d.origin)
	msg := _origin_problem(d)
}

_origin_problem(d) := "is no artifact type of the video pack" if {
	not is_object(object.get(lib.pack_contract, ["artifacts", d.origin], null))
} else := sprintf("is %s itself: origin names an upstream artifact", [d.artifact]) if {
	d.origin == d.artifact
} else := sprintf("is not upstream of %s (made from %v)", [d.artifact, sort(_upstream_types(d.artifact) - {d.artifact})]) if {
	not d.origin in _upstream_types(d.artifact)
} else := "has no recorded version in this workflow" if {
	core.latest_number(d.origin) == 0
}

# _upstream_types are the types an artifact type is made from, directly or not, and the
# type itself.
_upstream_types(t) := graph.reachable(_required_inputs, {t})

# A defect's check, when given, names a gate or checklist item of the defect's artifact:
# it says which item failed, and the policy's own return records (client_review,
# escalation, a record label) are never named by a reviewer.
_scope_problems contains [sprintf("defects[%d].check", [i]), sprintf("defect %q names check %q, which is no gate or checklist item of %s (%v)", [d.id, d.check, d.artifact, sort(_checks_of(d.artifact))])] if {
	_reviewing
	some i, d in _defects
	lib.non_blank(object.get(d, "check", ""))
	not d.check in _checks_of(d.artifact)
}

_checks_of(t) := (_type_gates(t) | {i | some i, types in _item_artifacts; t in types}) | {"skill_routing" | count(_routed_skills(t)) > 0}

# A defect id names one defect: new in the workflow and not of the form the policy gives
# its own return defects (TYPE@n/...). Reusing an id would overwrite the recorded defect,
# and with it whether that artifact stands returned. (Once in the review: core.)
_scope_problems contains [sprintf("defects[%d].id", [i]), sprintf("defect id %q %s", [d.id, msg])] if {
	_reviewing
	some i, d in _defects
	msg := _defect_id_problem(d)
}

_defect_id_problem(d) := sprintf("is already recorded in this workflow (for %s, %s): give the defect a new id", [lib.state.defects[d.id].defect.artifact, lib.state.defects[d.id].status]) if {
	lib.state.defects[d.id]
} else := "contains @, which the policy keeps for the defects it records itself" if {
	contains(d.id, "@")
}

# _invalid_defect holds for a defect the review scope refuses: it returns nothing.
_invalid_defect(i) if {
	some [path, _] in _scope_problems
	startswith(path, sprintf("defects[%d]", [i]))
}

_known_ids := _items | {g | some [_, g] in _artifact_gates}

# METADATA
# title: Review scope invalid
# description: >-
#   A check judges exactly the current versions of its edge's artifacts (A1 and the
#   skill routing; A2, A3 and A6; A4 and A5; PROMPT); the internal review judges the
#   edit plan and any other current version. A defect names an artifact the review
#   judges; its origin, when given, is a recorded artifact type upstream of it; its
#   check, when given, is a gate or checklist item of that artifact; its id is new to
#   the workflow. A gate result names a gate or checklist item of what the review
#   judges.
# custom:
#   code: REVIEW_SCOPE_INVALID
#   outcome: block
reasons contains r if {
	some [path, msg] in _scope_problems
	r := lib.reason(rego.metadata.rule(), msg, path)
}

# METADATA
# title: Verdict not supported
# description: >-
#   A receiving agent or the internal review accepts (ACCEPT), returns work (REVISE) or
#   escalates to the production lead (ESCALATE). It never rejects the project (only the
#   client and the production lead do) and has nobody to reassign to.
# custom:
#   code: VERDICT_NOT_SUPPORTED
#   outcome: block
reasons contains r if {
	_reviewing
	_verdict in {"REJECT", "REASSIGN"}
	r := lib.reason(rego.metadata.rule(), sprintf("%s is not a verdict of a video review; accept, return (REVISE) or escalate", [_verdict]), "verdict")
}

# --- what the reviewer found ----------------------------------------------------------

_review_failures contains f if {
	_reviewing
	some i, d in _defects
	d.artifact in _reviewed_types
	not _invalid_defect(i)
	f := _defect_failure(i, d)
}

# METADATA
# title: Defect found by the reviewer
# description: >-
#   The receiving agent or the internal review reports a defect of an artifact it judges
#   (for example: act 3 drags, compress it). Each defect is one failed item with its
#   description; the artifact returns to its producer.
# custom:
#   code: REVIEW_DEFECT
#   outcome: revise
_defect_failure(i, d) := {"artifact": d.artifact, "reason": _defect_reason(rego.metadata.rule(), i, d)}

_defect_reason(meta, i, d) := lib.gate_reason(meta, _defect_message(d), sprintf("defects[%d]", [i]), d.check, "revise") if {
	lib.non_blank(object.get(d, "check", ""))
} else := lib.reason_outcome(meta, _defect_message(d), sprintf("defects[%d]", [i]), "revise")

_defect_message(d) := sprintf("%s defect %q of %s v%d found by %q: %s", [d.severity, d.id, d.artifact, core.latest_number(d.artifact), lib.actor_id, d.description])

_review_failures contains f if {
	_reviewing
	some i, g in _gate_results
	g.passed == false
	lib.non_blank(object.get(g, "reason", ""))
	some t in _gate_targets(g.id)
	t in _review_types
	f := _reported_failure(t, g.id, sprintf("%s v%d: %s failed in the check of %q: %s", [t, core.latest_number(t), g.id, lib.actor_id, g.reason]), sprintf("gates[%d]", [i]))
}

# METADATA
# title: Failed gate result from the reviewer
# description: >-
#   The receiving agent (or the internal review) reports a gate or checklist item of
#   what it judges as failed, with its reason: the item fails even if the policy's own
#   computation passes it. (An ACCEPT with a failed gate contradicts itself: core's
#   VERDICT_INCONSISTENT refuses it.)
# custom:
#   code: QUALITY_GATE_FAILED
#   outcome: revise
_reported_failure(type, gate, message, path) := _failure(rego.metadata.rule(), type, gate, message, path)

# A review core refuses (it contradicts itself, or gives two defects one id) fails
# nothing with what it reports.
reasons contains f.reason if {
	not core.review_refused
	some f in _review_failures
}

# _review_all are every failed item of a review: the policy's and the reviewer's.
_review_all := _work_failures | _review_failures

_unjustified contains [sprintf("gates[%d].reason", [i]), sprintf("gate result %s is failed without a reason (说明不通过原因)", [g.id])] if {
	some i, g in _gate_results
	g.passed == false
	not lib.non_blank(object.get(g, "reason", ""))
}

# METADATA
# title: Return without a reason
# description: >-
#   A return says why each item failed (说明不通过原因): a failed gate result without a
#   reason is refused. (A REVISE without any failed item, the specific items the seed
#   asks a return to list (列出具体未通过项), contradicts itself: core's
#   VERDICT_INCONSISTENT.)
# custom:
#   code: RETURN_UNJUSTIFIED
#   outcome: block
reasons contains r if {
	_reviewing
	some [path, msg] in _unjustified
	r := lib.reason(rego.metadata.rule(), msg, path)
}

# METADATA
# title: Review cycles exhausted
# description: >-
#   An artifact would be returned once more although it was already returned
#   limits.max_review_cycles times (at handoffs, checks and internal reviews): instead of
#   another loop the workflow escalates to the production lead.
# custom:
#   code: REVIEW_CYCLES_EXHAUSTED
#   outcome: await_human
_cycles_reason(types) := lib.reason_outcome(rego.metadata.rule(), sprintf("%v already returned %v times each (limit %v); the production lead decides", [sort(_exhausted(types)), [core.counter(_return_counter(t)) | some t in sort(_exhausted(types))], object.get(lib.pack_contract, ["limits", "max_review_cycles"], 0)]), "", "await_human")

# --- the decision ----------------------------------------------------------------------

_review_returned := {f.artifact | some f in _review_all}

_branch := "escalate" if {
	_verdict == "ESCALATE"
} else := "exhausted" if {
	count(_review_returned) > 0
	count(_exhausted(_review_returned)) > 0
} else := "return" if {
	count(_review_returned) > 0
} else := "pass"

_result := {"pass": "pass", "return": "return", "exhausted": "escalate", "escalate": "escalate"}[_branch]

_findings := [object.union(object.remove(r, ["outcome", "title"]), {"artifact": f.artifact}) |
	some x in sort([[f.reason.code, object.get(f.reason, "path", ""), f.reason.message, f] | some f in _review_all])
	f := x[3]
	r := f.reason
]

_returned_refs := [core.latest_version(t).ref | some t in sort(_review_returned)]

_report_extras := object.union(
	{"notes": n | n := lib.request.report.notes},
	{"summary": s | s := lib.request.summary},
)

# _attestations_used are the attestations the judgement gates and skill runs of the
# edge rest on.
_attestations_used := array.concat(
	[a | some t in _edge_types; some a in object.get(core.latest_version(t), ["meta", "attestations"], [])],
	_review_attestations,
)

_item_passed(item) := false if _failed_item(item)

else := true

_any_passed(t, g) := false if _gate_failed_any(t, g)

else := true

_failed_item(item) if {
	some f in _review_all
	f.reason.gate == item
}

_failed_item(item) if {
	some f in _review_all
	_item_of_gate[f.reason.gate] == item
}

_gate_failed_any(t, g) if {
	some f in _review_all
	f.artifact == t
	f.reason.gate == g
}

_check_content := object.union(
	{
		"edge": sprintf("%s>%s", [_stages[_check_of[lib.status]].producer, _stages[_check_of[lib.status]].consumer]),
		"checked_by": lib.actor_id,
		"verdict": _verdict,
		"result": _result,
		"reviewed": _review_refs,
		"items": [{"id": i, "title": object.get(lib.pack_contract, ["gates", i, "title"], i), "passed": _item_passed(i)} | some i in sort(_items)],
		"gates": [{"id": g, "artifact": t, "passed": _any_passed(t, g)} | some [t, g] in sort(_artifact_gates)],
		"attestations": _attestations_used,
		"defects": _defects,
		"failed": _findings,
		"returned": _returned_refs,
	},
	_report_extras,
)

_record_id(type) := lower(replace(type, "_", "-"))

_check_ref := _record_ref(_record_type, _record_id(_record_type), _check_content)

_review_defect_events := [_defect_event(d, "open") | some d in _defects]

_reviewer_defected(t) if {
	some d in _defects
	d.artifact == t
}

# _review_return_events return the failed artifacts; an approved one the reviewer named
# in a defect is marked by that defect.
_review_return_events(by, summary) := array.concat(
	_review_defect_events,
	_return_events(_review_returned, by, summary),
)

# _revise_list names every returned artifact with its producer and the defects that
# mark it: the reviewer's, or the one a return of an approved version opens.
_revise_list(types, by) := [{"artifact": t, "producer": core.producer(t, "unknown"), "defects": _defect_ids(t, by)} | some t in sort(types)]

_defect_ids(t, by) := sort({d.id | some d in _defects; d.artifact == t} | {_return_defect(t, by, "").id |
	core.latest_status(t) in core.approved_statuses
	not _reviewer_defected(t)
})

_intake_proposal := {
	"outcome": "allow",
	"status_after": _stages[_check_of[lib.status]].after,
	"next": core.next_with(_stages[_check_of[lib.status]].after, _work_contexts(_stages[_check_of[lib.status]].after)),
	"events": array.concat(
		[_record_event(_record_type, _record_id(_record_type), _check_content, _review_refs)],
		[e |
			some t in _edge_types
			some e in _accept_events(t)
		],
	),
} if {
	_branch == "pass"
}

_intake_proposal := {
	"outcome": "revise",
	"status_after": _check_of[lib.status],
	"revise": _revise_list(_review_returned, _check_ref_label),
	"next": core.next_with(_check_of[lib.status], {_stages[_check_of[lib.status]].producer: _return_context}),
	"events": array.concat(
		[_record_event(_record_type, _record_id(_record_type), _check_content, _review_refs)],
		_review_return_events(_check_ref_label, sprintf("returned by the check %s", [_check_ref_label])),
	),
} if {
	_branch == "return"
}

_intake_proposal := _escalated_review(_record_event(_record_type, _record_id(_record_type), _check_content, _review_refs), _check_ref_label) if {
	_branch in {"exhausted", "escalate"}
}

_check_ref_label := sprintf("%s@%d", [_record_type, _check_ref.version])

_return_context := core.keyed({_record_type: core.context_package(
	sprintf("%s>%s/%s", [lib.actor_id, _stages[_check_of[lib.status]].producer, _record_type]),
	_check_content,
)})

# _escalated_review records the review, returns what failed and waits for the
# production lead.
_escalated_review(record, label) := {
	"outcome": "await_human",
	"status_after": "ESCALATED",
	"next": core.next_with("ESCALATED", {"production_lead": _failed_context(_review_all)}),
	"events": array.concat([record], _review_return_events(label, sprintf("returned by %s; escalated", [label]))),
	"requires_human_review": true,
	"reasons": [r | _branch == "exhausted"; r := _cycles_reason(_review_returned)],
}

# _accept_events approve the latest version of a type (the receiving agent accepted it)
# and supersede its older approved versions.
_accept_events(t) := array.concat(
	[core.status_event(t, core.latest_number(t), "approved") | core.latest_status(t) == "under_review"],
	core.supersede_approved(t, core.latest_number(t)),
)

# --- the internal review -----------------------------------------------------------------

_opinion_content := object.union(
	{
		"verdict": _verdict,
		"result": _result,
		"reviewed": _review_refs,
		"defects": _defects,
		"gates": _gate_results,
		"returned": _returned_refs,
	},
	_report_extras,
)

_opinion_event := _record_event("REVIEW_OPINION", "review-opinion", _opinion_content, _review_refs)

_opinion_label := sprintf("REVIEW_OPINION@%d", [_opinion_event.ref.version])

_upstream := _upstream_status(_review_returned)

_internal_proposal := {
	"outcome": "allow",
	"status_after": "CLIENT_REVIEW",
	"next": core.next_with("CLIENT_REVIEW", _work_contexts_after_opinion),
	"events": array.concat([_opinion_event], _accept_events("EDIT_PLAN")),
} if {
	_branch == "pass"
}

_internal_proposal := {
	"outcome": "revise",
	"status_after": _upstream,
	"revise": _revise_list(_review_returned, _opinion_label),
	"next": core.next_with(_upstream, {_stages[_upstream].producer: core.keyed({"REVIEW_OPINION": core.context_package(
		sprintf("internal-review-lead>%s/REVIEW_OPINION", [_stages[_upstream].producer]),
		_opinion_content,
	)})}),
	"events": array.concat([_opinion_event], _review_return_events(_opinion_label, sprintf("returned by %s", [_opinion_label]))),
} if {
	_branch == "return"
}

_internal_proposal := _escalated_review(_opinion_event, _opinion_label) if {
	_branch in {"exhausted", "escalate"}
}

# The client review lead receives the opinion being recorded now.
_work_contexts_after_opinion := {"client-review-lead": object.union(
	core.keyed({"REVIEW_OPINION": core.context_package("internal-review-lead>client-review-lead/REVIEW_OPINION", _opinion_content)}),
	{"may_know": {"versions": _versions}},
)}
