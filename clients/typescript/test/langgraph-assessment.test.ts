// Workflow and the LangGraph adapter on the assessment pack, against a real `handoffctl
// serve`: the pack's envelope (assessment_id, created_at, handoff_*) filled from the served
// schemas, an idempotent start, a retry honoured after its delay, a person's answer found
// again on a re-run.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { HandoffClient, Workflow, type Decision } from "../src/index.js";
import { governedNode, HandoffState, handoffRouter, startNode, type Ask, type HandoffStateType } from "../src/langgraph/index.js";
import { present, scenario } from "../examples/scenarios.js";
import { startServe, type PrincipalSpec, type Served } from "./serve.js";

const tenant = "acme";
const people: PrincipalSpec[] = [
  { name: "orchestrator", tenant_id: tenant, type: "system", id: "orchestrator" },
  ...["knowledge_steward", "scf_control_analyst", "framework_mapper"].map((id) => ({ name: id, tenant_id: tenant, type: "agent" as const, id })),
];

// The scenario's steps without what Workflow now fills itself.
const filled = ["assessment_id", "created_at", "handoff_id", "handoff_type", "agent_run_id", "subject_id", "retry"];
const steps = scenario("assessment", "18-retry-due.scenario");
function bare(id: string): Ask {
  const s = steps.get(id)!;
  const fields = present(s);
  for (const k of filled) delete fields[k];
  return { actor: s.actor, kind: s.kind, fields };
}

let served: Served;
before(async () => {
  served = await startServe(people);
});
after(async () => {
  await served?.stop();
});

function assessment(name: string): Workflow {
  return new Workflow({
    tenant,
    organization: "acme-health",
    workflowId: `wf-${name}-${Date.now()}`,
    pack: "assessment",
    subject: "asm-2026-isms",
    participants: people.map((p) => ({
      actor: { type: p.type, id: p.id },
      client: new HandoffClient({ baseUrl: served.url, token: served.tokens[p.name] }),
    })),
  });
}

describe("Workflow on the assessment pack", () => {
  it("fills the envelope the pack's schemas require: assessment_id, created_at, handoff_id, handoff_type, agent_run_id", async () => {
    const workflow = assessment("envelope");
    const start = bare("s18d-01");
    const started = await workflow.start("orchestrator", start.fields);
    assert.deepEqual([started.outcome, started.reasons.map((r) => r.code)], ["allow", []]);
    const k = bare("s18d-02");
    const d = await workflow.submit(k.actor!, k.kind, k.fields, `${workflow.id}:knowledge:1`);
    assert.deepEqual([d.outcome, d.reasons.map((r) => r.code)], ["allow", []]);
    const entries = (await workflow.reader.log(tenant, workflow.id)).entries;
    const sent = entries[1]!.request as Record<string, unknown>;
    assert.equal(sent.assessment_id, "asm-2026-isms");
    assert.equal(sent.handoff_type, "sequential");
    assert.match(String(sent.handoff_id), /knowledge:1/);
    assert.match(String(sent.agent_run_id), /knowledge:1/);
    assert.ok(Math.abs(Date.parse(String(sent.created_at)) - Date.now()) < 60_000);
  });

  it("starts once: a re-run's start returns the recorded decision", async () => {
    const workflow = assessment("start-once");
    const first = await workflow.startOnce("orchestrator", bare("s18d-01").fields);
    const again = await workflow.startOnce("orchestrator", bare("s18d-01").fields);
    assert.equal(first.outcome, "allow");
    assert.equal(again.decision_id, first.decision_id);
    assert.equal((await workflow.reader.log(tenant, workflow.id)).entries.length, 1);
  });
});

