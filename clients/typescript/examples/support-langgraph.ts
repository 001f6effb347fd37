// The support pack's supervisor–worker–reviewer loop as a LangGraph graph, every edge
// decided by the Handoff service. The agents are scripted: each plays, in turn, the
// requests of the pack's scenario files (policies_test/handoff/support/scenarios), so
// what they send is what the engine's own tests send.
//
//   npm run example:support        (starts its own handoffctl serve)
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Command, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { HandoffClient, Workflow } from "../src/index.js";
import {
  governedNode,
  HandoffState,
  handoffRouter,
  humanGate,
  prompts,
  type AgentInput,
  type Ask,
  type HumanAnswer,
  type Step,
} from "../src/langgraph/index.js";
import { startServe, type PrincipalSpec, type Server } from "../test/serve.js";
import { present, scenario, type ScenarioStep } from "./scenarios.js";

export const tenant = "northwind";

/** Each actor of the scenarios, with a token of its own. */
export const principals: PrincipalSpec[] = [
  ...["support-orchestrator", "tool-gateway", "delivery-service", "ticketing-service"].map((id) => ({ type: "system" as const, id })),
  ...["supervisor", "order_research", "support_agent", "reviewer"].map((id) => ({ type: "agent" as const, id })),
].map((a) => ({ name: a.id, tenant_id: tenant, ...a }));

// The steps the agents play, by request_id.
const steps = new Map<string, ScenarioStep>([
  ...scenario("support", "00-full-happy-path.scenario"),
  ...scenario("support", "TST-06-reviewer-rejects-draft.scenario"),
  ...scenario("support", "release-acceptance-human-handoff.scenario"),
]);
// TST-06 rejects its second draft too; here the second draft passes: the happy path's
// review, sending and delivery, on RESPONSE_DRAFT v2.
steps.set("v2-accept", edit("h00-09", (f) => (f.artifacts = ["${ref:RESPONSE_DRAFT@2}", "${ref:ORDER_RESULT@1}"])));
steps.set(
  "v2-send",
  edit("h00-10", (f) => {
    const v2 = (step("t06-13").fields.output as { content: { message: string } }).content.message;
    const output = f.output as { content: Record<string, unknown> };
    f.input_artifacts = ["${ref:RESPONSE_DRAFT@2}", "${ref:REVIEW_RECORD@2}"];
    output.content.draft = "${ref:RESPONSE_DRAFT@2}";
    output.content.message = v2;
  }),
);
steps.set("v2-ack", edit("h00-11", (f) => (f.effect_id = "delivery/response-draft@v2")));

/** What each node sends, in turn: its first request, its second, ... */
export type Script = Record<string, string[]>;

export const scripts = {
  /** 00-full-happy-path: classified, authorized, researched, drafted, reviewed, delivered. */
  happy: {
    intake: ["h00-01"],
    supervisor: ["h00-02", "h00-04", "h00-06", "h00-08", "h00-10"],
    tool_gateway: ["h00-03"],
    order_research: ["h00-05"],
    support_agent: ["h00-07"],
    reviewer: ["h00-09"],
    delivery: ["h00-11"],
  },
  /** release-acceptance: a refund promise with an unverified order claim is blocked. */
  blocked: {
    intake: ["rel-01"],
    supervisor: ["rel-03", "rel-08"],
    tool_gateway: ["rel-06"],
    support_agent: ["rel-11"],
  },
  /** TST-06: the reviewer rejects draft v1 on one failed check; v2 passes. */
  revision: {
    intake: ["t06-01"],
    supervisor: ["t06-02", "t06-04", "t06-06", "t06-08", "t06-12", "t06-14", "v2-send"],
    tool_gateway: ["t06-03"],
    order_research: ["t06-05"],
    support_agent: ["t06-07", "t06-13"],
    reviewer: ["t06-10", "v2-accept"],
    delivery: ["v2-ack"],
  },
  /** release-acceptance: the reviewer escalates the refund dispute to a person. */
  human: {
    intake: ["rel-01"],
    supervisor: ["rel-03", "rel-08", "rel-13"],
    tool_gateway: ["rel-06"],
    support_agent: ["rel-12"],
    reviewer: ["rel-15"],
  },
} satisfies Record<string, Script>;

/** The workflow as the host drives it: each actor submits with its own token. */
export function supportWorkflow(server: Server, name: string): Workflow {
  return new Workflow({
    tenant,
    organization: "northwind-support",
    workflowId: `wf-${name}-${randomUUID().slice(0, 8)}`,
    pack: "support",
    participants: principals.map((p) => ({
      actor: { type: p.type, id: p.id },
      client: new HandoffClient({ baseUrl: server.url, token: server.tokens[p.name] }),
    })),
  });
}

/**
 * The graph: intake starts the case; the supervisor plans and dispatches; the tool
 * gateway (a system node on the supervisor's verify_authorization task) authorizes;
 * order_research, support_agent and reviewer work; delivery acknowledges the sending;
 * a person takes the escalations. `seen` collects what each agent node was given.
 */
