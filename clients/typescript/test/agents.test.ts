// The OpenAI Agents SDK adapter against a real `handoffctl serve`: the agents' model is
// scripted, the service is not.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Agent, Runner, handoff, setTracingDisabled } from "@openai/agents";
import { HandoffClient, Workflow, type Contract, type Decision } from "../src/index.js";
import { GovernedRun, HandoffBlocked, contractTools, governed, type PackSchemas } from "../src/agents/index.js";
import { runCampaign } from "../examples/campaign-agents.js";
import { agentIds, campaignPrincipals, participants } from "../examples/principals.js";
import { artifactArgs, reviewArgs, step } from "../examples/campaign-steps.js";
import { Scripts, call, say } from "../examples/scripted.js";
import { campaignTeam } from "../examples/team.js";
import { startServe, type Served } from "./serve.js";

setTracingDisabled(true);

const S11 = "11-s1-targeted-repair";
let served: Served;
let contract: Contract;
let schemas: PackSchemas;
let n = 0;

const client = () => new HandoffClient({ baseUrl: served.url, token: served.tokens.orchestrator! });

before(async () => {
  served = await startServe(campaignPrincipals);
  contract = await client().contract("campaign");
  schemas = await client().schemas("campaign");
});
after(async () => {
  await served?.stop();
});

function workflow(actors: string[] = ["orchestrator", ...agentIds]): Workflow {
  return new Workflow({ tenant: "acme", organization: "acme-marketing", workflowId: `wf-agents-test-${++n}`, pack: "campaign", participants: participants(served, actors) });
}

/** Submits scenario 11's steps as recorded: the workflow up to where a test begins. */
async function upTo(wf: Workflow, ids: string[]): Promise<Decision> {
  let last: Decision | undefined;
  for (const id of ids) {
    const s = step(S11, id);
    last = await wf.submit(s.actor, s.kind, s.fields, `${wf.id}:${id}`);
    assert.equal(last.outcome, s.expect.outcome, `${id}: ${JSON.stringify(last.reasons)}`);
  }
  return last!;
}

function governedRun(wf: Workflow, start: string, from?: Decision): GovernedRun {
  return new GovernedRun({ workflow: wf, agents: campaignTeam(contract, schemas), start, stateVersion: from?.state_version, pollMs: 50 });
}

function runner(scripts: Scripts): Runner {
  return new Runner({ modelProvider: scripts, tracingDisabled: true });
}

const text = (items: unknown) => JSON.stringify(items);

/** An agent's input after a governed handoff: its context package, then the handoff call
 * and its answer (the step's items a stream reports), nothing else. */
function assertContextOnly(items: unknown[], agent: string): void {
  const [context, ...handoff] = items as { role?: string; type?: string; name?: string }[];
  assert.equal(context?.role, "user", `${agent} got ${text(items)}`);
  assert.deepEqual(handoff.map((i) => i.type), ["function_call", "function_call_result"], `${agent} got ${text(items)}`);
  assert.ok(handoff.every((i) => i.name?.startsWith("transfer_to_")), `${agent} got ${text(items)}`);
}

describe("the campaign example", () => {
  test("plays the allowed path, a block, the parallel copy and visual branches, a targeted revision and Maria's approvals, and the log verifies", async () => {
    const s = await runCampaign(served, { print: () => {} });

    // An allowed path: research to delivery, then the client's acknowledgement.
    assert.deepEqual(
      s.log.map((e) => `${e.kind}:${e.outcome}`),
      [
        "start:allow",
        "handoff:allow",
        "review:allow",
        "handoff:await_human",
        "approval:allow",
        "handoff:allow",
        "handoff:allow",
        "review:revise",
        "handoff:allow",
        "review:await_human",
        "approval:allow",
        "handoff:allow",
        "outcome:allow",
      ],
    );
    assert.equal(s.log.at(-1)?.status_after, "COMPLETED");
    assert.equal(JSON.parse(s.finalOutput).status_after, "DELIVERY");

    // The approval names copy and visual: each ran as a run of its own, at the same time.
    assert.deepEqual(s.parallel.named, ["copywriter", "visual_prompt_agent"]);
    assert.deepEqual(s.parallel.branches, ["copywriter", "visual_prompt_agent"]);
    assert.equal(s.parallel.overlapped, true);

    // A blocked handoff: copy on a strategy not yet approved stops the run.
    assert.equal(s.blocked.reachedCaller, true);
    assert.ok(s.blocked.codes.includes("ARTIFACT_NOT_APPROVED"), s.blocked.codes.join());

    // A targeted revision: only the visual goes back; its repaired v2 passes; copy is not rerun.
    assert.deepEqual(s.revision.producers, ["visual_prompt_agent"]);
    assert.equal(s.revision.repaired, "allow");
    assert.equal(s.revision.copywriterRuns, 1);

    // Maria's approvals, each sent with her own token while the run waited.
    assert.deepEqual(s.approvals, [
      { stage: "STRATEGY_APPROVAL", outcome: "allow" },
      { stage: "HUMAN_APPROVAL", outcome: "allow" },
    ]);
    const log = await new Workflow({ tenant: "acme", workflowId: s.workflowId, pack: "campaign", participants: participants(served, ["maria.lopez"]) }).reader.log("acme", s.workflowId);
    const approvers = log.entries.filter((e) => e.decision.kind === "approval").map((e) => (e.request as { actor: { id: string } }).actor.id);
    assert.deepEqual(approvers, ["maria.lopez", "maria.lopez"]);

    assert.equal(s.verifyOk, true);
  });
});

