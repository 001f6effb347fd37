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

/** What a node writes into the graph state once the service decided its requests. */
export function decided(node: string, attempt: number, d: Decision, steps: Step[]): HandoffUpdate {
  const next = (d.next ?? []).flatMap((n) => (n.agent ? [n.agent] : []));
  return {
    decision: d,
    from: node,
    // Each next agent's input: its task and context package, every value marked untrusted.
    inbox: Object.fromEntries(next.map((agent) => [agent, untrusted(d, agent)])),
    revise: d.outcome === "revise" ? (d.revise ?? []) : [],
    blocked: d.outcome === "block" || d.outcome === "fail" ? d.reasons : [],
    attempts: { [node]: attempt },
    steps,
  };
}
