import { interrupt } from "@langchain/langgraph";
import type { Decision } from "../types.js";
import type { Workflow } from "../workflow.js";
import { decided, requestId, stepOf } from "./decision.js";
import type { HandoffStateType, HandoffUpdate, Step } from "./state.js";

/** What the graph shows a person when it stops: the value of the interrupt. */
export interface HumanPrompt {
  workflow_id: string;
  /** The await_human decision the workflow stands on. */
  decision: Decision;
  /** Whom it waits for (decision.next), e.g. campaign_approver, human_escalation_gate. */
  awaiting: string[];
  /** The decision on the person's previous answer when the service refused it. */
  refused?: Decision;
}

/** What a person answers, given as `new Command({ resume: answer })`: a request of
 * kind (an approval, or an outcome acknowledging a human handoff) sent as actor, with
 * that actor's own token (a participant of the Workflow). Cite artifact versions by
 * number (`${ref:STRATEGY_BRIEF@1}`): an answer is sent again, byte for byte, when the
 * node runs again. */
export interface HumanAnswer {
  actor: string;
  kind: string;
  fields: Record<string, unknown>;
}

/**
 * The node a graph waits in for a person: it interrupts with the await_human decision and
 * submits the answer it is resumed with. It leaves only when the service moves the
 * workflow past waiting (allow, revise, fail: handoffRouter takes it from there);
 * while the decision still awaits a person, or refuses the answer, it interrupts again.
 *
 * LangGraph runs an interrupted node again from its start on every resume, giving each
 * interrupt() the answer it had before. Each answer's request_id is fixed by the node's
 * attempt and the answer's place, so an answer already submitted is sent again with the
 * same request_id and payload and the service returns the decision it recorded.
 */
export function humanGate(workflow: Workflow, name = "human"): (state: HandoffStateType) => Promise<HandoffUpdate> {
  return async (state) => {
    const attempt = (state.attempts[name] ?? 0) + 1;
    let standing = state.decision;
    if (!standing) throw new Error(`handoff: node ${name} runs on an await_human decision, and there is none`);
    let refused: Decision | undefined;
    const steps: Step[] = [];
    for (let i = 1; ; i++) {
      const prompt: HumanPrompt = {
        workflow_id: workflow.id,
        decision: standing,
        awaiting: (standing.next ?? []).flatMap((n) => (n.agent ? [n.agent] : [])),
        ...(refused ? { refused } : {}),
      };
      const answer = interrupt<HumanPrompt, HumanAnswer>(prompt);
      const id = requestId(workflow, name, `${attempt}.${i}`);
      const d = await workflow.submit(answer.actor, answer.kind, answer.fields, id);
      steps.push(stepOf(name, id, answer.actor, answer, d));
      if (d.outcome === "await_human") {
        standing = d;
        refused = undefined;
      } else if (d.outcome === "block") {
        refused = d; // the workflow still waits: ask again
      } else {
        return decided(name, attempt, d, steps);
      }
    }
  };
}

/** The prompts a stopped graph waits on (the values of its pending interrupts); none
 * when it ran to its end. */
export async function prompts(
  graph: { getState(config: { configurable: { thread_id: string } }): Promise<{ tasks: readonly { interrupts: readonly { value?: unknown }[] }[] }> },
  config: { configurable: { thread_id: string } },
): Promise<HumanPrompt[]> {
  const snapshot = await graph.getState(config);
  return snapshot.tasks.flatMap((t) => t.interrupts.map((i) => i.value as HumanPrompt));
}
