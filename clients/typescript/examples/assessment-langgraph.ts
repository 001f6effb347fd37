// The assessment pack's pipeline as a LangGraph graph, every edge decided by the Handoff
// service: knowledge_steward → scf_control_analyst → framework_mapper (whose lookup times
// out once: a retry, sent after its delay) → soa_architect → a person's approval of the
// Statement of Applicability → evidence_analyst. What each agent produces is written
// against the pack's generated types (src/packs/assessment.ts); Workflow fills the envelope
// the pack requires (assessment_id, created_at, handoff_id, handoff_type, agent_run_id,
// the retry's fields). The agents are scripted models: each call has a new id, as a real
// model's would, and no request_id depends on it.
//
// A run that crashes is run again in a new process, with a new graph and checkpointer:
// every recorded decision is found again, nothing is sent twice, and a person who already
// answered is not asked again.
//
//   node dist/examples/assessment-langgraph.js                   (starts its own handoffctl serve)
//   HANDOFF_URL=… HANDOFF_TOKENS='{"orchestrator":"…",…}' node dist/examples/assessment-langgraph.js WORKFLOW_ID
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { HandoffClient, Workflow, type ArtifactCitation, type ArtifactRef } from "../src/index.js";
import {
  governedNode,
  HandoffState,
  handoffRouter,
  humanGate,
  prompts,
  startNode,
  type AgentInput,
  type Ask,
  type HumanAnswer,
  type Step,
} from "../src/langgraph/index.js";
import type { ApprovalRequest, ArtifactType, Content, FailureRequest, HandoffRequest, StartRequest } from "../src/packs/assessment.js";
import { startServe, type PrincipalSpec, type Server } from "../test/serve.js";

export const tenant = "acme";
const assessmentId = "asm-2026-isms";
const agents = ["knowledge_steward", "scf_control_analyst", "framework_mapper", "soa_architect", "evidence_analyst"] as const;

/** Each actor, with a token of its own: the orchestrator, the agents, the reviewer. */
export const principals: PrincipalSpec[] = [
  { name: "orchestrator", tenant_id: tenant, type: "system", id: "orchestrator" },
  ...agents.map((id) => ({ name: id, tenant_id: tenant, type: "agent" as const, id })),
  { name: "ana.souza", tenant_id: tenant, type: "human", id: "ana.souza", roles: ["assessment_reviewer"] },
];

// What a host writes of a request: Workflow fills the rest. Recorded versions are cited
// (ArtifactCitation) and resolved by Workflow to {id, type, version, hash}.
type Filled = "kind" | "request_id" | "tenant_id" | "organization_id" | "workflow_id" | "trace_id" | "actor" | "assessment_id" | "created_at";
type Authored<R, Cited extends keyof R = never> = Omit<R, Filled | Cited> & { [K in Cited]?: ArtifactCitation[] };

const domains = ["GOV", "IAC"];
const frameworks = ["ISO-27001-2022", "LGPD"];
const inForce = "Documents in the KB are the versions in force";
const indexed = "KB indexed up to the start of the assessment; later documents not considered";
const inScope = "Only the SCF domains GOV and IAC are in scope";
const strmOnly = "Mappings follow SCF 2025.2 STRM only";

function brief(): Authored<StartRequest, never>["brief"] {
  return {
    organization_name: "Acme Health",
    objective: "Assess the ISMS of Acme Health against SCF controls mapped to ISO/IEC 27001:2022 and LGPD",
    scf_version: "2025.2",
    frameworks,
    control_domains: domains,
    deadline: new Date(Date.now() + 60 * 86_400_000).toISOString(),
  };
}

const knowledge: Content<"KNOWLEDGE_PACKAGE"> = {
  assessment_id: assessmentId,
  scf_version: "2025.2",
  scope: { frameworks, control_domains: domains },
  evidence_candidates: [
    {
      candidate_id: "kb-cand-01",
      title: "Information Security Policy v3",
      document: { id: "doc-isp-v3", hash: "sha256:9c7ce720d35e92e3f33e9309ff7669d91874a05df4a6b866076f4b871aaa54e4" },
      control_ids: ["GOV-01"],
      kind: "policy",
      sources: [{ id: "kb-cand-01", kind: "kb_evidence_candidate" }],
    },
    {
      candidate_id: "kb-cand-02",
      title: "Identity provider MFA enforcement export",
      document: { id: "doc-idp-mfa", hash: "sha256:6bfb7a1fb1262e39804098a9c55b5f2894764f2fcf01224f8046253dd530a67a" },
      control_ids: ["IAC-06"],
      kind: "configuration",
      sources: [{ id: "kb-cand-02", kind: "kb_evidence_candidate" }],
    },
  ],
  kb_documents: [
    { id: "doc-isp-v3", hash: "sha256:9c7ce720d35e92e3f33e9309ff7669d91874a05df4a6b866076f4b871aaa54e4", title: "Information Security Policy v3" },
    { id: "doc-idp-mfa", hash: "sha256:6bfb7a1fb1262e39804098a9c55b5f2894764f2fcf01224f8046253dd530a67a", title: "IdP MFA export" },
  ],
  sources: [{ id: "kb-acme-health", kind: "kb_evidence_candidate", locator: "Acme Health KB index" }],
};

