import type { PrincipalSpec } from "../test/serve.js";
import { HandoffClient, type Actor, type Participant } from "../src/index.js";

/** The campaign's actors in tenant acme, as the scenarios name them. */
export const agentIds = ["research_agent", "strategy_agent", "copywriter", "visual_prompt_agent", "qa_agent", "delivery_agent"] as const;
export const orchestrator: Actor = { type: "system", id: "orchestrator" };
export const maria: Actor = { type: "human", id: "maria.lopez", roles: ["campaign_approver"] };

/** One principal (one token) per actor. */
export const campaignPrincipals: PrincipalSpec[] = [
  { name: "orchestrator", tenant_id: "acme", type: "system", id: "orchestrator" },
  ...agentIds.map((id): PrincipalSpec => ({ name: id, tenant_id: "acme", type: "agent", id })),
  { name: "maria.lopez", tenant_id: "acme", type: "human", id: "maria.lopez", roles: ["campaign_approver"] },
];

/** The Workflow participants of the named principals, each with its own token. */
export function participants(server: { url: string; tokens: Record<string, string> }, names: string[]): Participant[] {
  return names.map((name) => {
    const p = campaignPrincipals.find((x) => x.name === name);
    if (!p) throw new Error(`no principal ${name}`);
    const actor: Actor = p.roles ? { type: p.type, id: p.id, roles: p.roles } : { type: p.type, id: p.id };
    return { actor, client: new HandoffClient({ baseUrl: server.url, token: server.tokens[name] }) };
  });
}
