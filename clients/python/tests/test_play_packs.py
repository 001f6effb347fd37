"""A host that knows each pack only from GET /v1/packs/{pack}/openapi.json plays one
workflow of each of the four packs to its end against a real handoffctl serve: every
request is checked against the document's PackRequest before it is sent, and every
decision and state the service answers against the document's own response schemas."""

import unittest

import scenarios
from served import Served

from handoff import resolve, validate

# One happy path per pack: each ends in a terminal status.
PLAYS = [
    ("campaign", "01-happy-path.scenario"),
    ("support", "00-full-happy-path.scenario"),  # sets a clock: its times are moved to now
    ("video", "01-happy-path.scenario"),
    ("assessment", "eval-1-full-synthetic-pipeline.scenario"),
]


def setUpModule():
    global server, plays
    plays = {pack: scenarios.steps(pack, file) for pack, file in PLAYS}
    server = Served(scenarios.principals([s for steps in plays.values() for s in steps]))


def tearDownModule():
    server.stop()


def response_schema(doc, method, path):
    """The schema of the 200 answer of one operation of an OpenAPI document."""
    return doc["paths"][path][method]["responses"]["200"]["content"]["application/json"]["schema"]


class PlayEachPack(unittest.TestCase):
    def test_campaign(self):
        self.play("campaign")

    def test_support(self):
        self.play("support")

    def test_video(self):
        self.play("video")

    def test_assessment(self):
        self.play("assessment")

    def play(self, pack):
        steps = plays[pack]
        first = steps[0].request
        tenant, workflow = first["tenant_id"], None
        host = server.client(f"{tenant}/{first['actor']['id']}")
        doc = host.pack_openapi(pack)
        decision_schema = response_schema(doc, "post", "/v1/requests")
        state_schema = response_schema(doc, "get", "/v1/tenants/{tenant}/workflows/{workflow}")
        conflict = None
        for i, step in enumerate(steps, 1):
            with self.subTest(step=i, name=step.name):
                request = step.present()
                if workflow is not None:  # a start names nothing recorded yet
                    request.setdefault("workflow_id", workflow)  # as the scenario runner does
                    request = resolve(request, host.state(tenant, workflow), conflict)
                actor = server.client(f"{tenant}/{step.actor['id']}")
                self.assertEqual(actor.check(request), [], "checked before it is sent")
                decision = actor.submit(request)
                self.assertEqual(validate(decision, decision_schema, root=doc), [])
                workflow = workflow or decision["workflow_id"]
                conflict = decision.get("conflict_id") or conflict
                summary = f"{step.name}: {decision['outcome']} {decision['reasons']}"
                self.assertEqual(decision["outcome"], step.expect["outcome"], summary)
                if "status_after" in step.expect:
                    self.assertEqual(decision["status_after"], step.expect["status_after"], summary)
                if "state_version" in step.expect:
                    self.assertEqual(decision["state_version"], step.expect["state_version"], summary)
        state = host.state(tenant, workflow)
        self.assertEqual(validate(state, state_schema, root=doc), [])
        self.assertTrue(state["terminal"], f"{pack} ends in {state['status']}")
        self.assertEqual(len(host.log(tenant, workflow)), len(steps))


if __name__ == "__main__":
    unittest.main()