const controls: Content<"CONTROL_ANALYSIS"> = {
  assessment_id: assessmentId,
  scf_version: "2025.2",
  controls: [
    {
      control_id: "GOV-01",
      domain: "GOV",
      title: "Cybersecurity & Data Protection Governance Program",
      requirement: "Mechanisms exist to facilitate the implementation of cybersecurity and data protection governance controls.",
      in_scope: true,
      rationale: "The governance program underpins the ISMS scope",
      sources: [{ id: "scf-2025.2-GOV-01", kind: "scf_data", locator: "SCF 2025.2 catalogue, GOV-01" }],
    },
    {
      control_id: "IAC-06",
      domain: "IAC",
      title: "Multi-Factor Authentication (MFA)",
      requirement: "Automated mechanisms exist to enforce Multi-Factor Authentication for remote and privileged access.",
      in_scope: true,
      rationale: "Remote clinical staff access patient records",
      sources: [{ id: "scf-2025.2-IAC-06", kind: "scf_data", locator: "SCF 2025.2 catalogue, IAC-06" }],
    },
  ],
};

const strm = (framework: string, control: string) => [{ id: `scf-strm-${framework}-${control}`.toLowerCase(), kind: "scf_data" as const, locator: `SCF 2025.2 STRM ${framework}` }];
const mapping: Content<"FRAMEWORK_MAPPING"> = {
  assessment_id: assessmentId,
  mappings: [
    { control_id: "GOV-01", framework: "ISO-27001-2022", mapping_status: "official", requirement_ref: "A.5.1", relationship: "intersects_with", sources: strm("ISO-27001-2022", "GOV-01") },
    { control_id: "GOV-01", framework: "LGPD", mapping_status: "official", requirement_ref: "Art. 50", relationship: "intersects_with", sources: strm("LGPD", "GOV-01") },
    { control_id: "IAC-06", framework: "ISO-27001-2022", mapping_status: "official", requirement_ref: "A.8.5", relationship: "intersects_with", sources: strm("ISO-27001-2022", "IAC-06") },
    { control_id: "IAC-06", framework: "LGPD", mapping_status: "absent", sources: strm("LGPD", "IAC-06") },
  ],
};

const drafts = [
  { id: "control-analysis@v1", kind: "draft_artifact" as const },
  { id: "framework-mapping@v1", kind: "draft_artifact" as const },
];
const soa: Content<"STATEMENT_OF_APPLICABILITY"> = {
  assessment_id: assessmentId,
  entries: [
    {
      control_id: "GOV-01",
      applicable: true,
      justification: "The governance program is the basis of the ISMS",
      mappings: [
        { framework: "ISO-27001-2022", requirement_ref: "A.5.1", mapping_status: "official" },
        { framework: "LGPD", requirement_ref: "Art. 50", mapping_status: "official" },
      ],
      sources: drafts,
    },
    {
      control_id: "IAC-06",
      applicable: true,
      justification: "Remote and privileged access to patient data",
      mappings: [
        { framework: "ISO-27001-2022", requirement_ref: "A.8.5", mapping_status: "official" },
        { framework: "LGPD", mapping_status: "absent" },
      ],
      sources: drafts,
    },
  ],
};

/** A scripted model's answer: what the agent produced, and the id of the call (new on every call). */
interface Produced<T extends ArtifactType> {
  callId: string;
  type: T;
  content: Content<T>;
  handoff: Omit<Authored<HandoffRequest, "input_artifacts">, "output" | "handoff_id" | "handoff_type" | "agent_run_id" | "source_agent">;
}

function model<T extends ArtifactType>(type: T, content: Content<T>, handoff: Produced<T>["handoff"]): () => Produced<T> {
  return () => ({ callId: `call_${randomUUID()}`, type, content: structuredClone(content), handoff });
}

