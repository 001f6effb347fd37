// The video pack's actors and its eight agents as SDK agents: each has every tool its
// contract role gives it (the review tool for what it checks, a record tool per artifact
// it produces) and a governed handoff along the pack's chain.
import { Agent } from "@openai/agents";
import { HandoffClient, type Actor, type Contract, type Participant } from "../src/index.js";
import { contractTools, governedHandoff, type GovernedRun, type PackSchemas } from "../src/agents/index.js";
import type { PrincipalSpec } from "../test/serve.js";

export const videoAgentIds = [
  "client-intake",
  "creative-director",
  "screenwriter",
  "director",
  "vfx-supervisor",
  "editor",
  "internal-review-lead",
  "client-review-lead",
] as const;
export type VideoAgentId = (typeof videoAgentIds)[number];

/** One principal (one token) per actor of tenant baimengke; chen.mei is the client. */
export const videoPrincipals: PrincipalSpec[] = [
  { name: "studio-orchestrator", tenant_id: "baimengke", type: "system", id: "studio-orchestrator" },
  ...videoAgentIds.map((id): PrincipalSpec => ({ name: id, tenant_id: "baimengke", type: "agent", id })),
  { name: "chen.mei", tenant_id: "baimengke", type: "human", id: "chen.mei", roles: ["client"] },
];

/** The Workflow participants of the named principals, each with its own token. */
export function videoParticipants(server: { url: string; tokens: Record<string, string> }, names: readonly string[] = videoPrincipals.map((p) => p.name)): Participant[] {
  return names.map((name) => {
    const p = videoPrincipals.find((x) => x.name === name);
    if (!p) throw new Error(`no principal ${name}`);
    const actor: Actor = p.roles ? { type: p.type, id: p.id, roles: p.roles } : { type: p.type, id: p.id };
    return { actor, client: new HandoffClient({ baseUrl: server.url, token: server.tokens[name] }) };
  });
}

export type VideoTeam = Record<VideoAgentId, Agent<GovernedRun>>;

// The task of each produced type, for the agents whose contract lists a check task too.
const taskTypes: Record<string, string> = { A2: "scriptwriting", A3: "scriptwriting", A6: "scriptwriting", A4: "storyboarding", A5: "storyboarding", PROMPT: "prompting", EDIT_PLAN: "editing" };

export function videoTeam(contract: Contract, schemas: PackSchemas): VideoTeam {
  // The model name is the pack id: the run's model provider answers for each agent.
  const agent = (name: VideoAgentId, instructions: string) =>
    new Agent<GovernedRun>({ name, model: name, instructions, tools: contractTools(contract, schemas, name, { taskTypes }) });
  const team: VideoTeam = {
    "client-intake": agent("client-intake", "Write the client's inquiry down as REQUIREMENTS; record it, then hand off."),
    "creative-director": agent("creative-director", "Write the creative brief (A1) and the skill routing; record both, then hand off."),
    screenwriter: agent("screenwriter", "Check A1 and the routing (record your review with its attestations), then write A2, A3 and A6; record them, then hand off."),
    director: agent("director", "Check A2, A3 and A6 (record your review with its attestations), then write A4 and A5; record them, then hand off."),
    "vfx-supervisor": agent("vfx-supervisor", "Check A4 and A5 (record your review), then write the PROMPT; record it with its skill runs, then hand off."),
    editor: agent("editor", "Check the PROMPT (record your review with its attestations), then write the EDIT_PLAN; record it, then hand off."),
    "internal-review-lead": agent("internal-review-lead", "Review every deliverable; record your verdict, then hand off."),
    "client-review-lead": agent("client-review-lead", "Prepare the CLIENT_CONFIRMATION of the approved versions; record it, then hand it to the client."),
  };
  const chain: [VideoAgentId, Agent<GovernedRun> | string][] = [
    ["client-intake", team["creative-director"]],
    ["creative-director", team.screenwriter],
    ["screenwriter", team.director],
    ["director", team["vfx-supervisor"]],
    ["vfx-supervisor", team.editor],
    ["editor", team["internal-review-lead"]],
    ["internal-review-lead", team["client-review-lead"]],
    ["client-review-lead", "client"],
  ];
  for (const [from, to] of chain) team[from].handoffs = [governedHandoff(to)];
  return team;
}
