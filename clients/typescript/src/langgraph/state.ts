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
  /** The latest decision (the highest state version: branches run side by side decide
   * in turn). A router reads the decision of the node whose edge it is, which LangGraph
   * shows it before the branches' writes are merged. */
  decision: Annotation<Decision | undefined>({ reducer: latest, default: () => undefined }),
  /** The node that sent the request the latest decision answers. */
  from: Annotation<string | undefined>({ reducer: (_, b) => b, default: () => undefined }),
  /** By agent: the decision that handed it the work it does next (its task, its context
   * package); an agent node reads only its own entry. */
  handed: Annotation<Record<string, Decision>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  /** By agent: the state version of the decision that handed it work it has not answered
   * yet, null once it has. A decision that names an agent already at work (a branch
   * running beside the one that sent the request) does not send it again. */
  working: Annotation<Record<string, number | null>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  /** By agent: the task and context package handed to it, marked untrusted. */
  inbox: Annotation<Record<string, string>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  /** What the latest decision sends back for revision: artifact, producer, defects. */
  revise: Annotation<Revise[]>({ reducer: (_, b) => b, default: () => [] }),
  /** The decision refusing a person's latest answer at the human gate; null once an
   * answer moved the workflow on. */
  refused: Annotation<Decision | null>({ reducer: (_, b) => b, default: () => null }),
  /** The reasons of the latest block (or fail): the one that ended the graph, or a
   * branch; empty when there was none. */
  blocked: Annotation<Reason[]>({ reducer: (_, b) => b, default: () => [] }),
  /** By node: how many requests it has sent. Part of each request_id, so a replayed node
   * (LangGraph runs a node again from its start after a resume) sends the same one. */
  attempts: Annotation<Record<string, number>>({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  /** Every request sent, in order, with its outcome and reason codes. */
  steps: Annotation<Step[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

/** Of two decisions, the later one in the workflow. */
function latest(a: Decision | undefined, b: Decision | undefined): Decision | undefined {
  if (a === undefined || b === undefined) return b ?? a;
  return (b.state_version ?? 0) >= (a.state_version ?? 0) ? b : a;
}

export type HandoffStateType = typeof HandoffState.State;
export type HandoffUpdate = typeof HandoffState.Update;
