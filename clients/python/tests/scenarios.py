"""Request contents from the packs' scenario files (policies_test/handoff/PACK/scenarios),
so the tests send what the engine's own tests send.

A scenario that sets a clock (a step's "now") plays at its own time; the service decides
at its real time. present() moves every time in a step by the distance between the
scenario's clock and the real one, so what was 30 s old in the scenario is 30 s old now.
"""

import datetime
import json
import os
import re

from served import REPO


class Step:
    def __init__(self, raw, now):
        self.name = raw["name"]
        self.request = raw["request"]
        self.expect = raw["expect"]
        self.now = now  # the scenario's time at this step; None when it sets none

    @property
    def actor(self):
        return self.request["actor"]

    def present(self, real_now=None):
        """The step's request with its times moved to the present."""
        if self.now is None:
            return json.loads(json.dumps(self.request))
        real_now = real_now or datetime.datetime.now(datetime.timezone.utc)
        then = _parse(self.now)
        return _shift(self.request, real_now - then, (real_now.date() - then.date()).days)


def steps(pack, file):
    """The steps of policies_test/handoff/PACK/scenarios/FILE, in order."""
    with open(os.path.join(REPO, "policies_test", "handoff", pack, "scenarios", file)) as f:
        raw = json.load(f)
    out, now = [], None
    for s in raw["steps"]:
        now = s.get("now", now)  # a step without now keeps the time of the one before
        out.append(Step(s, now))
    return out


def principals(all_steps):
    """One principal per actor of the steps (its tenant, type, id and every role it
    claims), named TENANT/ID."""
    found = {}
    for s in all_steps:
        a, tenant = s.actor, s.request["tenant_id"]
        p = found.setdefault(f"{tenant}/{a['id']}", {"name": f"{tenant}/{a['id']}", "tenant_id": tenant,
                                                      "type": a["type"], "id": a["id"]})
        if a.get("roles"):
            p["roles"] = sorted(set(p.get("roles", [])) | set(a["roles"]))
    return list(found.values())


_TIMESTAMP = re.compile(r"\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\b")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b(?!T)")


def _parse(t):
    return datetime.datetime.fromisoformat(t.replace("Z", "+00:00"))


def _format(t):
    s = t.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return s.replace(".000Z", "Z")


def _shift(v, delta, days):
    # Timestamps move by the exact distance; calendar dates, also inside messages, by
    # whole days, so texts and claims keep agreeing.
    if isinstance(v, str):
        v = _TIMESTAMP.sub(lambda m: _format(_parse(m.group(1)) + delta), v)
        return _DATE.sub(lambda m: (datetime.date.fromisoformat(m.group(1)) + datetime.timedelta(days)).isoformat(), v)
    if isinstance(v, list):
        return [_shift(x, delta, days) for x in v]
    if isinstance(v, dict):
        return {k: _shift(x, delta, days) for k, x in v.items()}
    return v
