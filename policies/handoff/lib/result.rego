package handoff.lib

# result.rego builds reasons. A rule that produces a reason passes meta, that is
# rego.metadata.rule() called in that rule (OPA makes it a constant when it compiles the
# policy): the reason's code is the custom.code of the rule's METADATA and its title the
# title there, so a reason always names the rule that produced it and its code cannot
# disagree with the rule's annotations.

# reason is a reason that blocks; path "" leaves the path out.
reason(meta, message, path) := reason_outcome(meta, message, path, "block")

# reason_outcome is a reason with the given outcome (block, await_human, revise, ...);
# path "" leaves the path out.
reason_outcome(meta, message, path, outcome) := object.union(_head(meta), {"message": message, "path": path, "outcome": outcome}) if {
	path != ""
} else := object.union(_head(meta), {"message": message, "outcome": outcome})

# gate_reason is reason_outcome naming the gate (or control) that produced it.
gate_reason(meta, message, path, gate, outcome) := object.union(reason_outcome(meta, message, path, outcome), {"gate": gate})

# _head is the code and title of a reason. A rule without METADATA (or an else branch,
# for which rego.metadata.rule() is {}) gives null for both: the decision then fails the
# engine's check of #Reason and the request is blocked (POLICY_ERROR), never allowed for
# want of a code.
_head(meta) := {
	"code": object.get(meta, ["custom", "code"], null),
	"title": object.get(meta, "title", null),
}

# blocking holds for a reason whose outcome is block or missing.
blocking(r) if object.get(r, "outcome", "block") == "block"
