"""What a workflow waits for (GET .../next) and request skeletons (GET
/v1/packs/{pack}/templates/{kind}), against a real server, each answer checked against
the schema service/openapi.json gives it."""

import json
import os
import unittest
import uuid

import served
from served import Served
from test_client import HOST, start

from handoff import HandoffError, validate

with open(os.path.join(served.REPO, "service", "openapi.json")) as f:
    CORE = json.load(f)


def setUpModule():
    global server, client, workflow
    server = Served([HOST])
    client = server.client("orchestrator")
    workflow = f"wf-next-{uuid.uuid4().hex[:8]}"
    assert client.submit(start(workflow))["outcome"] == "allow"


def tearDownModule():
    server.stop()


def component(name):
    return {"$ref": f"#/components/schemas/{name}"}


class Next(unittest.TestCase):
    def test_next_names_who_may_act_and_what_each_may_send(self):
        waiting = client.next(workflow)
        self.assertEqual(validate(waiting, component("Waiting"), CORE), [])
        self.assertEqual((waiting["workflow_id"], waiting["pack"], waiting["terminal"]), (workflow, "campaign", False))
        self.assertTrue(any(p["requests"] for p in waiting["parties"]), waiting["parties"])
        self.assertEqual(client.next(workflow, tenant="acme")["parties"], waiting["parties"])

    def test_next_of_no_workflow_is_not_found(self):
        with self.assertRaises(HandoffError) as caught:
            client.next("wf-none")
        self.assertEqual((caught.exception.status, caught.exception.code), (404, "NOT_FOUND"))


class Templates(unittest.TestCase):
    def test_a_skeleton_of_a_kind(self):
        skeleton = client.template("campaign", "cancel")
        self.assertEqual(validate(skeleton, component("RequestTemplate"), CORE), [])
        self.assertEqual(skeleton["kind"], "cancel")

    def test_a_skeleton_filled_for_a_workflow_checks_against_its_pack(self):
        filled = client.template("campaign", "cancel", workflow_id=workflow)
        self.assertEqual(validate(filled, component("FilledTemplate"), CORE), [])
        request = filled["request"]
        self.assertEqual((request["workflow_id"], request["tenant_id"]), (workflow, "acme"))
        self.assertEqual(request["trace_id"], f"trace-{workflow}", "the start request's trace")

    def test_an_unknown_kind_says_which_there_are(self):
        with self.assertRaises(HandoffError) as caught:
            client.template("campaign", "handof")
        e = caught.exception
        self.assertEqual((e.status, e.code), (404, "NOT_FOUND"))
        self.assertIn("handoff", e.hint)


if __name__ == "__main__":
    unittest.main()
