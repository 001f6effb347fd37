import { interrupt } from "@langchain/langgraph";
import type { Decision } from "../types.js";
import type { Workflow } from "../workflow.js";
import { decided, requestId, stepOf } from "./decision.js";
import type { HandoffStateType, HandoffUpdate } from "./state.js";

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
 * that actor's own token (a participant of the Workflow). The envelope (request_id,
 * created_at, ...) is filled by Workflow. */
export interface HumanAnswer {
  actor: string;
  kind: string;
  fields: Record<string, unknown>;
}

/**
 * The node a graph waits in for a person: it interrupts once with the await_human
 * decision the workflow stands on (the gate) and submits the answer it is resumed with.
 * The service's decision goes into the state for handoffRouter: an allow, revise or fail
 * moves on; an await_human (a further wait) comes back here; a refused answer (block)
 * comes back here too, the gate unchanged and the refusal shown in the next prompt.
 *
 * The gate's answer is the decision that moved the workflow past it, wherever it was
 * recorded: before it interrupts, the node reads the workflow's log, so a graph run again
 * (a lost checkpoint, another process) finds the person's recorded answer and asks no one.
 * Each answer's request_id names the gate (its state_version) and the answer's place
 * among those the log holds for it: `WORKFLOW_ID:human:vN.K`.
 */
export function humanGate(workflow: Workflow, name = "human"): (state: HandoffStateType) => Promise<HandoffUpdate> {
  return async (state) => {
    const attempt = (state.attempts[name] ?? 0) + 1;
    const gate = state.decision;
    if (!gate) throw new Error(`handoff: node ${name} runs on an await_human decision, and there is none`);
    const past = await workflow.answerTo(gate);
    if (past) {
      const request = past.request as { actor: { id: string }; kind: string };
      const step = stepOf(name, past.decision.request_id, request.actor.id, { kind: request.kind, fields: {} }, past.decision);
      return { ...decided(name, attempt, past.decision, [step], state.working), refused: null };
    }
    const prompt: HumanPrompt = {
      workflow_id: workflow.id,
      decision: gate,
      awaiting: (gate.next ?? []).flatMap((n) => (n.agent ? [n.agent] : [])),
      ...(state.refused ? { refused: state.refused } : {}),
    };
    const answer = interrupt<HumanPrompt, HumanAnswer>(prompt);
    const prefix = `${requestId(workflow, name, `v${gate.state_version}`)}.`;
    const tried = (await workflow.log()).filter((e) => e.decision.request_id.startsWith(prefix)).length;
    const id = `${prefix}${tried + 1}`;
    const d = await workflow.submit(answer.actor, answer.kind, answer.fields, id);
    const steps = [stepOf(name, id, answer.actor, answer, d)];
    if (d.outcome === "block") return { ...decided(name, attempt, gate, steps, state.working), refused: d }; // the gate still waits
    return { ...decided(name, attempt, d, steps, state.working), refused: null };
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
