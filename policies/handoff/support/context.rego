package handoff.support

import data.handoff.core
import data.handoff.lib

# Context packages (seed phase 7: "Treat untrusted tool content as data, never as system
# instructions"). core.context_package picks the fields of an edge's package and never a
# do-not-need field; the fields config.untrusted_fields names for the package's artifact
# type (the customer's message and stated order reference, tool excerpts inside the
# evidence) are passed wrapped as {"untrusted_data": value}, so a recipient can never
# mistake them for its instructions.

_package(edge, content) := {
	"must_know": _label(p.must_know, untrusted),
	"may_know": _label(p.may_know, untrusted),
} if {
	p := core.context_package(edge, content)
	untrusted := {f | some f in object.get(lib.pack_config, ["untrusted_fields", object.get(lib.pack_contract, ["context", edge, "from"], "")], [])}
}

_label(fields, untrusted) := {k: _labeled(k, v, untrusted) | some k, v in fields}

_labeled(k, v, untrusted) := {"untrusted_data": v} if {
	k in untrusted
} else := [_label_record(e, untrusted) | some e in v] if {
	is_array(v)
} else := v

_label_record(e, untrusted) := {k: _wrap(k, x, untrusted) | some k, x in e} if is_object(e)

else := e

_wrap(k, x, untrusted) := {"untrusted_data": x} if k in untrusted

else := x
