package handoff.video

import data.handoff.core
import data.handoff.lib

# The edges of the chain. Each production status has one producer, the artifact types it
# hands over, the receiving agent and, for the four edges with a seed checklist, the
# check status in which the receiving agent checks them and the record type its check is
# kept in. after is the status the workflow moves to once the edge is done.
# The table is config.stages in contracts/video/config.cue.
_stages := object.get(lib.pack_config, "stages", {})

# _stage_order runs from the most upstream producer to the last.
# The table is config.stage_order in contracts/video/config.cue.
_stage_order := object.get(lib.pack_config, "stage_order", [])

# _type_stage is the production status of each artifact type's producer.
_type_stage[t] := stage if {
	some stage, s in _stages
	some t in s.types
}

# _check_of maps a check status to its production status.
_check_of[s.check] := stage if {
	some stage, s in _stages
	s.check
}

_check_status if _check_of[lib.status]

# _record_types are the artifacts the policy records from a check or a person's
# decision, and the client confirmation: a returned producer names one as input.
# The table is config.record_types in contracts/video/config.cue.
_record_types := {t | some t in object.get(lib.pack_config, "record_types", [])}

# _upstream_status is the production status of the most upstream type of a set.
_upstream_status(types) := _stage_order[min({i |
	some t in types
	some i, s in _stage_order
	_type_stage[t] == s
})]

# --- the artifacts as the policy sees them -------------------------------------------

# _delivered holds for the type the current handoff delivers (its producer's handoff).
_delivered(type) if {
	_producer_handoff
	lib.output.type == type
}

# _doc is an artifact's content as the current request sees it: the output a handoff
# delivers, else the latest recorded version; {} when there is none.
_doc(type) := lib.output.content if {
	_delivered(type)
	is_object(lib.output.content)
} else := c if {
	c := core.latest_version(type).content
	is_object(c)
} else := {}

# _version_n is the version number _doc refers to.
_version_n(type) := lib.output.version if _delivered(type)

else := core.latest_number(type)

# _prefix is the request path (handoff) or state path (recorded version) of _doc.
_prefix(type) := "output.content" if _delivered(type)

else := sprintf("artifacts.%s.v%d.content", [type, core.latest_number(type)])

# _label names a version in messages: "A5 v2".
_label(type) := sprintf("%s v%d", [type, _version_n(type)])

# _has_doc holds when the artifact exists for the current request.
_has_doc(type) if _delivered(type)

_has_doc(type) if core.latest_number(type) > 0

# _open_defects are the ids of the open defects of a type.
_open_defects(type) := {id |
	some id, rec in lib.state.defects
	rec.status == "open"
	rec.defect.artifact == type
}

# _returned holds for a type whose latest version went back to its producer: returned
# at a handoff or a check (revision_required), or an approved version with open defects
# (the internal review, the client or the production lead returned it).
_returned(type) if core.latest_status(type) == "revision_required"

_returned(type) if count(_open_defects(type)) > 0

# _current holds for a type whose latest version stands: delivered or approved, and not
# returned.
_current(type) if {
	core.latest_status(type) in {"under_review", "approved"}
	not _returned(type)
}