const models = {
  knowledge_steward: model("KNOWLEDGE_PACKAGE", knowledge, {
    target_agent: "scf_control_analyst",
    task_type: "knowledge_curation",
    input_artifacts: ["ASSESSMENT_SCOPE@1"],
    output_summary: "KNOWLEDGE_PACKAGE v1 for the assessment",
    assumptions: [inForce],
    limitations: [indexed],
    confidence_score: 0.8,
    requires_validation: false,
  }),
  scf_control_analyst: model("CONTROL_ANALYSIS", controls, {
    target_agent: "framework_mapper",
    task_type: "control_analysis",
    input_artifacts: ["KNOWLEDGE_PACKAGE@1"],
    output_summary: "CONTROL_ANALYSIS v1 for the assessment",
    assumptions: [inForce],
    limitations: [indexed, inScope],
    confidence_score: 0.8,
    requires_validation: false,
  }),
  // The retry cites the RETRY_RECORD it answers; Workflow adds handoff_type "retry" and the
  // retry's count, type and reason.
  framework_mapper: model("FRAMEWORK_MAPPING", mapping, {
    target_agent: "soa_architect",
    task_type: "framework_mapping",
    input_artifacts: ["CONTROL_ANALYSIS@1", "RETRY_RECORD@latest"],
    output_summary: "FRAMEWORK_MAPPING v1 for the assessment",
    assumptions: [inForce],
    limitations: [indexed, inScope, strmOnly],
    confidence_score: 0.8,
    requires_validation: false,
  }),
  soa_architect: model("STATEMENT_OF_APPLICABILITY", soa, {
    target_agent: "evidence_analyst",
    task_type: "soa_design",
    input_artifacts: ["CONTROL_ANALYSIS@1", "FRAMEWORK_MAPPING@1"],
    output_summary: "STATEMENT_OF_APPLICABILITY v1 for the assessment",
    assumptions: [inForce],
    limitations: [indexed, inScope, strmOnly],
    confidence_score: 0.8,
    requires_validation: false,
  }),
};

/** The framework mapper's first lookup times out: the orchestrator reports it and asks for a retry. */
const timeout: Authored<FailureRequest> = {
  task: "framework_mapping",
  agent: "framework_mapper",
  class: "timeout",
  retry_type: "tool_transient",
  retry_reason: "scf_strm_lookup timed out after 30 s",
};

/** ana.souza approves the Statement of Applicability at its gate. */
export function approval(): HumanAnswer {
  const fields: Authored<ApprovalRequest, "artifacts"> = {
    decision: "APPROVE",
    stage: "SOA_APPROVAL",
    artifacts: ["STATEMENT_OF_APPLICABILITY@latest"],
    revise: [],
    comment: "Applicability confirmed",
  };
  return { actor: "ana.souza", kind: "approval", fields: { ...fields, artifacts: ["${ref:STATEMENT_OF_APPLICABILITY@latest}"] } };
}

/** The workflow as the host drives it: each actor submits with its own token. */
export function assessmentWorkflow(server: Server, workflowId: string): Workflow {
  return new Workflow({
    tenant,
    organization: "acme-health",
    workflowId,
    pack: "assessment",
    subject: assessmentId,
    participants: principals.map((p) => ({
      actor: { type: p.type, id: p.id, ...(p.roles ? { roles: p.roles } : {}) },
      client: new HandoffClient({ baseUrl: server.url, token: server.tokens[p.name] }),
    })),
  });
}

/** The permitted context a handoff passes on: each input by reference with its recorded
 * status, and the workflow's state. */
type Context = NonNullable<HandoffRequest["context"]>;
type ArtifactStatus = NonNullable<Context["artifacts"]>[number]["status"];
async function contextOf(workflow: Workflow, inputs: ArtifactRef[]): Promise<Context> {
  const state = await workflow.state();
  const artifacts = state.artifacts as Record<string, { versions: Record<string, { status: ArtifactStatus }> }>;
  return {
    artifacts: inputs.map((ref) => ({ ref, status: artifacts[ref.type]!.versions[String(ref.version)]!.status })),
    workflow_state: state.status,
  };
}

export interface GraphOptions {
  /** The agent whose model fails with an error (a crash mid-run), when it is called. */
  crash?: (typeof agents)[number];
  /** Collects every model call id, in order. */
  calls?: string[];
}

