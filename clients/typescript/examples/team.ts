// The campaign pack's agents as SDK agents: each has the tools its contract gives it (a
// record tool per artifact it produces, typed by the pack's served schemas; QA: the review
// tool) and governed handoffs to whom the pack's workflow may pass work.
import { Agent } from "@openai/agents";
import type { Contract } from "../src/index.js";
import { contractTools, governedHandoff, type GovernedRun, type PackSchemas } from "../src/agents/index.js";

export type Team = Record<"research_agent" | "strategy_agent" | "copywriter" | "visual_prompt_agent" | "qa_agent" | "delivery_agent", Agent<GovernedRun>>;

export function campaignTeam(contract: Contract, schemas: PackSchemas): Team {
  // The model name is the pack id: the run's model provider answers for each agent.
  const agent = (name: string, instructions: string) => new Agent<GovernedRun>({ name, model: name, instructions, tools: contractTools(contract, schemas, name) });
  const research = agent("research_agent", "Research the brief; record a RESEARCH_BRIEF, then hand off.");
  const strategy = agent("strategy_agent", "Write the strategy from the validated research; record it, then hand off for approval.");
  const copy = agent("copywriter", "Write the copy from the approved strategy; record it, then hand off to QA.");
  const visual = agent("visual_prompt_agent", "Write the image prompts from the approved strategy; record them, then hand off to QA.");
  const qa = agent("qa_agent", "Check the artifacts against the pack's gates; record your verdict, then hand off.");
  const delivery = agent("delivery_agent", "Package the approved copy and prompts for the client; record it, then deliver.");
  research.handoffs = [governedHandoff(strategy)];
  qa.handoffs = [strategy, copy, visual, delivery].map((a) => governedHandoff(a));
  strategy.handoffs = [governedHandoff("campaign_approver")];
  copy.handoffs = [governedHandoff(qa)];
  visual.handoffs = [governedHandoff(qa)];
  delivery.handoffs = [governedHandoff("client")];
  return {
    research_agent: research,
    strategy_agent: strategy,
    copywriter: copy,
    visual_prompt_agent: visual,
    qa_agent: qa,
    delivery_agent: delivery,
  };
}
