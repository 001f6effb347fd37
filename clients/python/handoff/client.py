"""A client of the Handoff service (handoffctl serve), standard library only.

    client = Handoff("http://127.0.0.1:8080", token)
    decision = client.submit({...})          # every decision, a block too
    client.state("acme", "wf-1")

A block is a decision, returned like any other. HandoffError carries the service's
error code and hint (IDENTITY_MISMATCH when a request is not its token's, NO_DECISION
when no decision could be made). Calls that fail on the way (no connection, a 5xx, a
429) are sent again by the client itself, a submission with the same request_id, so the
service answers the decision it recorded rather than deciding twice.

Before a request is sent, submit and evaluate check it against its pack's PackRequest
schema (from GET /v1/packs/{pack}/openapi.json, read once per pack) and raise
ValidationError, naming every path at fault, without calling the service.
"""

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from .errors import HandoffError, ValidationError
from .retry import Retry
from .schema import validate

PACK_REQUEST = "#/components/schemas/PackRequest"


class Handoff:
    def __init__(self, base_url, token, *, timeout=30, retry=Retry(), validate=True):
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retry = retry
        self.validate = validate
        self._openapi = {}  # pack -> its OpenAPI document
        self._packs_of = {}  # (tenant, workflow) -> pack: a workflow never changes pack
        self._lock = threading.Lock()

    # Decisions.

    def submit(self, request, *, validate=None, pack=None):
        """Decides request and records the decision; returns it (a block too).

        A request without request_id gets a new one here, before the first send, so
        that every resend carries the same. pack names the request's pack when the
        client cannot tell it (a start names its own; otherwise the workflow's state
        says). validate=False sends the request unchecked.
        """
        request = self._prepared(request, validate, pack)
        decision = self._call("POST", "/v1/requests", request)
        if decision.get("kind") == "start" and decision.get("workflow_id") and decision.get("pack"):
            self._packs_of[(decision.get("tenant_id"), decision["workflow_id"])] = decision["pack"]
        return decision

    def evaluate(self, request, *, validate=None, pack=None):
        """Decides request without recording anything (a dry run)."""
        return self._call("POST", "/v1/evaluate", self._prepared(request, validate, pack))

    def check(self, request, pack=None):
        """The schema issues of request (empty when it fits), without sending it."""
        pack = pack or self._pack_of(request)
        if pack is None:
            return []
        return validate(request, {"$ref": PACK_REQUEST}, root=self.pack_openapi(pack))

    def decision(self, decision_id):
        """A recorded decision and its log entry."""
        return self._call("GET", f"/v1/decisions/{_seg(decision_id)}")

    def explain(self, decision_id):
        """The rules that produced each reason of a recorded decision."""
        return self._call("GET", f"/v1/decisions/{_seg(decision_id)}/explain")

    # Workflows.

    def state(self, tenant, workflow):
        st = self._call("GET", f"/v1/tenants/{_seg(tenant)}/workflows/{_seg(workflow)}")
        if st.get("pack"):
            self._packs_of[(tenant, workflow)] = st["pack"]
        return st

    def log(self, tenant, workflow):
        """The workflow's recorded decisions, oldest first."""
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/workflows/{_seg(workflow)}/log")["entries"]

    def workflows(self, tenant, **filters):
        """The tenant's workflows, in id order; filters: pack, status, awaiting, waiting,
        agent, reason, q, since, until."""
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/workflows", query=filters)["workflows"]

    def workflow_page(self, tenant, limit=25, cursor=None, **filters):
        """One page of the tenant's workflows, most recent activity first, as
        {"workflows": [...], "next": cursor of the page after, absent on the last}."""
        query = dict(filters, limit=str(limit))
        if cursor:
            query["cursor"] = cursor
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/workflows", query=query)

    def next(self, workflow, tenant=None, at=None):
        """What the workflow waits for: who may act, what each may send and cite.

        Without tenant, the workflow is one of the token's own tenant. at (RFC 3339)
        asks what the policy says at that time instead of now.
        """
        path = f"/v1/workflows/{_seg(workflow)}/next"
        if tenant is not None:
            path = f"/v1/tenants/{_seg(tenant)}/workflows/{_seg(workflow)}/next"
        return self._call("GET", path, query={"at": at} if at else None)

    def verify(self, tenant, workflow=None):
        """Recomputes the tenant's hash chains (or one workflow's)."""
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/verify", query={"workflow": workflow} if workflow else None)

    def whoami(self):
        """The principal of the client's token: the tenant_id and actor (type, id,
        roles) every request it sends must name."""
        return self._call("GET", "/v1/whoami")

    # Packs.

    def packs(self):
        return self._call("GET", "/v1/packs")

    def contract(self, pack):
        """The pack's contract tables, as exported from its CUE."""
        return self._call("GET", f"/v1/packs/{_seg(pack)}/contract")

    def schemas(self, pack):
        """The pack's JSON Schemas: one per request kind and per artifact type."""
        return self._call("GET", f"/v1/packs/{_seg(pack)}/schemas")

    def pack_openapi(self, pack):
        """The pack's OpenAPI 3.1 document, read once and kept: a pack's schema does not
        change while its server runs."""
        doc = self._openapi.get(pack)
        if doc is None:
            doc = self._call("GET", f"/v1/packs/{_seg(pack)}/openapi.json")
            with self._lock:
                doc = self._openapi.setdefault(pack, doc)
        return doc

    def template(self, pack, kind, *, target=None, source=None, output=None, workflow_id=None):
        """A request skeleton of the pack's kind; with workflow_id, filled for that
        workflow (its versions, references and trace)."""
        query = {k: v for k, v in (("target", target), ("source", source), ("output", output),
                                    ("workflow_id", workflow_id)) if v}
        return self._call("GET", f"/v1/packs/{_seg(pack)}/templates/{_seg(kind)}", query=query)

    # Transport.

    def _prepared(self, request, validate_, pack):
        if "request_id" not in request:
            request = {**request, "request_id": f"req-{uuid.uuid4()}"}
        if self.validate if validate_ is None else validate_:
            pack = pack or self._pack_of(request)
            issues = self.check(request, pack)
            if issues:
                raise ValidationError(pack, issues)
        return request

    def _pack_of(self, request):
        """The request's pack: its own (a start), or its workflow's; None when the
        workflow is not recorded (the service's decision says why)."""
        if isinstance(request.get("pack"), str):
            return request["pack"]
        tenant, workflow = request.get("tenant_id"), request.get("workflow_id")
        if not isinstance(tenant, str) or not isinstance(workflow, str):
            return None
        if (tenant, workflow) not in self._packs_of:
            try:
                self.state(tenant, workflow)
            except HandoffError as e:
                if e.status in (403, 404):
                    return None
                raise
        return self._packs_of.get((tenant, workflow))

    def _call(self, method, path, body=None, query=None):
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._send(method, url, data)
            except _Resend as e:
                if attempt >= self.retry.attempts:
                    raise e.error from None
                time.sleep(self.retry.delay(attempt, e.retry_after))

    def _send(self, method, url, data):
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"message": raw.decode("utf-8", "replace").strip()}
            error = HandoffError.from_body(e.code, body)
            if self.retry.retryable(e.code):
                raise _Resend(error, _seconds(e.headers.get("Retry-After"))) from None
            raise error from None
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout) as e:
            # No answer: the call may or may not have arrived; resending is safe.
            reason = getattr(e, "reason", e)
            raise _Resend(HandoffError(0, "UNREACHABLE", f"{url}: {reason}",
                                       "is handoffctl serve running at that address?")) from None


class _Resend(Exception):
    """A failed attempt worth repeating; error is raised when no attempt is left."""

    def __init__(self, error, retry_after=None):
        self.error = error
        self.retry_after = retry_after


def _seconds(header):
    try:
        return max(0.0, float(header)) if header else None
    except ValueError:
        return None  # an HTTP date: the doubling wait applies


def _seg(s):
    return urllib.parse.quote(s, safe="")
