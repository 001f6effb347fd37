import type { Decision } from "../types.js";
import { untrusted, type Workflow } from "../workflow.js";
import type { HandoffUpdate, Step } from "./state.js";

/** One request a node sends: its kind and fields, as one actor (the node's agent by default). */
export interface Ask {
  actor?: string;
  kind: string;
  /** The kind's fields; `${ref:…}`, `${state_version}` placeholders are resolved by Workflow. */
  fields: Record<string, unknown>;
}

/** The request_id of a node's attempt: the same on every run of that attempt. */
export function requestId(workflow: Workflow, node: string, attempt: number | string): string {
  return `${workflow.id}:${node}:${attempt}`;
}

/** The record of one request and its answer, kept in state.steps. */
export function stepOf(node: string, id: string, actor: string, ask: Ask, d: Decision): Step {
  return {
    node,
    request_id: id,
    kind: ask.kind,
    actor,
    outcome: d.outcome,
    codes: d.reasons.map((r) => r.code),
    state_version: d.state_version,
    decision_id: d.decision_id,
  };
}

/** The agents a decision hands new work to: those its `next` names (else, for a revise,
 * the producers it returns work to), except an agent still at work on what an earlier decision handed it
 * (the other branch of work run side by side). */
export function handsTo(d: Decision, working: Record<string, number | null>): string[] {
  const named = (d.next ?? []).flatMap((n) => (n.agent ? [n.agent] : []));
  const producers = d.outcome === "revise" ? (d.revise ?? []).flatMap((r) => (r.producer ? [r.producer] : [])) : [];
  return [...new Set(named.length ? named : producers)].filter((agent) => working[agent] == null);
}

/** What a node writes into the graph state once the service decided its requests.
 * working is the state's, before the node's request: agent is the node's agent, whose
 * work the request answered. */
export function decided(node: string, attempt: number, d: Decision, steps: Step[], working: Record<string, number | null> = {}, agent?: string): HandoffUpdate {
  const done = agent === undefined ? {} : { [agent]: null };
  const to = handsTo(d, { ...working, ...done });
  return {
    decision: d,
    from: node,
    handed: Object.fromEntries(to.map((a) => [a, d])),
    working: { ...done, ...Object.fromEntries(to.map((a) => [a, d.state_version ?? 0])) },
    // Each agent's input: its task and context package, every value marked untrusted.
    inbox: Object.fromEntries(to.map((a) => [a, untrusted(d, a)])),
    revise: d.outcome === "revise" ? (d.revise ?? []) : [],
    ...(d.outcome === "block" || d.outcome === "fail" ? { blocked: d.reasons } : {}),
    attempts: { [node]: attempt },
    steps,
  };
}
