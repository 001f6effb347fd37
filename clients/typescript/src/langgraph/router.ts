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
  /** Ends the wait for a retry's delay (the graph run's own signal ends it too). */
  signal?: AbortSignal;
}

/**
 * A conditional edge that follows the latest decision:
 * allow → the nodes of the agents its `next` names (`done` when none);
 * revise → the agents `next` names, else each revise[].producer, with the defects in state;
 * an agent named while still at work on an earlier decision's task (branches run side
 *   by side: campaign copy ∥ visual) is not sent again; a branch whose decision names only
 *   such agents ends (END), the other branch going on;
 * await_human → the human node (END when there is none);
 * retry → the node that sent the request, for its next attempt, once the retry's
 *   delay_ms after the decision has passed (the service refuses an early retry:
 *   RETRY_NOT_DUE); the wait ends, rejecting, when options.signal (or the signal of
 *   the run's config) fires;
 * block, fail → END, the reasons kept in state.blocked.
 */
export function handoffRouter(options: RouterOptions): (state: HandoffStateType, config?: { signal?: AbortSignal }) => Promise<string | string[]> {
  const nodeOf = (agent?: string, task?: string) =>
    agent === undefined ? undefined : (options.nodes[`${agent}:${task}`] ?? options.nodes[agent]);
  return async (state, config) => {
    const d = state.decision;
    if (!d) return END;
    // The agents this decision handed new work to (handed names it): one named while at
    // work on an earlier decision's task (a branch beside this one) is not sent again.
    const handed = Object.entries(state.handed).flatMap(([agent, by]) => (by.decision_id === d.decision_id ? [agent] : []));
    const to = unique(handed.map((agent) => nodeOf(agent, d.next?.find((n) => n.agent === agent)?.task)));
    switch (d.outcome) {
      case "allow": {
        if (to.length) return to;
        // Every agent it names is at work on a branch beside this one: this branch ends.
        const besideOnly = (d.next ?? []).length > 0 && handed.length === 0;
        return besideOnly ? END : (options.done ?? END);
      }
      case "revise":
        return to.length ? to : END;
      case "await_human":
        return options.human ?? END;
      case "retry": {
        const due = Date.parse(d.decided_at) + (d.retry?.delay_ms ?? 0);
        await until(due, [options.signal, config?.signal]);
        return state.from ?? END;
      }
      default:
        return END;
    }
  };
}

function unique(nodes: (string | undefined)[]): string[] {
  return [...new Set(nodes.filter((n): n is string => n !== undefined))];
}

/** Resolves at the time due (ms since the epoch); rejects when one of the signals fires. */
function until(due: number, signals: (AbortSignal | undefined)[]): Promise<void> {
  const signal = AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    // The service dates decisions to the millisecond: one more keeps clear of its rounding.
    const timer = setTimeout(done, Math.max(0, due - Date.now() + 1));
    function done() {
      signal.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", abort, { once: true });
  });
}