/** The graph: start, the four agents, the reviewer's gate; the evidence analyst is another graph's. */
export function assessmentGraph(workflow: Workflow, options: GraphOptions = {}) {
  const agent = (name: keyof typeof models) => async (input: AgentInput): Promise<Ask> => {
    if (name === options.crash) throw new Error(`${name}: the model process crashed`);
    if (name === "framework_mapper" && input.attempt === 1) return { actor: "orchestrator", kind: "failure", fields: { ...timeout } };
    const produced = models[name]();
    options.calls?.push(produced.callId);
    const { target_agent, task_type, input_artifacts = [], ...rest } = produced.handoff;
    const fields = await workflow.handoffFields(name, target_agent, task_type, { type: produced.type, content: produced.content, inputs: input_artifacts });
    // The model's call id names the run; the request_id (workflow, node, attempt) does not depend on it.
    return { kind: "handoff", fields: { ...fields, ...rest, agent_run_id: `run-${produced.callId}`, context: await contextOf(workflow, fields.input_artifacts as ArtifactRef[]) } };
  };
  const route = handoffRouter({ nodes: Object.fromEntries(agents.filter((a) => a in models).map((a) => [a, a])), human: "human" });
  return new StateGraph(HandoffState)
    .addNode("start", startNode(workflow, "orchestrator", () => ({ brief: brief() })))
    .addNode("knowledge_steward", governedNode(workflow, "knowledge_steward", agent("knowledge_steward")))
    .addNode("scf_control_analyst", governedNode(workflow, "scf_control_analyst", agent("scf_control_analyst")))
    .addNode("framework_mapper", governedNode(workflow, "framework_mapper", agent("framework_mapper")))
    .addNode("soa_architect", governedNode(workflow, "soa_architect", agent("soa_architect")))
    .addNode("human", humanGate(workflow))
    .addEdge(START, "start")
    .addConditionalEdges("start", route)
    .addConditionalEdges("knowledge_steward", route)
    .addConditionalEdges("scf_control_analyst", route)
    .addConditionalEdges("framework_mapper", route)
    .addConditionalEdges("soa_architect", route)
    .addConditionalEdges("human", route, ["knowledge_steward", "scf_control_analyst", "framework_mapper", "soa_architect", "human", END])
    .compile({ checkpointer: new MemorySaver() });
}

export interface Run {
  workflow: string;
  status: string;
  steps: Step[];
  /** How many times the graph stopped for a person. */
  interrupts: number;
  /** The model call ids of the run. */
  calls: string[];
}

/** Runs the graph on workflowId to its end, the reviewer answering when asked. */
export async function runAssessment(server: Server, workflowId: string, options: Omit<GraphOptions, "calls"> = {}): Promise<Run> {
  const workflow = assessmentWorkflow(server, workflowId);
  const calls: string[] = [];
  const graph = assessmentGraph(workflow, { ...options, calls });
  const config = { configurable: { thread_id: `${workflowId}:${randomUUID()}` } };
  let state = await graph.invoke({}, config);
  let interrupts = 0;
  while ((await prompts(graph, config)).length > 0) {
    interrupts++;
    state = await graph.invoke(new Command({ resume: approval() }), config);
  }
  return { workflow: workflowId, status: (await workflow.state()).status, steps: state.steps, interrupts, calls };
}

/** Runs the graph again in a new node process: a new graph, a new checkpointer, new model ids. */
export function runInNewProcess(server: Server, workflowId: string): Run {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), workflowId], {
    env: { ...process.env, HANDOFF_URL: server.url, HANDOFF_TOKENS: JSON.stringify(server.tokens) },
    encoding: "utf8",
  });
  return JSON.parse(out) as Run;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const workflowId = process.argv[2];
  if (workflowId && process.env.HANDOFF_URL) {
    // The re-run: a process of its own against a running service.
    const server = { url: process.env.HANDOFF_URL, tokens: JSON.parse(process.env.HANDOFF_TOKENS ?? "{}") as Record<string, string> };
    console.log(JSON.stringify(await runAssessment(server, workflowId)));
  } else {
    const served = await startServe(principals);
    try {
      const id = `wf-assessment-${randomUUID().slice(0, 8)}`;
      await runAssessment(served, id, { crash: "soa_architect" }).catch((err: Error) => console.log(`first run: ${err.message}`));
      const again = runInNewProcess(served, id);
      console.log(`re-run (${id}): ${again.status}\n  ${again.steps.map((s) => `${s.node}:${s.outcome}`).join(" → ")}`);
    } finally {
      await served.stop();
    }
  }
}
