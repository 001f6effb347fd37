package handoff.core

# The helpers every pack reads the workflow's counters and artifacts and writes its
# events with, as core.<name>(...).

# counter is the workflow counter name (state.counters), 0 when absent.
counter(name) := n if {
	n := _state.counters[name]
	is_number(n)
} else := 0

# latest_number is the highest recorded version number of an artifact type, 0 when none.
latest_number(type) := _latest_number(type)

# latest_status is the status of the latest version of a type, "missing" when none.
latest_status(type) := s if {
	s := latest_version(type).status
} else := "missing"

# latest_content is the content of the latest version of a type, {} when none.
latest_content(type) := c if {
	c := latest_version(type).content
	is_object(c)
} else := {}

# approved_statuses are the statuses of a version a person has approved.
approved_statuses := {"approved", "final"}

# last_approved_number is the highest version of a type whose status is approved or
# final; undefined when none is. The state's "approved" number (approved_version) is not
# used: it keeps pointing at a version after that version is superseded.
last_approved_number(type) := max(ns) if {
	ns := {v.ref.version | some v in artifact(type).versions; v.status in approved_statuses}
	count(ns) > 0
}

# last_approved is the version last_approved_number names.
last_approved(type) := artifact_version(type, last_approved_number(type))

# history_id is the artifact id the workflow records for a type, default_id when the
# type has no version yet.
history_id(type, default_id) := h.id if {
	h := artifact(type)
} else := default_id

# producer is the agent the pack's contract names as a type's producer, default_value
# when the contract names none.
producer(type, default_value) := p if {
	p := _artifact_contracts[type].producer
	is_string(p)
} else := default_value

# next_ref is the ref of the next version of a type the policy records itself, with
# content: the workflow's id for the type (default_id before its first version), the
# version after the latest, and the content's hash.
next_ref(type, default_id, content) := {
	"id": history_id(type, default_id),
	"type": type,
	"version": _latest_number(type) + 1,
	"hash": content_hash(content),
}

# content_hash is the hash of an artifact content as the events carry it:
# "sha256:" and the hex SHA-256 of its JSON.
content_hash(content) := sprintf("sha256:%s", [crypto.sha256(json.marshal(content))])

# open_statuses are the artifact statuses a newer version supersedes.
open_statuses := {"draft", "under_review", "revision_required"}

# status_event is the artifact_status event setting version n of a type to status.
status_event(type, n, status) := {"type": "artifact_status", "artifact": type, "version": n, "status": status}

# supersede_open is [the event superseding the latest version of a type] while that
# version is still open, else [].
supersede_open(type) := [status_event(type, v.ref.version, "superseded") |
	v := latest_version(type)
	v.status in open_statuses
]

# supersede_approved is the events superseding every approved version of a type but
# version keep.
supersede_approved(type, keep) := [status_event(type, v.ref.version, "superseded") |
	some v in artifact(type).versions
	v.status == "approved"
	v.ref.version != keep
]
