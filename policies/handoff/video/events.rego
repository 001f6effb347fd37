package handoff.video

import data.handoff.core
import data.handoff.lib

# Events and context packages the video proposals are built from.

# _record_event records a version the policy makes from a review or a decision (a
# checklist record, a review opinion). The engine seals its hash from content.
_record_event(type, default_id, content, based_on) := {
	"type": "artifact_recorded",
	"ref": core.next_ref(type, default_id, content),
	"status": "approved",
	"producer": lib.actor_id,
	"based_on": based_on,
	"assumptions": [],
	"limitations": [],
	"content": content,
	"meta": {"recorded_by": "policy", "request_id": object.get(lib.request, "request_id", "")},
}

# _record_ref is the ref of the version _record_event records.
_record_ref(type, default_id, content) := _record_event(type, default_id, content, []).ref

_defect_event(defect, status) := {"type": "defect", "defect": defect, "status": status}

# _close_defects closes the open defects of a type: a new version answers them.
_close_defects(type) := [_defect_event(lib.state.defects[id].defect, "closed") | some id in _open_defects(type)]

_return_counter(type) := sprintf("returns/%s", [type])

# _return_events returns the given types to their producers: a delivered version becomes
# revision_required; an approved one keeps its status and gets an open defect that names
# who returned it; every return counts against limits.max_review_cycles.
_return_events(types, by, summary) := array.concat(
	array.concat(
		[core.status_event(t, core.latest_number(t), "revision_required") |
			some t in sort(types)
			core.latest_status(t) in {"draft", "under_review"}
		],
		[_defect_event(_return_defect(t, by, summary), "open") |
			some t in sort(types)
			core.latest_status(t) in core.approved_statuses
			not _reviewer_defected(t)
		],
	),
	[{"type": "counter", "name": _return_counter(t), "delta": 1} | some t in sort(types)],
)

_return_defect(type, by, summary) := {
	"id": sprintf("%s/%s", [by, type]),
	"severity": "S2",
	"artifact": type,
	"check": by,
	"description": summary,
}

# _exhausted are the types among returned ones that already used every return.
_exhausted(types) := {t |
	some t in types
	not core.counter(_return_counter(t)) < core.limit("max_review_cycles")
}

# --- context packages ------------------------------------------------------------------

# _pkg is the package of an artifact over a context key "source>target/TYPE".
_pkg(source, target, type) := core.context_package(sprintf("%s>%s/%s", [source, target, type]), _doc(type))

# _versions are the current versions of the chain's artifacts.
_versions := [core.latest_version(t).ref | some s in _stage_order; some t in _stages[s].types; t != "CLIENT_CONFIRMATION"; core.latest_number(t) > 0]

# _work_contexts is what the agent acting in a status receives: the artifacts it checks
# or works from.
# The table is config.work_contexts in contracts/video/config.cue.
_work_contexts(status) := {w.agent: _work_context(w)} if {
	w := object.get(lib.pack_config, ["work_contexts", status], null)
	is_object(w)
} else := {}

# _work_context is one agent's context: a package per artifact it receives, keyed by
# type, and the chain's current versions where the table says so.
_work_context(w) := object.union(core.keyed(_work_parts(w)), {"may_know": {"versions": _versions}}) if {
	w.versions == true
} else := core.keyed(_work_parts(w))

_work_parts(w) := {p.type: _pkg(p.from, w.agent, p.type) | some p in w.packages}

# _failed_context is what a producer (or the production lead) learns of a return that
# no record keeps: the returned versions and every failed item.
_failed_context(failures) := {
	"must_know": {
		"returned": sort({sprintf("%s v%d", [f.artifact, _version_n(f.artifact)]) | some f in failures}),
		"failed": _sorted_reasons({f.reason | some f in failures}),
	},
	"may_know": {},
}

_sorted_reasons(rs) := [x[3] | some x in sort([[r.code, object.get(r, "path", ""), r.message, object.remove(r, ["outcome", "title"])] | some r in rs])]
