import type { Revise } from "../types.js";
import { contextFor, type Workflow } from "../workflow.js";
import { decided, requestId, stepOf, type Ask } from "./decision.js";
import type { HandoffStateType, HandoffUpdate } from "./state.js";

/** All an agent node is given: its task and context package, never the graph state. */
export interface AgentInput {
  agent: string;
  /** The task the latest decision gives the agent. */
  task: string | undefined;
  /** The text the agent receives: task and context package, marked untrusted. */
  text: string;
  /** The context package itself, {must_know, may_know}, every value {untrusted_data}. */
  context: Record<string, unknown> | undefined;
  /** What the latest decision sends back for revision (artifact, producer, defects). */
  revise: Revise[];
  /** 1 on the node's first request, 2 on its second, ... */
  attempt: number;
}

export interface GovernedNodeOptions {
  /** The agent whose task and context the node takes; the node's name by default. A
   * system node acting on an agent's task (the tool gateway on the supervisor's
   * verify_authorization) names that agent here and its own actor in its Ask. */
  agent?: string;
}

/**
 * A graph node that runs act (the agent, given only its context package) and submits
 * what it produced to the service before any edge is taken. The decision goes into
 * the graph state for handoffRouter. Its request_id is the workflow's id, the node's
 * name and its attempt, so a node run again sends (or finds) the same request.
 */
export function governedNode(
  workflow: Workflow,
  name: string,
  act: (input: AgentInput) => Ask | Promise<Ask>,
  options: GovernedNodeOptions = {},
): (state: HandoffStateType) => Promise<HandoffUpdate> {
  const agent = options.agent ?? name;
  return async (state) => {
    const attempt = (state.attempts[name] ?? 0) + 1;
    // The decision that handed this agent its work, not the latest: a branch beside this
    // one may have decided since.
    const d = state.handed[agent] ?? state.decision;
    const ask = await act({
      agent,
      task: d?.next?.find((n) => n.agent === agent)?.task,
      text: state.inbox[agent] ?? "",
      context: d ? contextFor(d, agent) : undefined,
      revise: d?.outcome === "revise" ? (d.revise ?? []) : [],
      attempt,
    });
    const actor = ask.actor ?? agent;
    const id = requestId(workflow, name, attempt);
    const decision = await workflow.submitOnce(actor, ask.kind, id, () => ask.fields);
    return decided(name, attempt, decision, [stepOf(name, id, actor, ask, decision)], state.working, agent);
  };
}
