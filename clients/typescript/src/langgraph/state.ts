import { Annotation } from "@langchain/langgraph";
import type { Decision, Reason, Revise } from "../types.js";

/** One request a node sent and what the service answered. */
export interface Step {
  node: string;
  request_id: string;
  kind: string;
  actor: string;
  outcome: Decision["outcome"];
  codes: string[];
  state_version: number | undefined;
  /** The same id when a replayed node got the recorded answer. */
  decision_id: string;
}

/**
 * The graph state the adapter reads and writes. Spread `HandoffState.spec` into a graph's
 * own Annotation.Root to add fields. Agent nodes never see it whole: each is given only
 * its entry of `inbox`, the context package the latest decision hands it.
 */
export const HandoffState = Annotation.Root({
  /** The latest decision; the routers read only this. */
  decision: Annotation<Decision | undefined>(),
  /** The node that sent the request the latest decision answers. */
  from: Annotation<string | undefined>(),
  /** By agent: the task and context package the latest decision hands it, marked untrusted. */
  inbox: Annotation<Record<string, string>>({ reducer: (_, b) => b, default: () => ({}) }),
  /** What the latest decision sends back for revision: artifact, producer, defects. */
  revise: Annotation<Revise[]>({ reducer: (_, b) => b, default: () => [] }),
  /** The decision refusing a person's latest answer at the human gate; null once an
   * answer moved the workflow on. */
  refused: Annotation<Decision | null>({ reducer: (_, b) => b, default: () => null }),
  /** The reasons of the block (or fail) that ended the graph; empty otherwise. */
  blocked: Annotation<Reason[]>({ reducer: (_, b) => b, default: () => [] }),
  /** By node: how many requests it has sent. Part of each request_id, so a replayed node
   * (LangGraph runs a node again from its start after a resume) sends the same one. */
  attempts: Annotation<Record<string, number>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  /** Every request sent, in order, with its outcome and reason codes. */
  steps: Annotation<Step[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export type HandoffStateType = typeof HandoffState.State;
export type HandoffUpdate = typeof HandoffState.Update;