export function supportGraph(workflow: Workflow, script: Script, seen: AgentInput[] = []) {
  const play =
    (node: string) =>
    (input: AgentInput): Ask => {
      seen.push(input);
      const id = script[node]?.[input.attempt - 1];
      if (!id) throw new Error(`${node} has no request for its attempt ${input.attempt}`);
      const s = step(id);
      return { actor: s.actor, kind: s.kind, fields: present(s) };
    };
  const nodes = {
    supervisor: "supervisor",
    "supervisor:verify_authorization": "tool_gateway",
    order_research: "order_research",
    support_agent: "support_agent",
    reviewer: "reviewer",
  };
  const route = handoffRouter({ nodes, human: "human" });
  return (
    new StateGraph(HandoffState)
      .addNode("intake", governedNode(workflow, "intake", play("intake"), { agent: "support-orchestrator" }))
      .addNode("supervisor", governedNode(workflow, "supervisor", play("supervisor")))
      .addNode("tool_gateway", governedNode(workflow, "tool_gateway", play("tool_gateway"), { agent: "supervisor" }))
      .addNode("order_research", governedNode(workflow, "order_research", play("order_research")))
      .addNode("support_agent", governedNode(workflow, "support_agent", play("support_agent")))
      .addNode("reviewer", governedNode(workflow, "reviewer", play("reviewer")))
      .addNode("delivery", governedNode(workflow, "delivery", play("delivery"), { agent: "delivery-service" }))
      .addNode("human", humanGate(workflow))
      .addEdge(START, "intake")
      .addConditionalEdges("intake", route)
      // The supervisor's sending hands to no agent: the delivery service acknowledges it.
      .addConditionalEdges("supervisor", handoffRouter({ nodes, human: "human", done: "delivery" }))
      .addConditionalEdges("tool_gateway", route)
      .addConditionalEdges("order_research", route)
      .addConditionalEdges("support_agent", route)
      .addConditionalEdges("reviewer", route)
      .addConditionalEdges("delivery", route)
      .addConditionalEdges("human", route)
      .compile({ checkpointer: new MemorySaver() })
  );
}

/** A person's answer, as one of the scenario's steps. */
export function answer(id: string): HumanAnswer {
  const s = step(id);
  return { actor: s.actor, kind: s.kind, fields: present(s) };
}

export interface Show {
  workflow: string;
  /** The workflow's recorded status at the end. */
  status: string;
  /** Every request the graph sent, in order. */
  steps: Step[];
  /** The reason codes of the block that ended the graph. */
  blocked: string[];
  /** How many times the graph stopped for a person. */
  interrupts: number;
  /** Whether every hash chain of the tenant verified after the workflow. */
  verified: boolean;
}

/** Runs the four shows against a service; returns what each did. */
export async function runSupport(server: Server): Promise<Record<keyof typeof scripts, Show>> {
  const show = async (name: keyof typeof scripts, answers: string[] = []): Promise<Show> => {
    const workflow = supportWorkflow(server, name);
    const graph = supportGraph(workflow, scripts[name]);
    const config = { configurable: { thread_id: workflow.id } };
    let state = await graph.invoke({}, config);
    let interrupts = 0;
    for (const id of answers) {
      if ((await prompts(graph, config)).length === 0) break;
      interrupts++;
      // The person's answer goes to the service with the answering actor's own token.
      state = await graph.invoke(new Command({ resume: answer(id) }), config);
    }
    if ((await prompts(graph, config)).length > 0) interrupts++;
    return {
      workflow: workflow.id,
      status: (await workflow.state()).status,
      steps: state.steps,
      blocked: state.blocked.map((r) => r.code),
      interrupts,
      verified: (await workflow.reader.verify(tenant)).ok,
    };
  };
  return {
    happy: await show("happy"),
    blocked: await show("blocked"),
    revision: await show("revision"),
    // The ticketing service could not open the ticket at first, then a person took it.
    human: await show("human", ["rel-18", "rel-19"]),
  };
}

function step(id: string): ScenarioStep {
  const s = steps.get(id);
  if (!s) throw new Error(`no scenario step ${id}`);
  return s;
}

function edit(id: string, change: (fields: Record<string, unknown>) => void): ScenarioStep {
  const s = structuredClone(step(id));
  change(s.fields);
  return s;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const served = await startServe(principals);
  try {
    const shows = await runSupport(served);
    for (const [name, s] of Object.entries(shows)) {
      const path = s.steps.map((x) => `${x.node}:${x.outcome}`).join(" → ");
      console.log(`${name} (${s.workflow}): ${s.status}, verified ${s.verified}\n  ${path}${s.blocked.length ? `\n  blocked: ${s.blocked.join(", ")}` : ""}`);
    }
  } finally {
    await served.stop();
  }
}