describe("governed handoffs", () => {
  test("a block reaches the caller of run() as HandoffBlocked, with the reason codes", async () => {
    const wf = workflow();
    const standing = await upTo(wf, ["c11-01", "c11-02", "c11-03", "c11-04"]);
    const scripts = new Scripts().add("copywriter", [
      call("record_copy_package", artifactArgs(step(S11, "c11-06")), "copy-1"),
      call("transfer_to_qa_agent", {}, "copy-1-handoff"),
    ]);
    const run = governedRun(wf, "copywriter", standing);
    await assert.rejects(runner(scripts).run(run.agents.copywriter!, "Write the copy.", { context: run }), (err: unknown) => {
      assert.ok(err instanceof HandoffBlocked, String(err));
      assert.equal(err.decision.outcome, "block");
      assert.ok(err.codes.includes("ARTIFACT_NOT_APPROVED"), err.codes.join());
      assert.ok(err.codes.includes("OUT_OF_SEQUENCE"), err.codes.join());
      return true;
    });
    assert.equal((await wf.state()).status, "STRATEGY_APPROVAL");
  });

  test("a revise routes to the producer the decision names, with the defects, whatever the model chose", async () => {
    // The setup includes Maria's approval of the strategy, sent with her token.
    const wf = workflow(["orchestrator", ...agentIds, "maria.lopez"]);
    const standing = await upTo(wf, ["c11-01", "c11-02", "c11-03", "c11-04", "c11-05", "c11-06", "c11-07"]);
    const scripts = new Scripts()
      .add("qa_agent", [call("record_review", reviewArgs(step(S11, "c11-08")), "qa-1"), call("transfer_to_delivery_agent", {}, "qa-1-handoff")])
      .add("visual_prompt_agent", [say("Repairing the web banner prompt.")]);
    const run = governedRun(wf, "qa_agent", standing);
    const result = await runner(scripts).run(run.agents.qa_agent!, "Review the copy and the visual.", { context: run });
    assert.equal(result.lastAgent?.name, "visual_prompt_agent");
    assert.equal(run.decisions[0]?.outcome, "revise");
    const input = text(scripts.inputs("visual_prompt_agent")[0]);
    assert.match(input, /D-2/);
    assert.match(input, /Returned for revision/);
    assert.equal(scripts.calls("copywriter"), 0);
    assert.equal(scripts.calls("delivery_agent"), 0);
  });

  test("the next agent gets the decision's context package only: no research_log, no earlier turns", async () => {
    const wf = workflow();
    const started = await upTo(wf, ["c11-01"]);
    const scripts = new Scripts()
      .add("research_agent", [call("record_research_brief", artifactArgs(step(S11, "c11-02")), "research-1"), call("transfer_to_strategy_agent", {}, "research-1-handoff")])
      .add("qa_agent", [call("record_review", reviewArgs(step(S11, "c11-03")), "qa-1"), call("transfer_to_strategy_agent", {}, "qa-1-handoff")])
      .add("strategy_agent", [say("Drafting the strategy.")]);
    const run = governedRun(wf, "research_agent", started);
    const result = await runner(scripts).run(run.agents.research_agent!, "OPENING-TURN: research the Brightbrew brief.", { context: run });

    // The research handoff named strategy_agent; the service routed it to QA first.
    assert.deepEqual(run.decisions.map((d) => d.next?.map((x) => x.agent)), [["qa_agent"], ["strategy_agent"]]);
    assert.equal(result.lastAgent?.name, "strategy_agent");
    for (const agent of ["qa_agent", "strategy_agent"]) {
      const items = scripts.inputs(agent)[0]!;
      assertContextOnly(items, agent);
      const input = text(items);
      assert.match(input, /untrusted_data/);
      assert.doesNotMatch(input, /OPENING-TURN/);
      assert.doesNotMatch(input, /record_research_brief|record_review/);
    }
    const strategy = text(scripts.inputs("strategy_agent")[0]);
    assert.doesNotMatch(strategy, /research_log|Reviewed 14 sources/);
    assert.match(strategy, /Most remote workers start the day with coffee at home/);
  });

  test("await_human holds the run until a person approves through the service, then goes on", async () => {
    const wf = workflow();
    const standing = await upTo(wf, ["c11-01", "c11-02", "c11-03"]);
    const scripts = new Scripts()
      .add("strategy_agent", [call("record_strategy_brief", artifactArgs(step(S11, "c11-04")), "strategy-1"), call("transfer_to_campaign_approver", {}, "strategy-1-handoff")])
      .add("copywriter", [say("Writing the copy.")]);
    const run = governedRun(wf, "strategy_agent", standing);
    let finished = false;
    const running = runner(scripts)
      .run(run.agents.strategy_agent!, "Write the strategy.", { context: run })
      .finally(() => (finished = true));

    const maria = new Workflow({ tenant: "acme", organization: "acme-marketing", workflowId: wf.id, pack: "campaign", participants: participants(served, ["maria.lopez"]) });
    for (;;) {
      const list = await maria.reader.workflows("acme", { awaiting: "human" });
      if (list.workflows.some((w) => w.workflow_id === wf.id)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(finished, false, "the run went on before anyone approved");
    assert.equal(scripts.calls("copywriter"), 0);

    const approved = await maria.submit("maria.lopez", "approval", step(S11, "c11-05").fields, `${wf.id}:approve`);
    assert.equal(approved.outcome, "allow");
    const result = await running;
    assert.equal(result.lastAgent?.name, "copywriter");
    assert.deepEqual(run.decisions.map((d) => d.outcome), ["await_human", "allow"]);
    assert.equal(run.decisions[1]?.decision_id, approved.decision_id);
    assert.match(text(scripts.inputs("copywriter")[0]), /Start your trial box/);
  });

  test("a handoff played again is recorded once: its request id is the workflow's, the agent's, the state version's and the artifact's", async () => {
    const wf = workflow();
    const started = await upTo(wf, ["c11-01"]);
    const play = async () => {
      const scripts = new Scripts()
        .add("research_agent", [call("record_research_brief", artifactArgs(step(S11, "c11-02")), "research-1"), call("transfer_to_strategy_agent", {}, "research-1-handoff")])
        .add("qa_agent", [say("Validating.")]);
      const run = governedRun(wf, "research_agent", started);
      await runner(scripts).run(run.agents.research_agent!, "Research the brief.", { context: run });
      return run.decisions[0]!;
    };
    const first = await play();
    const again = await play();
    assert.equal(first.request_id, `${wf.id}:research_agent@${started.state_version}:RESEARCH_BRIEF.1`);
    assert.equal(again.decision_id, first.decision_id);
    assert.equal(again.outcome, "allow");
    const log = await wf.reader.log("acme", wf.id);
    assert.equal(log.entries.length, 2);
    const artifacts = (await wf.state()).artifacts as Record<string, { latest: number }> | undefined;
    assert.equal(artifacts?.RESEARCH_BRIEF?.latest, 1);
  });

  test("keeps the model-facing tool of the handoff it wraps", () => {
    const h = handoff(new Agent({ name: "qa_agent", handoffDescription: "Checks the work" }));
    const g = governed(h);
    assert.deepEqual(g.getHandoffAsFunctionTool(), h.getHandoffAsFunctionTool());
    assert.equal(g.agentName, "qa_agent");
  });

  test("a streamed run is governed too", async () => {
    const wf = workflow();
    const started = await upTo(wf, ["c11-01"]);
    const scripts = new Scripts()
      .add("research_agent", [call("record_research_brief", artifactArgs(step(S11, "c11-02")), "research-1"), call("transfer_to_strategy_agent", {}, "research-1-handoff")])
      .add("qa_agent", [say("Validating.")]);
    const run = governedRun(wf, "research_agent", started);
    const streamed = await runner(scripts).run(run.agents.research_agent!, "Research the brief.", { context: run, stream: true });
    for await (const _ of streamed) {
      // drained: the run goes on as the events are read
    }
    await streamed.completed;
    assert.equal(streamed.lastAgent?.name, "qa_agent");
    assert.deepEqual(run.decisions.map((d) => d.outcome), ["allow"]);
    assertContextOnly(scripts.inputs("qa_agent")[0]!, "qa_agent");
  });
});

describe("tools from the pack's contract and served schemas", () => {
  type Schema = { type?: string; enum?: string[]; description?: string; properties: Record<string, Schema>; required: string[]; additionalProperties?: boolean; items?: Schema; minimum?: number; maximum?: number };
  const parametersOf = (t: unknown) => (t as { parameters: Schema }).parameters;

  test("a record tool per artifact the agent produces, its content the served schema of the artifact", () => {
    const [brief, ...more] = contractTools(contract, schemas, "research_agent");
    assert.equal(more.length, 0);
    assert.equal(brief!.name, "record_research_brief");
    const content = parametersOf(brief).properties.content!;
    const served = schemas.artifacts.RESEARCH_BRIEF as unknown as Schema;
    assert.deepEqual(Object.keys(content.properties).sort(), Object.keys(served.properties).sort());
    assert.deepEqual(content.required, served.required);
    assert.ok(content.required.includes("claims"));
    assert.ok(!content.required.includes("research_log"), "an optional field is not required");
    assert.equal(content.additionalProperties, false, "the contracts are closed");
    assert.equal(content.properties.business_objective?.type, "string");
    assert.match(content.properties.business_objective?.description ?? "", /business objective/);
    // A field of a type the document defines once, under $defs: inlined, with its own fields.
    const claim = content.properties.claims!.items!;
    assert.equal(claim.type, "object");
    assert.ok(Object.keys(claim.properties).length > 0);
    assert.ok(!JSON.stringify(parametersOf(brief)).includes('"$ref"'), "every reference is inlined");
  });

  test("the record tool requires the confidence the service blocks a handoff without", async () => {
    const [brief] = contractTools(contract, schemas, "research_agent");
    const parameters = parametersOf(brief);
    assert.deepEqual(parameters.required, ["content", "confidence"]);
    assert.deepEqual([parameters.properties.confidence?.type, parameters.properties.confidence?.minimum, parameters.properties.confidence?.maximum], ["number", 0, 1]);

    const wf = workflow();
    await upTo(wf, ["c11-01"]);
    const { confidence_score: _, ...fields } = step(S11, "c11-02").fields as Record<string, unknown>;
    const d = await wf.submit("research_agent", "handoff", fields);
    assert.equal(d.outcome, "block");
    assert.ok(d.reasons.some((r) => r.code === "MISSING_CONFIDENCE"), JSON.stringify(d.reasons));
  });

  test("the content's field types, enum values and required fields reach the model: support's CLASSIFICATION", async () => {
    const [support, supportSchemas] = await Promise.all([client().contract("support"), client().schemas("support")]);
    const tools = contractTools(support, supportSchemas, "supervisor", {
      taskTypes: { CLASSIFICATION: "classify_request", AUTHORIZATION_RECORD: "verify_authorization", CUSTOMER_RESPONSE: "send_response" },
    });
    const classification = parametersOf(tools.find((t) => t.name === "record_classification")).properties.content!;
    assert.equal(classification.type, "object");
    assert.deepEqual([...classification.required].sort(), ["confidence", "intent"]);
    assert.equal(classification.properties.confidence?.type, "number");
    assert.equal(classification.properties.intent?.type, "string");
    assert.ok(classification.properties.intent?.enum?.includes("order_status"), JSON.stringify(classification.properties.intent));
    const response = parametersOf(tools.find((t) => t.name === "record_customer_response")).properties.content!;
    assert.deepEqual(response.properties.channel?.enum, ["chat", "email", "web_form", "messaging"]);
    assert.deepEqual(response.properties.draft?.required, ["id", "type", "version", "hash"], "a reference to another artifact is typed too");
  });

  test("a reviewing agent gets the review tool, typed as the pack's review request", () => {
    const tools = contractTools(contract, schemas, "qa_agent");
    assert.deepEqual(tools.map((t) => t.name), ["record_review"]);
    const parameters = parametersOf(tools[0]);
    assert.deepEqual(parameters.required, ["verdict", "artifacts"]);
    assert.deepEqual(parameters.properties.verdict?.enum, ["ACCEPT", "REVISE", "REASSIGN", "REJECT", "ESCALATE"]);
    assert.equal(parameters.properties.defects?.items?.type, "object");
    assert.ok(Object.keys(parameters.properties.defects?.items?.properties ?? {}).length > 0, "a defect's fields are given");
    assert.equal(parameters.properties.report?.type, "object");
  });

  test("an agent the pack does not have, an artifact whose task is not clear, or another pack's schemas are refused", async () => {
    assert.throws(() => contractTools(contract, schemas, "ghost_writer"), /has no agent ghost_writer/);
    const support = await client().contract("support");
    const supportSchemas = await client().schemas("support");
    assert.throws(() => contractTools(support, supportSchemas, "supervisor"), /say which one produces/);
    assert.throws(() => contractTools(support, schemas, "supervisor"), /the schemas are pack campaign's/);
    const tools = contractTools(support, supportSchemas, "supervisor", {
      taskTypes: { CLASSIFICATION: "classify_request", AUTHORIZATION_RECORD: "verify_authorization", CUSTOMER_RESPONSE: "send_response" },
    });
    assert.deepEqual(tools.map((t) => t.name), ["record_classification", "record_authorization_record", "record_customer_response"]);
  });
});