describe("the adapter on the assessment pack", () => {
  // knowledge_steward → scf_control_analyst → framework_mapper, whose lookup times out
  // once: the orchestrator reports it, the engine answers retry with a delay.
  function pipeline(workflow: Workflow) {
    const mapper = (input: { attempt: number }): Ask => {
      if (input.attempt === 1) return bare("s18d-04"); // the failure report
      const retried = bare("s18d-09");
      retried.fields.input_artifacts = ["${ref:CONTROL_ANALYSIS@1}"]; // Workflow cites the RETRY_RECORD the retry recorded
      (retried.fields.context as { artifacts: { ref: string }[] }).artifacts[1]!.ref = "${ref:RETRY_RECORD@latest}";
      return retried;
    };
    const route = handoffRouter({ nodes: { knowledge_steward: "knowledge_steward", scf_control_analyst: "scf_control_analyst", framework_mapper: "framework_mapper" } });
    return new StateGraph(HandoffState)
      .addNode("start", startNode(workflow, "orchestrator", () => bare("s18d-01").fields))
      .addNode("knowledge_steward", governedNode(workflow, "knowledge_steward", () => bare("s18d-02")))
      .addNode("scf_control_analyst", governedNode(workflow, "scf_control_analyst", () => bare("s18d-03")))
      .addNode("framework_mapper", governedNode(workflow, "framework_mapper", mapper))
      .addEdge(START, "start")
      .addConditionalEdges("start", route)
      .addConditionalEdges("knowledge_steward", route)
      .addConditionalEdges("scf_control_analyst", route)
      .addConditionalEdges("framework_mapper", route, ["framework_mapper", END])
      .compile({ checkpointer: new MemorySaver() });
  }

  it("waits out a retry's delay and sends the retry with the fields the pack requires", async () => {
    const workflow = assessment("retry");
    const state = await pipeline(workflow).invoke({}, { configurable: { thread_id: workflow.id } });
    const codes = state.steps.map((s) => `${s.node}:${s.outcome}${s.codes.length ? `(${s.codes.join(",")})` : ""}`);
    assert.deepEqual(codes, ["start:allow", "knowledge_steward:allow", "scf_control_analyst:allow", "framework_mapper:retry", "framework_mapper:allow"], JSON.stringify(state.decision?.reasons));
    const log = (await workflow.reader.log(tenant, workflow.id)).entries;
    const retry = log.find((e) => e.decision.outcome === "retry")!.decision as Decision;
    const sent = log.at(-1)!;
    const waited = Date.parse(sent.decision.decided_at) - Date.parse(retry.decided_at);
    assert.ok(waited >= retry.retry!.delay_ms, `waited ${waited} ms of ${retry.retry!.delay_ms}`);
    const request = sent.request as Record<string, unknown>;
    assert.equal(request.handoff_type, "retry");
    const record = retry.events.find((e) => e.type === "artifact_recorded") as { ref: { type: string } };
    assert.equal(record.ref.type, "RETRY_RECORD");
    assert.deepEqual((request.input_artifacts as unknown[]).at(-1), record.ref);
    assert.deepEqual(request.retry, { count: retry.retry!.attempt - 1, type: "tool_transient", reason: "scf_strm_lookup timed out after 30 s" });

    // A fresh graph on the same workflow finds every decision again (the retry due long
    // since): nothing recorded twice, nothing refused.
    const again = await pipeline(workflow).invoke({}, { configurable: { thread_id: `${workflow.id}-again` } });
    assert.deepEqual(again.steps.map((s) => s.decision_id), state.steps.map((s) => s.decision_id));
    assert.equal((await workflow.reader.log(tenant, workflow.id)).entries.length, log.length);
  });

  it("stops waiting for a retry when the signal fires", async () => {
    const abort = new AbortController();
    const route = handoffRouter({ nodes: { framework_mapper: "framework_mapper" }, signal: abort.signal });
    const retry = { outcome: "retry", decided_at: new Date().toISOString(), retry: { attempt: 2, max_attempts: 3, delay_ms: 60_000 }, next: [] } as unknown as Decision;
    const started = Date.now();
    setTimeout(() => abort.abort(new Error("stopped")), 50);
    const state: HandoffStateType = { decision: retry, from: "framework_mapper", handed: {}, working: {}, inbox: {}, revise: [], refused: null, blocked: [], attempts: {}, steps: [] };
    await assert.rejects(route(state), /stopped/);
    assert.ok(Date.now() - started < 5_000);
  });
});
