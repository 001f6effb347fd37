// The client against a real `handoffctl serve`: answers, errors with their code and hint,
// timeouts, and retries that resend the same request_id so nothing records twice.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, createServer, type Server } from "node:net";
import { createServer as createHttpServer } from "node:http";
import { HandoffClient, HandoffError, NETWORK, TIMEOUT, type Request } from "../src/index.js";
import { startServe, type Served } from "./serve.js";

let served: Served;
let host: HandoffClient;

before(async () => {
  served = await startServe([
    { name: "host", tenant_id: "acme", type: "system", id: "orchestrator" },
    { name: "maria", tenant_id: "acme", type: "human", id: "maria.lopez", roles: ["campaign_approver"] },
  ]);
  host = new HandoffClient({ baseUrl: served.url, token: served.tokens.host! });
});
after(() => served?.stop());

let n = 0;
function start(workflow: string): Request {
  n++;
  return {
    request_id: `start-${workflow}-${n}`,
    kind: "start",
    tenant_id: "acme",
    organization_id: "acme-marketing",
    workflow_id: workflow,
    trace_id: `trace-${workflow}`,
    actor: { type: "system", id: "orchestrator" },
    pack: "campaign",
    subject_id: "brightbrew-q2-launch",
    brief: { client: "Brightbrew", business_objective: "Grow trial sign-ups by 20% in Q2", product: "Brightbrew Cold Brew" },
  };
}

describe("answers", () => {
  test("submit records and answers the decision; the same request_id answers it again", async () => {
    const req = start("wf-answers");
    const d = await host.submit(req);
    assert.equal(d.outcome, "allow");
    assert.equal(d.status_after, "RESEARCH");
    assert.equal(d.recorded, true);
    assert.deepEqual(d.next?.map((x) => x.agent), ["research_agent"]);
    assert.deepEqual(await host.submit(req), d);
    const log = await host.log("acme", "wf-answers");
    assert.equal(log.entries.length, 1);
    const st = await host.state("acme", "wf-answers");
    assert.equal(st.status, "RESEARCH");
    assert.equal(st.state_version, 1);
    const listed = await host.workflows("acme", { pack: "campaign", status: "RESEARCH" });
    assert.ok(listed.workflows.some((w) => w.workflow_id === "wf-answers"));
    assert.equal((await host.workflows("acme", { pack: "video" })).workflows.length, 0);
    const ex = await host.explain(d.decision_id);
    assert.equal(ex.decision.decision_id, d.decision_id);
    assert.equal(ex.reproduced, true);
    assert.equal(((await host.entry(d.decision_id)).request as Request).request_id, req.request_id);
    assert.equal((await host.verify("acme")).ok, true);
    assert.equal((await host.health()).status, "ok");
    assert.equal((await host.ready()).status, "ready");
    const me = await host.whoami();
    assert.equal(me.tenant_id, "acme");
    assert.equal(me.actor.type, "system");
  });

  test("an id holding '/', ':', '@' and '.' reaches every route as one path segment", async () => {
    const id = "acme.eu/q2/../launch:brightbrew@v1.0";
    const d = await host.submit(start(id));
    assert.equal(d.outcome, "allow");
    assert.equal(d.workflow_id, id);
    assert.equal((await host.state("acme", id)).workflow_id, id);
    assert.deepEqual((await host.log("acme", id)).entries.map((e) => e.decision.workflow_id), [id]);
    assert.ok((await host.workflows("acme")).workflows.some((w) => w.workflow_id === id));
    assert.equal((await host.entry(d.decision_id)).decision.workflow_id, id);
    assert.equal((await host.explain(d.decision_id)).decision.workflow_id, id);
    assert.equal((await host.verify("acme")).ok, true);
    await assert.rejects(host.state("acme", "acme.eu"), (e: HandoffError) => e.status === 404, "a prefix of the id is another workflow");
  });

  test("a block is a decision, not an error", async () => {
    await host.submit(start("wf-block"));
    const d = await host.submit({
      request_id: "cancel-by-agent",
      kind: "cancel",
      tenant_id: "acme",
      workflow_id: "wf-block",
      trace_id: "trace-wf-block",
      actor: { type: "system", id: "orchestrator" },
      expected_version: 7,
      reason: "stale",
    });
    assert.equal(d.outcome, "block");
    assert.ok(d.reasons.some((r) => r.code === "STALE_STATE_VERSION"), JSON.stringify(d.reasons));
  });

  test("evaluate decides without recording", async () => {
    const d = await host.evaluate(start("wf-dry"));
    assert.equal(d.outcome, "allow");
    assert.equal(d.recorded, false);
    await assert.rejects(host.state("acme", "wf-dry"), (e: HandoffError) => e.status === 404 && e.code === "NOT_FOUND");
  });
});

