// The LangGraph adapter against a real `handoffctl serve`: every edge of the graphs below
// is decided by the service, and what it records is read back from it.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { HandoffClient, Workflow, contextFor, untrusted, type Decision } from "../src/index.js";
import { governedNode, HandoffState, handoffRouter, humanGate, prompts, type AgentInput } from "../src/langgraph/index.js";
import { present, scenario } from "../examples/scenarios.js";
import { answer, principals, runSupport, scripts, supportGraph, supportWorkflow, tenant, type Show } from "../examples/support-langgraph.js";
import { startServe, type PrincipalSpec, type Served } from "./serve.js";

const campaign: PrincipalSpec[] = [
  { name: "orchestrator", tenant_id: "acme", type: "system", id: "orchestrator" },
  ...["research_agent", "qa_agent", "strategy_agent", "copywriter", "visual_prompt_agent"].map((id) => ({ name: id, tenant_id: "acme", type: "agent" as const, id })),
  { name: "maria.lopez", tenant_id: "acme", type: "human", id: "maria.lopez", roles: ["campaign_approver"] },
];

let served: Served;
before(async () => {
  served = await startServe([...principals, ...campaign]);
});
after(async () => {
  await served?.stop();
});

const outcomes = (s: Show) => s.steps.map((x) => `${x.node}:${x.outcome}`);

describe("the support example", () => {
  let shows: Awaited<ReturnType<typeof runSupport>>;
  before(async () => {
    shows = await runSupport(served);
  });

  it("runs the happy path to COMPLETED, every handoff allowed", () => {
    const s = shows.happy;
    assert.equal(s.status, "COMPLETED");
    assert.ok(s.steps.every((x) => x.outcome === "allow"));
    assert.deepEqual(
      s.steps.map((x) => x.node),
      ["intake", "supervisor", "tool_gateway", "supervisor", "order_research", "supervisor", "support_agent", "supervisor", "reviewer", "supervisor", "delivery"],
    );
    assert.equal(s.verified, true);
  });

  it("ends at a draft with an unverified order claim, blocked", () => {
    const s = shows.blocked;
    assert.deepEqual(outcomes(s).at(-1), "support_agent:block");
    assert.deepEqual([...new Set(s.blocked)], ["UNSUPPORTED_CLAIM", "UNSUPPORTED_PROMISE"]);
    assert.equal(s.status, "RUNNING"); // nothing recorded moved the case on
    assert.equal(s.interrupts, 0);
    assert.equal(s.verified, true);
  });

  it("sends the rejected draft back: support_agent drafts v2, which passes", () => {
    const s = shows.revision;
    const review = s.steps.find((x) => x.node === "reviewer")!;
    assert.equal(review.outcome, "revise");
    assert.deepEqual(review.codes, ["QUALITY_GATE_FAILED"]);
    assert.deepEqual(
      outcomes(s).slice(8),
      ["reviewer:revise", "supervisor:allow", "support_agent:allow", "supervisor:allow", "reviewer:allow", "supervisor:allow", "delivery:allow"],
    );
    assert.equal(s.status, "COMPLETED");
    assert.equal(s.verified, true);
  });

  it("stops for a person on ESCALATE and ends once the acknowledgement is allowed", () => {
    const s = shows.human;
    assert.deepEqual(outcomes(s).slice(-3), ["reviewer:await_human", "human:await_human", "human:allow"]);
    assert.deepEqual(
      s.steps.filter((x) => x.node === "human").map((x) => [x.actor, x.kind]),
      [
        ["ticketing-service", "outcome"],
        ["ticketing-service", "outcome"],
      ],
    );
    assert.equal(s.interrupts, 2); // the ticket failed first: the graph stopped again
    assert.equal(s.status, "ESCALATED");
    assert.equal(s.verified, true);
  });
});

