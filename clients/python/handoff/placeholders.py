"""The placeholders of request templates and scenario files, resolved from a workflow's
state as the engine's resolver does (engine/scenario/resolve.go). A placeholder is a
JSON string that is exactly one of:

    ${workflow_id}        the workflow's id
    ${state_version}      its state version
    ${conflict_id}        the conflict last opened, when the caller knows one
    ${ref:TYPE@N}         artifact version N of TYPE: {"id", "type", "version", "hash"}
    ${ref:TYPE@latest}    the latest recorded version of TYPE
    ${hash:TYPE@N}        that version's hash alone ("sha256:..."); @latest too
"""

import copy


class PlaceholderError(ValueError):
    pass


def is_placeholder(s):
    return isinstance(s, str) and s.startswith("${") and s.endswith("}")


def resolve(value, state, conflict_id=None):
    """A copy of value (decoded JSON) with every placeholder replaced from state (the
    workflow's state as GET /v1/tenants/{tenant}/workflows/{workflow} answers it)."""
    return _replace(copy.deepcopy(value), state, conflict_id)


def _replace(v, state, conflict_id):
    if isinstance(v, dict):
        for k in sorted(v):  # in key order, so the first error is the same every time
            v[k] = _replace(v[k], state, conflict_id)
    elif isinstance(v, list):
        for i, e in enumerate(v):
            v[i] = _replace(e, state, conflict_id)
    elif is_placeholder(v):
        return _value(v[2:-1], state, conflict_id)
    return v


def _value(name, state, conflict_id):
    if name == "workflow_id":
        return state["workflow_id"]
    if name == "state_version":
        return state["state_version"]
    if name == "conflict_id":
        if not conflict_id:
            raise PlaceholderError("${conflict_id}: no conflict was opened before it")
        return conflict_id
    kind, _, spec = name.partition(":")
    if kind not in ("ref", "hash") or "@" not in spec:
        raise PlaceholderError(f"unknown placeholder ${{{name}}}: the placeholders are ${{workflow_id}}, "
                               "${state_version}, ${conflict_id}, ${ref:TYPE@N}, ${ref:TYPE@latest}, "
                               "${hash:TYPE@N} and ${hash:TYPE@latest}")
    typ, _, ver = spec.partition("@")
    if not typ or not (ver == "latest" or (ver.isdigit() and int(ver) >= 1)):
        raise PlaceholderError(f"${{{name}}}: want TYPE@N (a version number) or TYPE@latest")
    history = (state.get("artifacts") or {}).get(typ)
    if not history or not history.get("versions"):
        recorded = ", ".join(sorted(t for t, h in (state.get("artifacts") or {}).items() if h.get("versions")))
        raise PlaceholderError(f"${{{name}}}: the workflow has no artifact of type {typ} "
                               f"({'it records ' + recorded if recorded else 'it records no artifact yet'})")
    n = history["latest"] if ver == "latest" else int(ver)
    version = history["versions"].get(str(n))
    if version is None:
        have = ", ".join(f"v{k}" for k in sorted(history["versions"], key=int))
        raise PlaceholderError(f"${{{name}}}: the workflow has no {typ} v{n} ({typ} has {have})")
    ref = version["ref"]
    if kind == "hash":
        return ref["hash"]
    return {"id": ref["id"], "type": ref["type"], "version": ref["version"], "hash": ref["hash"]}