describe("what a workflow waits for, and templates", () => {
  test("next says who may act and what each may send; the time asked is the time answered", async () => {
    await host.submit(start("wf-next"));
    const w = await host.next("acme", "wf-next", { at: "2026-11-02T09:30:00Z" });
    assert.equal(w.workflow_id, "wf-next");
    assert.equal(w.status, "RESEARCH");
    assert.equal(w.terminal, false);
    assert.equal(w.at, "2026-11-02T09:30:00Z");
    assert.ok(w.parties.some((p) => p.id === "research_agent" && p.requests.length > 0));
    const again = await host.next("acme", "wf-next", { at: new Date("2026-11-02T09:30:00Z") });
    assert.deepEqual(again, w);
    await assert.rejects(host.next("acme", "wf-next", { at: "yesterday" }), (e: HandoffError) => e.status === 400 && e.code === "BAD_REQUEST" && e.hint !== undefined);
    await assert.rejects(host.next("acme", "wf-none"), (e: HandoffError) => e.status === 404 && e.code === "NOT_FOUND");
  });

  test("template answers a skeleton, and filled for a workflow its envelope and references", async () => {
    await host.submit(start("wf-template"));
    const tpl = await host.template("campaign", "approval");
    assert.equal(tpl.kind, "approval");
    assert.equal(tpl.workflow_id, "workflow_id");
    const handoff = await host.template("campaign", "handoff", { target: "qa_agent", source: "copywriter" });
    assert.equal(handoff.target_agent, "qa_agent");
    assert.equal(handoff.source_agent, "copywriter");
    const filled = await host.fillTemplate("campaign", "approval", "wf-template");
    assert.equal(filled.request.workflow_id, "wf-template");
    assert.equal(filled.request.tenant_id, "acme");
    assert.equal(filled.request.trace_id, "trace-wf-template");
    assert.ok(Array.isArray(filled.unresolved));
    await assert.rejects(host.template("campaign", "handof"), (e: HandoffError) => e.status === 404 && e.hint!.includes("handoff"));
    await assert.rejects(host.template("campaign", "handoff", { target: "qa_agen" }), (e: HandoffError) => e.status === 400 && e.hint!.includes("qa_agent"));
    await assert.rejects(host.fillTemplate("campaign", "approval", "wf-none"), (e: HandoffError) => e.status === 404);
  });
});

describe("errors carry the service's code and hint", () => {
  test("no token", async () => {
    const anon = new HandoffClient({ baseUrl: served.url });
    await assert.rejects(anon.state("acme", "wf-answers"), (e: HandoffError) => {
      assert.equal(e.status, 401);
      assert.equal(e.code, "UNAUTHENTICATED");
      assert.ok(e.hint.length > 0);
      assert.equal(e.attempts, 1, "a 401 is not retried");
      return true;
    });
  });

  test("a request that is not its token's actor", async () => {
    const maria = new HandoffClient({ baseUrl: served.url, token: served.tokens.maria! });
    await assert.rejects(maria.submit(start("wf-not-maria")), (e: HandoffError) => {
      assert.equal(e.status, 403);
      assert.equal(e.code, "IDENTITY_MISMATCH");
      assert.ok(e.hint.length > 0);
      return true;
    });
  });

  test("another tenant", async () => {
    await assert.rejects(host.log("globex", "wf-1"), (e: HandoffError) => e.status === 403 && e.code === "FORBIDDEN" && e.hint !== "");
  });

  test("a request without request_id is refused before it is sent", async () => {
    const req = { ...start("wf-no-id"), request_id: "" };
    await assert.rejects(host.submit(req), (e: HandoffError) => e.code === "BAD_REQUEST" && e.attempts === 0);
  });
});

describe("timeouts and retries", () => {
  test("no answer within the timeout: TIMEOUT after every retry", async () => {
    const silent = createHttpServer(() => {}); // takes the call, never answers
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const { port } = silent.address() as { port: number };
    try {
      const c = new HandoffClient({ baseUrl: `http://127.0.0.1:${port}`, token: "t", timeoutMs: 150, retries: 2, retryDelayMs: 10 });
      await assert.rejects(c.health(), (e: HandoffError) => {
        assert.equal(e.code, TIMEOUT);
        assert.equal(e.status, 0);
        assert.equal(e.attempts, 3);
        assert.equal(e.retryable, true);
        return true;
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  test("the caller's signal stops the call and its retries", async () => {
    const c = new HandoffClient({ baseUrl: "http://127.0.0.1:9", retries: 5, retryDelayMs: 1_000 });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error("stopped by the caller")), 50);
    await assert.rejects(c.health({ signal: ctl.signal }), /stopped by the caller/);
  });

  test("a connection lost after the service recorded: the retry resends the same request_id and records nothing twice", async () => {
    // A proxy on loopback that passes the first call to the service, lets the service
    // record it, then drops the connection before the answer reaches the client.
    const target = new URL(served.url);
    let calls = 0;
    const proxy: Server = createServer((client) => {
      calls++;
      const first = calls === 1;
      const upstream = connect(Number(target.port), target.hostname);
      client.on("data", (b) => upstream.write(b));
      upstream.on("data", (b) => (first ? client.destroy() : client.write(b)));
      upstream.on("end", () => client.end());
      client.on("close", () => upstream.destroy());
      client.on("error", () => upstream.destroy());
      upstream.on("error", () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const { port } = proxy.address() as { port: number };
    try {
      const c = new HandoffClient({ baseUrl: `http://127.0.0.1:${port}`, token: served.tokens.host!, retries: 2, retryDelayMs: 20 });
      const req = start("wf-retry");
      const d = await c.submit(req);
      assert.ok(calls >= 2, `the client retried (${calls} connections)`);
      assert.equal(d.outcome, "allow");
      assert.equal(d.request_id, req.request_id);
      const log = await host.log("acme", "wf-retry");
      assert.equal(log.entries.length, 1, "recorded once");
      assert.equal(log.entries[0]!.decision.decision_id, d.decision_id, "the retry answered the recorded decision");
    } finally {
      proxy.close();
    }
  });

  test("the retries give up with NETWORK when nothing listens", async () => {
    const c = new HandoffClient({ baseUrl: "http://127.0.0.1:9", retries: 1, retryDelayMs: 5 });
    await assert.rejects(c.health(), (e: HandoffError) => e.code === NETWORK && e.attempts === 2 && e.hint.includes("request_id"));
  });
});