describe("the adapter", () => {
  it("gives the next node only its context package, marked untrusted", async () => {
    const workflow = supportWorkflow(served, "context");
    const seen: AgentInput[] = [];
    const graph = supportGraph(workflow, scripts.happy, seen);
    await graph.invoke({}, { configurable: { thread_id: workflow.id } });

    const given = seen.find((i) => i.agent === "support_agent")!;
    const log = await workflow.reader.log(tenant, workflow.id);
    const dispatch = log.entries.map((e) => e.decision as Decision).find((d) => d.next?.some((n) => n.agent === "support_agent"))!;
    assert.deepEqual(Object.keys(given).sort(), ["agent", "attempt", "context", "revise", "task", "text"]);
    assert.equal(given.task, "draft_response");
    assert.equal(given.text, untrusted(dispatch, "support_agent"));
    assert.deepEqual(given.context, contextFor(dispatch, "support_agent"));
    for (const part of ["must_know", "may_know"]) {
      for (const v of Object.values((given.context as Record<string, Record<string, object>>)[part] ?? {})) {
        assert.deepEqual(Object.keys(v), ["untrusted_data"]);
      }
    }
    // The case holds the customer's reference; the package for drafting leaves it out.
    assert.ok(!given.text.includes("cust-7f3a9c"));
  });

  it("ends the graph on a block, keeping its reason codes", async () => {
    const workflow = supportWorkflow(served, "block");
    const graph = supportGraph(workflow, scripts.blocked);
    const config = { configurable: { thread_id: workflow.id } };
    const state = await graph.invoke({}, config);
    assert.equal(state.decision?.outcome, "block");
    assert.ok(state.blocked.some((r) => r.code === "UNSUPPORTED_CLAIM"));
    assert.deepEqual((await graph.getState(config)).next, []); // at END, not waiting
    assert.deepEqual(await prompts(graph, config), []);
    assert.equal((await workflow.state()).state_version, 4);
  });

  it("replays a finished workflow from a lost checkpoint without recording anything", async () => {
    const workflow = supportWorkflow(served, "restart");
    const first = await supportGraph(workflow, scripts.happy).invoke({}, { configurable: { thread_id: workflow.id } });
    const recorded = (await workflow.reader.log(tenant, workflow.id)).entries.length;

    // A new checkpointer: every node runs again with the request_ids of its attempts,
    // whose ${state_version} would now resolve to another value; the recorded decisions
    // answer instead, and the graph takes the same edges.
    const again = await supportGraph(workflow, scripts.happy).invoke({}, { configurable: { thread_id: workflow.id } });
    assert.deepEqual(again.steps, first.steps);
    assert.equal((await workflow.reader.log(tenant, workflow.id)).entries.length, recorded);
    const audit = await workflow.reader.audit(tenant);
    assert.ok(!audit.entries.some((e) => e.decision.request_id.startsWith(workflow.id)));
  });

  it("asks again after a refused answer, and records each answer once", async () => {
    const workflow = supportWorkflow(served, "replay");
    const graph = supportGraph(workflow, scripts.human);
    const config = { configurable: { thread_id: workflow.id } };
    await graph.invoke({}, config);
    let [prompt] = await prompts(graph, config);
    assert.equal(prompt?.decision.outcome, "await_human");
    assert.deepEqual(prompt?.awaiting, ["human_escalation_gate"]);
    const gate = prompt!.decision.state_version;

    // An approval is not how this pack takes a person's answer: refused, asked again.
    await graph.invoke(new Command({ resume: { ...answer("rel-19"), kind: "approval", fields: { decision: "APPROVE", artifacts: ["${ref:RESPONSE_DRAFT@1}"], revise: [], stage: "ESCALATED" } } }), config);
    [prompt] = await prompts(graph, config);
    assert.equal(prompt?.refused?.outcome, "block");
    assert.ok(prompt?.refused?.reasons.some((r) => r.code === "UNAUTHORIZED_SUBJECT"));

    await graph.invoke(new Command({ resume: answer("rel-18") }), config); // the ticket failed
    [prompt] = await prompts(graph, config);
    assert.deepEqual(prompt?.decision.reasons.map((r) => r.code), ["HUMAN_HANDOFF_PENDING"]);
    assert.equal(prompt?.refused, undefined);

    const state = await graph.invoke(new Command({ resume: answer("rel-19") }), config);
    assert.deepEqual(await prompts(graph, config), []);
    assert.equal(state.decision?.outcome, "allow");
    const human = state.steps.filter((s) => s.node === "human");
    assert.deepEqual(human.map((s) => s.outcome), ["block", "await_human", "allow"]);
    assert.deepEqual(
      human.map((s) => s.request_id),
      [`${workflow.id}:human:v${gate}.1`, `${workflow.id}:human:v${gate}.2`, `${workflow.id}:human:v${gate + 1}.1`],
    );
    const log = (await workflow.reader.log(tenant, workflow.id)).entries;
    for (const s of human) {
      const entries = log.filter((e) => e.decision.request_id === s.request_id);
      assert.equal(entries.length, 1, `${s.request_id} recorded once`);
      assert.equal(entries[0]!.decision.decision_id, s.decision_id);
    }
    const audit = await workflow.reader.audit(tenant);
    assert.ok(!audit.entries.some((e) => e.decision.reasons.some((r) => r.code === "IDEMPOTENCY_KEY_REUSED")));
    assert.equal((await workflow.reader.verify(tenant)).ok, true);
  });

  it("finds a person's recorded answer on a re-run from a lost checkpoint, without asking again", async () => {
    const workflow = supportWorkflow(served, "human-rerun");
    const graph = supportGraph(workflow, scripts.human);
    const config = { configurable: { thread_id: workflow.id } };
    await graph.invoke({}, config);
    await graph.invoke(new Command({ resume: answer("rel-18") }), config);
    const first = await graph.invoke(new Command({ resume: answer("rel-19") }), config);
    const recorded = (await workflow.reader.log(tenant, workflow.id)).entries.length;

    const again = supportGraph(workflow, scripts.human); // a new checkpointer: nothing of the first run
    const state = await again.invoke({}, { configurable: { thread_id: workflow.id } });
    assert.deepEqual(await prompts(again, { configurable: { thread_id: workflow.id } }), []);
    assert.equal(state.decision?.outcome, "allow");
    assert.deepEqual(state.steps.map((s) => s.decision_id), first.steps.map((s) => s.decision_id));
    assert.equal((await workflow.reader.log(tenant, workflow.id)).entries.length, recorded);
  });
});

