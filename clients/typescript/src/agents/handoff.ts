import { Agent, Handoff, RunHandoffCallItem, RunHandoffOutputItem, handoff, user, type HandoffInputData } from "@openai/agents";
import { governedRunOf } from "./run.js";

export interface GovernedOptions {
  /** The pack id the request names as target_agent; the SDK agent's name by default. */
  target?: string;
  /** The task_type of a handoff whose agent recorded no artifact. */
  taskType?: string;
}

/**
 * The handoff h, governed: when the model calls it, the acting agent's handoff is sent to
 * the service first (an artifact its tool recorded becomes the output; a review its QA
 * tool recorded becomes a review request), and the decision picks the agent that runs
 * next: the one `next` names (allow; the model's target is only a preference), the producer
 * to repair (revise), whoever a person's decision names (await_human: the run waits for
 * it), or none (block: HandoffBlocked, or the reasons back to the model). The model-facing
 * tool (name, description, schema) stays h's; its input filter is replaced: another agent
 * starts from the decision's context package, the same agent keeps its turns.
 */
export function governed(h: Handoff<any, any>, options: GovernedOptions = {}): Handoff<any, any> {
  return h.clone({
    onInvokeHandoff: async (ctx, args) => {
      // h's own invocation still runs (its onHandoff callback, the parsing of its input);
      // the agent it would answer is replaced by the one the decision names.
      await h.onInvokeHandoff(ctx, args);
      return governedRunOf(ctx).handoff(options.target ?? h.agentName, h.agentName, options.taskType);
    },
    inputFilter: nextAgentInput,
  });
}

/**
 * A governed handoff to agent, or to a party outside the run (a person, the client) by its
 * pack id: its stand-in agent is never run, the decision says who goes on.
 */
export function governedHandoff(agent: Agent<any, any> | string, options: GovernedOptions = {}): Handoff<any, any> {
  const target = typeof agent === "string" ? new Agent({ name: agent, handoffDescription: `${agent}, outside this run` }) : agent;
  return governed(handoff(target), options);
}

/**
 * Another agent sees only the context package the decision gave it (no earlier turns, no
 * tool output, nothing the contract keeps from it), then the handoff call and its answer.
 * The same agent, handed back to itself (the decision named it, or its handoff was refused
 * and given back), keeps its turns; its handoff call is answered with the decision.
 * The handoff's items stay in the step, so a streamed run emits handoff_occurred.
 */
function nextAgentInput(data: HandoffInputData): HandoffInputData {
  const input = governedRunOf(data.runContext).takeInput() ?? { text: "", sameAgent: false };
  const handoffItems = data.newItems.filter((i) => i instanceof RunHandoffCallItem || i instanceof RunHandoffOutputItem);
  const output = handoffItems.find((i): i is RunHandoffOutputItem => i instanceof RunHandoffOutputItem);
  if (!input.sameAgent) {
    return { inputHistory: [user(input.text)], preHandoffItems: [], newItems: handoffItems.slice(-2), runContext: data.runContext };
  }
  const answered = output && new RunHandoffOutputItem({ ...output.rawItem, output: { type: "text", text: input.text } }, output.sourceAgent, output.targetAgent);
  const newItems = data.newItems.map((i) => (i === output && answered ? answered : i));
  return { inputHistory: data.inputHistory, preHandoffItems: data.preHandoffItems, newItems, runContext: data.runContext };
}
