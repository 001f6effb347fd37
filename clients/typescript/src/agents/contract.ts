import type { Contract, ContractAgent } from "../types.js";
import type { PackSchemas } from "./parameters.js";
import { artifactTool, reviewTool } from "./tools.js";

export interface ContractToolsOptions {
  /** The task_type of each produced artifact type, for an agent with several tasks. */
  taskTypes?: Record<string, string>;
}

/**
 * The tools of one pack agent, derived from the pack's contract (HandoffClient.contract)
 * and its served schemas (the `schemas` of GET /v1/packs/{pack}/schemas, from the same
 * running bundle): every tool its role allows. The review tool when it reviews, typed as
 * the pack's review request; a record tool per artifact type it produces when it hands
 * work on, whose content is the type's schema: each field's type, enum values and
 * description, the required ones required, no others (the contracts are closed). An agent
 * that reviews and hands nothing on gets the review tool alone: what it produces (a QA
 * report, a review opinion) is recorded from its reviews. The engine still checks every
 * value.
 */
export function contractTools(contract: Contract, schemas: PackSchemas, agentId: string, options: ContractToolsOptions = {}) {
  if (schemas.pack !== contract.pack) {
    throw new Error(`handoff: the schemas are pack ${schemas.pack}'s, the contract pack ${contract.pack}'s`);
  }
  const agent = contract.tables.agents[agentId] as ContractAgent | undefined;
  if (!agent) {
    throw new Error(`handoff: pack ${contract.pack} has no agent ${agentId} (its agents: ${Object.keys(contract.tables.agents).join(", ")})`);
  }
  const reviews = (agent.reviews ?? []).length > 0 ? [reviewTool({ schemas })] : [];
  // An agent that hands nothing on produces only what its reviews record (a QA report, a
  // review opinion): it has no handoff to deliver an artifact with.
  if ((agent.hands_to ?? []).length === 0 && reviews.length > 0) return reviews;
  const records = (agent.produces ?? []).map((type) => {
    const artifact = contract.tables.artifacts[type];
    if (!artifact) throw new Error(`handoff: pack ${contract.pack} has no artifact contract ${type}`);
    const acceptance = (artifact.acceptance ?? []).join("; ");
    return artifactTool(type, {
      taskType: taskTypeOf(contract, agentId, agent, type, options),
      description: `Record the ${artifact.title ?? type} (${type}) you produced; your next handoff submits it.${acceptance ? ` Accepted when: ${acceptance}.` : ""}`,
      schemas,
    });
  });
  return [...reviews, ...records];
}

function taskTypeOf(contract: Contract, agentId: string, agent: ContractAgent, type: string, options: ContractToolsOptions): string {
  const given = options.taskTypes?.[type];
  if (given) return given;
  const tasks = agent.tasks ?? [];
  if (tasks.length === 1) return tasks[0]!;
  throw new Error(`handoff: ${agentId} of pack ${contract.pack} has tasks ${tasks.join(", ")}: say which one produces ${type} (taskTypes)`);
}
