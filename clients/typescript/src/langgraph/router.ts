import { END } from "@langchain/langgraph";
import type { HandoffStateType } from "./state.js";

export interface RouterOptions {
  /** The node of each agent: "agent", or "agent:task" for one task of it (that wins). An
   * agent the decision names but no node runs (another graph's, a person) is skipped. */
  nodes: Record<string, string>;
  /** The node that asks a person (humanGate) when the decision is await_human. */
  human?: string;
  /** Where an allow that hands to no one goes: END by default. */
  done?: string;
}

/**
 * A conditional edge that follows the latest decision:
 * allow → the nodes of the agents its `next` names (END when none);
 * revise → the agents `next` names, else each revise[].producer, with the defects in state;
 * await_human → the human node (END when there is none);
 * retry → the node that sent the request, for its next attempt;
 * block, fail → END, the reasons kept in state.blocked.
 */
export function handoffRouter(options: RouterOptions): (state: HandoffStateType) => string | string[] {
  const nodeOf = (agent?: string, task?: string) =>
    agent === undefined ? undefined : (options.nodes[`${agent}:${task}`] ?? options.nodes[agent]);
  return (state) => {
    const d = state.decision;
    if (!d) return END;
    const next = (d.next ?? []).map((n) => nodeOf(n.agent, n.task));
    switch (d.outcome) {
      case "allow": {
        const to = unique(next);
        return to.length ? to : (options.done ?? END);
      }
      case "revise": {
        const to = unique(next);
        const producers = unique((d.revise ?? []).map((r) => nodeOf(r.producer)));
        return to.length ? to : producers.length ? producers : END;
      }
      case "await_human":
        return options.human ?? END;
      case "retry":
        return state.from ?? END;
      default:
        return END;
    }
  };
}

function unique(nodes: (string | undefined)[]): string[] {
  return [...new Set(nodes.filter((n): n is string => n !== undefined))];
}
