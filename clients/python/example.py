"""Plays a campaign workflow against a running Handoff service with the demo tokens of
service/demo/principals.json, and checks every answer. Standard library only.

    handoffctl serve --principals service/demo/principals.json &
    python3 clients/python/example.py http://127.0.0.1:8080
"""

import sys
import uuid

from handoff import Handoff, HandoffError


def main(base):
    run = uuid.uuid4().hex[:8]
    wf = f"wf-demo-{run}"
    host = Handoff(base, "demo-orchestrator")
    maria = Handoff(base, "demo-maria")

    d = host.submit({
        "request_id": f"req-start-{run}", "kind": "start", "tenant_id": "acme",
        "organization_id": "acme-marketing", "workflow_id": wf, "trace_id": f"trace-{run}",
        "actor": {"type": "system", "id": "orchestrator"}, "pack": "campaign",
        "subject_id": "brightbrew-q2-launch",
        "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups by 20% in Q2",
                  "product": "Brightbrew Cold Brew"},
    })
    assert d["outcome"] == "allow", d
    print(f"start       {d['outcome']:12} {d['status_before']} -> {d['status_after']}")

    cancel = {
        "request_id": f"req-cancel-{run}", "kind": "cancel", "tenant_id": "acme",
        "organization_id": "acme-marketing", "workflow_id": wf, "trace_id": f"trace-{run}",
        "actor": {"type": "human", "id": "maria", "roles": ["campaign_approver"]},
        "reason": "the client paused the launch",
    }
    # The host's token cannot act as Maria: refused, and kept in the audit stream.
    try:
        host.submit(cancel)
        raise SystemExit("the host's token cancelled as maria")
    except HandoffError as e:
        assert e.status == 403 and e.code == "IDENTITY_MISMATCH", e
        print(f"cancel      refused      {e.code} (sent with the host's token)")

    d = maria.submit(cancel)
    assert d["outcome"] == "allow", d
    print(f"cancel      {d['outcome']:12} {d['status_before']} -> {d['status_after']} (Maria's token)")
    again = maria.submit(cancel)
    assert again == d, "the same request_id answers the same decision"

    st = host.state("acme", wf)
    assert st["status"] == "CANCELLED" and st["terminal"], st
    log = host.log("acme", wf)
    assert [e["decision"]["kind"] for e in log] == ["start", "cancel"], log
    listed = [w["workflow_id"] for w in host.workflows("acme", pack="campaign")]
    assert wf in listed, listed
    v = host.verify("acme")
    assert v["ok"], v
    print(f"state       {st['status']}, {len(log)} decisions, chains verified ({len(v['reports'])})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080")
