"""A small client of the Handoff service (handoffctl serve), Python standard library only.

    client = Handoff("http://127.0.0.1:8080", token)
    decision = client.submit({...})          # every decision, a block too
    client.state("acme", "wf-1")

A block is a decision, returned like any other. HandoffError carries the service's
error code and hint (IDENTITY_MISMATCH when a request is not its token's, NO_DECISION
when no decision could be made: treat the request as blocked and send it again with the
same request_id).
"""

import json
import urllib.error
import urllib.parse
import urllib.request


class HandoffError(Exception):
    def __init__(self, status, body):
        self.status = status
        self.code = body.get("code", "")
        self.hint = body.get("hint", "")
        self.decision = body.get("decision")
        super().__init__(f"{status} {self.code}: {body.get('message', '')}")


class Handoff:
    def __init__(self, base_url, token, timeout=30):
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _call(self, method, path, body=None, query=None):
        url = self.base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            raise HandoffError(e.code, json.loads(e.read() or b"{}")) from None

    def submit(self, request):
        return self._call("POST", "/v1/requests", request)

    def evaluate(self, request):
        return self._call("POST", "/v1/evaluate", request)

    def state(self, tenant, workflow):
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/workflows/{_seg(workflow)}")

    def log(self, tenant, workflow):
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/workflows/{_seg(workflow)}/log")["entries"]

    def workflows(self, tenant, **filters):
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/workflows", query=filters)["workflows"]

    def verify(self, tenant):
        return self._call("GET", f"/v1/tenants/{_seg(tenant)}/verify")


def _seg(s):
    return urllib.parse.quote(s, safe="")