describe("the adapter on the campaign pack (approvals)", () => {
  const steps = new Map([...scenario("campaign", "01-happy-path.scenario"), ...scenario("campaign", "03-strategy-version-mismatch.scenario")]);
  const ask = (id: string) => {
    const s = steps.get(id)!;
    return { actor: s.actor, kind: s.kind, fields: present(s) };
  };

  function campaignGraph(workflow: Workflow, script: Record<string, string[]>, seen: AgentInput[]) {
    const play = (node: string) => (input: AgentInput) => {
      seen.push(input);
      return ask(script[node]![input.attempt - 1]!);
    };
    const agents = ["research_agent", "qa_agent", "strategy_agent", "copywriter"] as const;
    const route = handoffRouter({ nodes: Object.fromEntries(agents.map((a) => [a, a])), human: "human" });
    return new StateGraph(HandoffState)
      .addNode("intake", governedNode(workflow, "intake", play("intake"), { agent: "orchestrator" }))
      .addNode("research_agent", governedNode(workflow, "research_agent", play("research_agent")))
      .addNode("qa_agent", governedNode(workflow, "qa_agent", play("qa_agent")))
      .addNode("strategy_agent", governedNode(workflow, "strategy_agent", play("strategy_agent")))
      .addNode("copywriter", governedNode(workflow, "copywriter", play("copywriter")))
      .addNode("human", humanGate(workflow))
      .addEdge(START, "intake")
      .addConditionalEdges("intake", route)
      .addConditionalEdges("research_agent", route)
      .addConditionalEdges("qa_agent", route)
      .addConditionalEdges("strategy_agent", route)
      .addConditionalEdges("human", route)
      .addEdge("copywriter", END)
      .compile({ checkpointer: new MemorySaver() });
  }

  // Every agent of the production stage has a node: the approval hands the copywriter and
  // the visual prompt agent their work at once, two branches side by side.
  function branchesGraph(workflow: Workflow, script: Record<string, string[]>, seen: AgentInput[]) {
    const play = (node: string) => async (input: AgentInput) => {
      seen.push(input);
      await new Promise((resolve) => setTimeout(resolve, node === "copywriter" ? 0 : 50)); // the copy decides first
      return ask(script[node]![input.attempt - 1]!);
    };
    const agents = ["research_agent", "qa_agent", "strategy_agent", "copywriter", "visual_prompt_agent"] as const;
    const route = handoffRouter({ nodes: Object.fromEntries(agents.map((a) => [a, a])), human: "human" });
    let graph = new StateGraph(HandoffState)
      .addNode("intake", governedNode(workflow, "intake", play("intake"), { agent: "orchestrator" }))
      .addNode("human", humanGate(workflow))
      .addEdge(START, "intake")
      .addConditionalEdges("intake", route)
      .addConditionalEdges("human", route);
    for (const a of agents) graph = graph.addNode(a, governedNode(workflow, a, play(a))).addConditionalEdges(a, route) as unknown as typeof graph;
    return graph.compile({ checkpointer: new MemorySaver() });
  }

  it("runs the copy and visual branches side by side after the approval that names both, then QA once", async () => {
    const workflow = campaignWorkflow("branches");
    const seen: AgentInput[] = [];
    const script = {
      intake: ["c01-01"], research_agent: ["c01-02"], qa_agent: ["c01-03", "c01-08"], strategy_agent: ["c01-04"],
      copywriter: ["c01-06"], visual_prompt_agent: ["c01-07"],
    };
    const graph = branchesGraph(workflow, script, seen);
    const config = { configurable: { thread_id: workflow.id } };
    await graph.invoke({}, config);
    const state = await graph.invoke(new Command({ resume: ask("c01-05") }), config);

    const approval = state.steps.find((s) => s.node === "human")!;
    const log = (await workflow.reader.log("acme", workflow.id)).entries;
    const approved = log.find((e) => e.decision.decision_id === approval.decision_id)!.decision;
    // Both start from what the approval handed them, in the same step of the graph.
    for (const agent of ["copywriter", "visual_prompt_agent"]) {
      const inputs = seen.filter((i) => i.agent === agent);
      assert.equal(inputs.length, 1, `${agent} ran ${inputs.length} times`);
      assert.equal(inputs[0]?.text, untrusted(approved, agent));
    }
    assert.deepEqual(state.steps.slice(-3).map((s) => `${s.node}:${s.outcome}`), ["copywriter:allow", "visual_prompt_agent:allow", "qa_agent:await_human"]);
    const [prompt] = await prompts(graph, config);
    assert.equal(prompt?.decision.state_version, 8);
    assert.equal(log.length, 8);
    assert.equal((await workflow.state()).status, "HUMAN_APPROVAL");
    assert.equal((await workflow.reader.verify("acme")).ok, true);
  });

  function campaignWorkflow(name: string): Workflow {
    return new Workflow({
      tenant: "acme",
      organization: "acme-marketing",
      workflowId: `wf-${name}-${Date.now()}`,
      pack: "campaign",
      participants: campaign.map((p) => ({
        actor: { type: p.type, id: p.id, ...(p.roles ? { roles: p.roles } : {}) },
        client: new HandoffClient({ baseUrl: served.url, token: served.tokens[p.name] }),
      })),
    });
  }

  it("waits for maria.lopez's approval of the strategy, then hands to the copywriter", async () => {
    const workflow = campaignWorkflow("approve");
    const seen: AgentInput[] = [];
    const script = { intake: ["c01-01"], research_agent: ["c01-02"], qa_agent: ["c01-03"], strategy_agent: ["c01-04"], copywriter: ["c01-06"] };
    const graph = campaignGraph(workflow, script, seen);
    const config = { configurable: { thread_id: workflow.id } };
    await graph.invoke({}, config);
    const [prompt] = await prompts(graph, config);
    assert.deepEqual(prompt?.awaiting, ["campaign_approver"]);
    assert.ok(!seen.some((i) => i.agent === "copywriter"));

    const state = await graph.invoke(new Command({ resume: ask("c01-05") }), config);
    const approval = state.steps.find((s) => s.node === "human")!;
    assert.deepEqual([approval.actor, approval.kind, approval.outcome], ["maria.lopez", "approval", "allow"]);
    // The copywriter starts from what the approval hands it, and nothing else.
    assert.equal(seen.at(-1)?.agent, "copywriter");
    const log = (await workflow.reader.log("acme", workflow.id)).entries;
    const approved = log.find((e) => e.decision.decision_id === approval.decision_id)!.decision;
    assert.equal(seen.at(-1)?.text, untrusted(approved, "copywriter"));
    assert.equal(state.steps.at(-1)?.outcome, "allow");
    assert.equal((await workflow.state()).status, "PRODUCTION");
    assert.equal((await workflow.reader.verify("acme")).ok, true);
  });

  it("routes a REQUEST_REVISION back to strategy_agent, with what to revise", async () => {
    const workflow = campaignWorkflow("revise");
    const seen: AgentInput[] = [];
    const script = { intake: ["c03-01"], research_agent: ["c03-02"], qa_agent: ["c03-03"], strategy_agent: ["c03-04", "c03-06"], copywriter: ["c03-08"] };
    const graph = campaignGraph(workflow, script, seen);
    const config = { configurable: { thread_id: workflow.id } };
    await graph.invoke({}, config);

    await graph.invoke(new Command({ resume: ask("c03-05") }), config);
    const again = seen.filter((i) => i.agent === "strategy_agent").at(-1)!;
    assert.equal(again.attempt, 2);
    assert.deepEqual(again.revise.map((r) => [r.artifact, r.producer]), [["STRATEGY_BRIEF", "strategy_agent"]]);
    const [prompt] = await prompts(graph, config); // strategy v2 waits for approval in turn
    assert.equal(prompt?.decision.state_version, 6);

    const state = await graph.invoke(new Command({ resume: ask("c03-07") }), config);
    assert.equal(state.steps.at(-1)?.node, "copywriter");
    assert.equal(state.steps.at(-1)?.outcome, "allow");
    assert.equal((await workflow.reader.verify("acme")).ok, true);
  });
});
