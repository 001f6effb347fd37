"""The client against a real handoffctl serve: resends that keep their request_id, a
request refused on this side before any call, the service's errors, and every read."""

import json
import os
import socket
import unittest
import uuid

import served
from lossy_proxy import LossyProxy
from served import Served

from handoff import Handoff, HandoffError, Retry, ValidationError

FAST = Retry(attempts=3, base=0.01, cap=0.05)
HOST = {"name": "orchestrator", "tenant_id": "acme", "type": "system", "id": "orchestrator"}
MARIA = {"name": "maria", "tenant_id": "acme", "type": "human", "id": "maria.lopez", "roles": ["campaign_approver"]}


def setUpModule():
    global server
    server = Served([HOST, MARIA])


def tearDownModule():
    server.stop()


def start(workflow, **extra):
    return {
        "kind": "start", "tenant_id": "acme", "organization_id": "acme-marketing",
        "workflow_id": workflow, "trace_id": f"trace-{workflow}", "pack": "campaign",
        "actor": {"type": "system", "id": "orchestrator"}, "subject_id": "spring-launch",
        "brief": {"client": "Brightbrew", "business_objective": "Grow trial sign-ups by 20% in Q2",
                  "product": "Brightbrew Cold Brew"},
        **extra,
    }


def fresh(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class Resends(unittest.TestCase):
    def test_a_lost_answer_is_resent_with_the_same_request_id_and_gets_the_recorded_decision(self):
        proxy = LossyProxy(server.url, lose=1)
        self.addCleanup(proxy.close)
        client = Handoff(proxy.url, server.tokens["orchestrator"], retry=FAST)
        wf = fresh("wf-resend")
        decision = client.submit(start(wf, request_id=f"req-{wf}"))
        posts = [body for method, _, body in proxy.calls if method == "POST"]
        self.assertEqual(len(posts), 2, "the first answer was lost, so the request went twice")
        self.assertEqual(posts[0], posts[1], "the same request, request_id and all")
        self.assertEqual(decision["outcome"], "allow")
        log = server.client("orchestrator").log("acme", wf)
        self.assertEqual(len(log), 1, "decided once")
        self.assertEqual(log[0]["decision"]["decision_id"], decision["decision_id"], "the recorded decision")

    def test_a_request_without_request_id_gets_one_before_the_first_send(self):
        proxy = LossyProxy(server.url, lose=1)
        self.addCleanup(proxy.close)
        client = Handoff(proxy.url, server.tokens["orchestrator"], retry=FAST)
        decision = client.submit(start(fresh("wf-noid")))
        posts = [body for method, _, body in proxy.calls if method == "POST"]
        self.assertEqual(len(posts), 2)
        self.assertTrue(posts[0]["request_id"])
        self.assertEqual(posts[0]["request_id"], posts[1]["request_id"])
        self.assertEqual(decision["request_id"], posts[0]["request_id"])

    def test_no_server_is_unreachable_after_every_attempt(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]  # nothing listens on it once closed
        client = Handoff(f"http://127.0.0.1:{port}", "token", retry=FAST)
        with self.assertRaises(HandoffError) as caught:
            client.packs()
        self.assertEqual((caught.exception.status, caught.exception.code), (0, "UNREACHABLE"))


class Refusals(unittest.TestCase):
    def test_an_invalid_request_is_refused_with_its_paths_before_any_call(self):
        proxy = LossyProxy(server.url)
        self.addCleanup(proxy.close)
        client = Handoff(proxy.url, server.tokens["orchestrator"])
        client.pack_openapi("campaign")  # read once, then kept
        calls = len(proxy.calls)
        bad = start(fresh("wf-bad"), request_id="req-bad")
        bad["brief"]["budget"] = "large"
        del bad["actor"]["id"]
        bad["trace_id"] = ""
        with self.assertRaises(ValidationError) as caught:
            client.submit(bad)
        self.assertEqual(sorted(caught.exception.paths), ["actor.id", "brief.budget", "trace_id"])
        self.assertIn("brief.budget: is not a property", str(caught.exception))
        with self.assertRaises(ValidationError):
            client.evaluate(bad)
        self.assertEqual(len(proxy.calls), calls, "nothing was sent")

    def test_validation_can_be_turned_off_and_the_service_then_decides(self):
        client = server.client("orchestrator")
        bad = start(fresh("wf-unchecked"))
        bad["brief"]["budget"] = "large"
        decision = client.submit(bad, validate=False)
        self.assertEqual(decision["outcome"], "block")
        self.assertIn("brief.budget", [r.get("path") for r in decision["reasons"]])

    def test_a_request_of_a_known_workflow_is_checked_against_that_workflows_pack(self):
        client = server.client("maria")
        wf = fresh("wf-cancel")
        server.client("orchestrator").submit(start(wf))
        with self.assertRaises(ValidationError) as caught:
            client.submit({"kind": "cancel", "tenant_id": "acme", "workflow_id": wf, "trace_id": "t",
                           "actor": {"type": "human", "id": "maria.lopez", "roles": ["campaign_approver"]},
                           "reason": 7})
        self.assertEqual(caught.exception.pack, "campaign")
        self.assertEqual(caught.exception.paths, ["reason"])

    def test_the_services_errors_carry_code_and_hint(self):
        with self.assertRaises(HandoffError) as caught:
            server.client("orchestrator").state("acme", "wf-none")
        e = caught.exception
        self.assertEqual((e.status, e.code), (404, "NOT_FOUND"))
        self.assertTrue(e.message and e.hint, e)
        with self.assertRaises(HandoffError) as caught:
            server.client("orchestrator").submit({**start(fresh("wf-as-maria")), "actor": MARIA_ACTOR}, validate=False)
        self.assertEqual((caught.exception.status, caught.exception.code), (403, "IDENTITY_MISMATCH"))
        with self.assertRaises(HandoffError) as caught:
            Handoff(server.url, "not-a-token").packs()
        self.assertEqual((caught.exception.status, caught.exception.code), (401, "UNAUTHENTICATED"))


MARIA_ACTOR = {"type": "human", "id": "maria.lopez", "roles": ["campaign_approver"]}


STALE = ("clients/schemas is not what the server serves: run go test ./service -run "
         "TestCommittedPackDocumentsAreCurrent -update, then python3 clients/python/generate.py")


class Reads(unittest.TestCase):
    def test_the_served_pack_documents_are_the_committed_copies(self):
        client = server.client("orchestrator")
        for pack in ("assessment", "campaign", "support", "video"):
            with self.subTest(pack=pack):
                committed = os.path.join(served.REPO, "clients", "schemas", pack)
                with open(os.path.join(committed, "openapi.json")) as f:
                    self.assertTrue(client.pack_openapi(pack) == json.load(f), f"{STALE} ({pack}/openapi.json)")
                with open(os.path.join(committed, "schemas.json")) as f:
                    copy = json.load(f)
                schemas = client.schemas(pack)["schemas"]
                self.assertTrue(schemas.pop("pack_digest"))  # the copies leave it out: it moves with every edit
                copy.pop("pack_digest")
                self.assertTrue(schemas == copy, f"{STALE} ({pack}/schemas.json)")

    def test_packs_contract_decision_explain_and_a_dry_run(self):
        client = server.client("orchestrator")
        me = client.whoami()
        self.assertEqual((me["tenant_id"], me["actor"]["type"], me["actor"]["id"]), ("acme", "system", "orchestrator"))
        self.assertIn("campaign", json.dumps(client.packs()))
        self.assertTrue(client.contract("campaign"))
        wf = fresh("wf-reads")
        dry = client.evaluate(start(wf))
        self.assertEqual((dry["outcome"], dry["recorded"]), ("allow", False))
        with self.assertRaises(HandoffError):
            client.state("acme", wf)  # a dry run records nothing
        decision = client.submit(start(wf))
        self.assertEqual(client.decision(decision["decision_id"])["decision"]["decision_id"], decision["decision_id"])
        self.assertIn("reasons", json.dumps(client.explain(decision["decision_id"])))
        self.assertEqual([w["workflow_id"] for w in client.workflows("acme", pack="campaign") if w["workflow_id"] == wf], [wf])
        self.assertTrue(client.verify("acme", wf)["ok"])


if __name__ == "__main__":
    unittest.main()
