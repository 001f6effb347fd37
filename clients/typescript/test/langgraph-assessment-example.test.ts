// The assessment example against a real `handoffctl serve`: a run that crashes mid-way,
// run again in a new process (new graph, checkpointer and model call ids), then once more.
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { randomUUID } from "node:crypto";
import type { Decision } from "../src/index.js";
import { assessmentWorkflow, principals, runAssessment, runInNewProcess, tenant, type Run } from "../examples/assessment-langgraph.js";
import { startServe, type Served } from "./serve.js";

let served: Served;
before(async () => {
  served = await startServe(principals);
});
after(async () => {
  await served?.stop();
});

it("re-runs a crashed assessment in a new process to the reviewer's gate and past it, each request recorded once", async () => {
  const id = `wf-assessment-${randomUUID().slice(0, 8)}`;
  const workflow = assessmentWorkflow(served, id);
  await assert.rejects(runAssessment(served, id, { crash: "soa_architect" }), /soa_architect: the model process crashed/);
  const crashed = await workflow.log();
  assert.deepEqual(
    crashed.map((e) => e.decision.outcome),
    ["allow", "allow", "allow", "retry", "allow"],
    JSON.stringify(crashed.map((e) => e.decision.reasons)),
  );

  const again: Run = runInNewProcess(served, id);
  assert.equal(again.status, "EVIDENCE");
  assert.equal(again.interrupts, 1);
  assert.deepEqual(
    again.steps.map((s) => `${s.node}:${s.outcome}`),
    ["start:allow", "knowledge_steward:allow", "scf_control_analyst:allow", "framework_mapper:retry", "framework_mapper:allow", "soa_architect:await_human", "human:allow"],
  );
  const log = await workflow.log();
  assert.deepEqual(log.slice(0, crashed.length).map((e) => e.decision.decision_id), crashed.map((e) => e.decision.decision_id));
  assert.equal(new Set(log.map((e) => e.decision.request_id)).size, log.length);
  assert.ok(log.every((e) => e.decision.outcome !== "block"), JSON.stringify(log.map((e) => e.decision.reasons)));
  assert.ok(!(await workflow.reader.audit(tenant)).entries.some((e) => e.decision.workflow_id === id));

  // The retried mapping went out once the retry's delay had passed.
  const at = log.findIndex((e) => e.decision.outcome === "retry");
  const retry = log[at]!.decision as Decision;
  const retried = log[at + 1]!.decision as Decision;
  assert.equal(retried.request_id, `${id}:framework_mapper:2`);
  assert.ok(Date.parse(retried.decided_at) - Date.parse(retry.decided_at) >= retry.retry!.delay_ms);
  assert.deepEqual((log[at + 1]!.request as { retry: unknown }).retry, { count: 1, type: "tool_transient", reason: "scf_strm_lookup timed out after 30 s" });

  // Once more, in another process: the reviewer's recorded approval is found; no one is asked.
  const third = runInNewProcess(served, id);
  assert.equal(third.interrupts, 0);
  assert.equal(third.status, "EVIDENCE");
  assert.deepEqual(third.steps.map((s) => s.decision_id), again.steps.map((s) => s.decision_id));
  assert.notDeepEqual(third.calls, again.calls); // the models made new call ids
  assert.equal((await workflow.log()).length, log.length);
  assert.equal((await workflow.reader.verify(tenant)).ok, true);
});
